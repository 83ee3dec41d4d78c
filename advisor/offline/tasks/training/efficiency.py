"""A measured training efficiency judged for its setup ("38% MFU on 512 H100s, good?"): the verdict against
the published runs for that class of GPU and cluster size, before the card that explains MFU."""

from __future__ import annotations

from advisor.nlu.subjects import Subjects
from advisor.offline.wording import Wording
from advisor.offline.turn import Turn
from tools.cost.mfu_verdict import MfuJudgement, MfuJudgementRequest, judge_mfu

WORDING = Wording("training", "efficiency")
ONE_SERVER = 8  # without a count, the job is judged on one 8-GPU server, and the answer says so


def judges_mfu(turn: Turn, asked: Subjects) -> bool:
    """The question states an MFU and the GPU it was measured on, both usable ("MFU 0.0 on 1e-300 A100s" is
    left to the answers that explain why such figures cannot be computed)."""
    mfu, count = turn.slots.mfu, turn.slots.gpu_count
    usable = mfu is not None and 0 < mfu < 1 and (count is None or (count >= 1 and float(count).is_integer()))
    return "mfu" in asked.get("topic", ()) and usable and bool(turn.slots.gpus)


def _judged(turn: Turn) -> MfuJudgement:
    count = turn.slots.gpu_count or ONE_SERVER
    return judge_mfu(MfuJudgementRequest(mfu=turn.slots.mfu, gpu=turn.slots.gpus[0], num_gpus=count), turn.catalog)


def is_low(turn: Turn) -> bool:
    """The stated MFU is below what the setup usually reaches: a slowdown worth diagnosing."""
    return _judged(turn).verdict == "below"


def verdict(turn: Turn) -> str:
    count = turn.slots.gpu_count or ONE_SERVER
    if turn.slots.gpu_count is None:
        assumed = WORDING.text("count_assumed", count=count)
        turn.assume(assumed.en, assumed.zh)
    turn.slots.mark("mfu", "gpu", "gpu_count")
    turn.judged.add("mfu_percent")  # the troubleshooting rules' own MFU verdict would repeat this one
    judged = _judged(turn)
    line = WORDING.say(turn, f"verdict.{judged.verdict}", stated=_percent(judged.stated), count=count, gpu=judged.gpu_name,
                       typical=_percent(judged.typical), band=_points(judged.band), gap=_points(abs(judged.stated - judged.typical)))  # fmt: skip
    return "**" + line + "**\n\n" + WORDING.say(turn, "basis", basis=turn.text(judged.basis))


def _percent(share: float) -> str:
    return f"{_points(share)}%"


def _points(share: float) -> str:
    return f"{share * 100:.0f}"
