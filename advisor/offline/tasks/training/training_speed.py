"""“How much faster does B train than A?” and “the boss says we need half the cards”: the per-GPU training speed
ratio from the training-time estimator (dense peak at the chosen precision × the MFU it assumes for each card),
the card count that gives the same time, a verdict on a quoted cut, and what the ratio leaves out (memory,
links, FP4)."""

from __future__ import annotations

import math

from advisor.markdown import number, token_count
from advisor.offline.tasks.specs import compare
from advisor.offline.wording import Wording
from advisor.offline.turn import Turn
from tools.recommend.configs import sold_count_from

WORDING = Wording("training", "training_speed")
# The run both cards are timed on. Time is FLOPs / (GPUs × peak × MFU), so the ratio does not depend on it, as
# long as both sit in the same MFU row (up to 8,192 GPUs of one class).
REFERENCE_PARAMS_B = 70
REFERENCE_TOKENS = 1e12
REFERENCE_GPUS = 8  # one standard server, when the user named no count
FP4 = "fp4"


def applies(turn: Turn) -> bool:
    """Two or more cards named and no model: the question is the cards' speed, not a run's."""
    return turn.model_reference() is None and len(compare.options(turn)) >= 2


def answer(turn: Turn) -> str:
    pairs = compare.options(turn)
    turn.slots.mark("gpu", "gpu_count")
    return "\n\n".join(speed_ratio(turn, pairs, with_notes=True))


def speed_ratio(turn: Turn, pairs: list[tuple[str, int | None]], with_notes: bool = False) -> list[str]:
    """The per-GPU ratio of the first two cards, the count for the same time, the verdict on a quoted cut; with
    notes, the memory and link caveats and the FP4 caution. [] when the estimator cannot time both cards."""
    first, second = turn.catalog.gpu(pairs[0][0]), turn.catalog.gpu(pairs[1][0])
    count = next((c for _, c in pairs[:2] if c), None) or turn.slots.gpu_count or REFERENCE_GPUS
    precision = _precision(turn, first, second)
    runs = []
    for gpu in (first, second):
        args = {"params_b": REFERENCE_PARAMS_B, "tokens": REFERENCE_TOKENS, "gpu": gpu.id, "num_gpus": count, "precision": precision, "mfu": turn.slots.mfu}
        outcome = turn.call("estimate_training_time", args)
        if not outcome.ok:
            return [turn.error(outcome)] if with_notes else []
        runs.append(outcome.result)
    # "B vs A", "swap A for B": word order does not say which card is the move; the faster one is, and the card count
    # the user runs today belongs to the slower one; at equal speed the second named is the move ("from A to B")
    fast, slow = sorted(runs[::-1], key=lambda run: run["gpu_hours"])
    new, old = (first, second) if fast is runs[0] else (second, first)
    ratio = slow["gpu_hours"] / fast["gpu_hours"]
    label = precision.upper()
    values = {"new": new.name, "old": old.name, "precision": label, "new_peak": number(fast["peak_tflops"]), "old_peak": number(slow["peak_tflops"]),
              "new_mfu": f"{fast['mfu']:.0%}", "old_mfu": f"{slow['mfu']:.0%}"}  # fmt: skip
    lead = WORDING.say(turn, "lead", ratio=number(ratio), **values)
    needed = max(1, math.ceil(count / ratio - 1e-9))
    sold = sold_count_from(new, needed)
    same = WORDING.say(turn, "same_time", count=count, old=old.name, new=new.name, needed=needed,
                       sold=WORDING.say(turn, "sold", sold=sold) if sold and sold != needed else "")  # fmt: skip
    parts = [lead + turn.t(" ", "") + same]
    claim = _claim(turn)
    if claim is not None:
        said, factor = claim
        claimed_count = max(1, math.ceil(count / factor))
        key = "claim.holds" if ratio >= factor else "claim.fails"
        parts.append(WORDING.say(turn, key, claim=said, ratio=number(ratio), claimed=number(factor), count=count, old=old.name,
                                 new=new.name, needed=needed, claimed_count=claimed_count, longer=number(needed / claimed_count)))  # fmt: skip
    line = WORDING.text("assumption", params=REFERENCE_PARAMS_B, tokens=token_count(REFERENCE_TOKENS), count=count)
    turn.assume(line.en, line.zh)
    if not with_notes:
        return parts
    link = WORDING.say(turn, "no_link")
    parts.append("\n".join([
        "- " + WORDING.say(turn, "memory", new=new.name, old=old.name, new_gb=number(new.memory_gb), old_gb=number(old.memory_gb),
                           memory_ratio=number(new.memory_gb / old.memory_gb), memory_total=number(new.memory_gb * needed / (old.memory_gb * count))),
        "- " + WORDING.say(turn, "links", new=new.name, old=old.name, new_link=f"{number(new.nvlink_gbs)} GB/s" if new.nvlink_gbs else link,
                           old_link=f"{number(old.nvlink_gbs)} GB/s" if old.nvlink_gbs else link),
    ]))  # fmt: skip
    if FP4 in turn.slots.frame.all("precision") or turn.ask.names_fp4:
        parts.append(WORDING.say(turn, "fp4", precision=label))
    turn.cite("parallelism", WORDING.say(turn, "training_speed_phrases.speed_ratio.parallelism_and_scaling"))
    return parts


def quoted_cut(turn: Turn, pairs: list[tuple[str, int | None]]) -> list[str]:
    """A comparison of sized options that also quotes a cut in cards ("can we use half as many?"): the ratio and
    the verdict on it, [] when no cut was quoted."""
    return speed_ratio(turn, pairs) if _claim(turn) is not None and len(pairs) >= 2 else []


def _precision(turn: Turn, new, old) -> str:
    """FP8 when asked for (or FP4, which the estimator does not time) and both cards have it; BF16 otherwise."""
    said = set(turn.slots.frame.all("precision"))
    if said & {"fp8", FP4} and new.fp8_tflops and old.fp8_tflops:
        return "fp8"
    return "bf16"


def _claim(turn: Turn) -> tuple[str, float] | None:
    """A quoted cut in cards ("half the cards") and the speed factor it needs, as the NLU read it."""
    return turn.ask.card_cut