"""A measured training efficiency judged for its setup ("38% MFU on 512 H100s, good?"): the verdict against
the published runs for that class of GPU and cluster size, before the card that explains MFU. plan.py reads the
setup, tools/cost/mfu_verdict.py judges it, render.py words the verdict."""

from __future__ import annotations

from advisor.offline.tasks.training import plan, render
from advisor.offline.turn import Turn
from tools.cost.mfu_verdict import MfuJudgement, judge_mfu


def _judged(turn: Turn) -> MfuJudgement:
    return judge_mfu(plan.mfu_request(turn), turn.catalog)


def is_low(turn: Turn) -> bool:
    """The stated MFU is below what the setup usually reaches: a slowdown worth diagnosing."""
    return _judged(turn).verdict == "below"


def verdict(turn: Turn) -> str:
    turn.slots.mark("mfu", "gpu", "gpu_count")
    turn.judged.add("mfu_percent")  # the troubleshooting rules' own MFU verdict would repeat this one
    return render.mfu_verdict(turn, _judged(turn), plan.mfu_count(turn))
