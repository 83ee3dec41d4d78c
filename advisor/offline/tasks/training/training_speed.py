"""“How much faster does B train than A?” and “the boss says we need half the cards”: the per-GPU training speed
ratio from the training-time estimator (dense peak at the chosen precision × the MFU it assumes for each card),
the card count that gives the same time, a verdict on a quoted cut, and what the ratio leaves out (memory,
links, FP4). plan.py sets the reference run, estimate_training_time times it on each card, render.py words it."""

from __future__ import annotations

from advisor.offline.tasks.specs import compare
from advisor.offline.tasks.training import plan, render
from advisor.offline.turn import Turn


def answer(turn: Turn) -> str:
    pairs = compare.options(turn)
    turn.slots.mark("gpu", "gpu_count")
    return "\n\n".join(speed_ratio(turn, pairs, with_notes=True))


def speed_ratio(turn: Turn, pairs: list[tuple[str, int | None]], with_notes: bool = False) -> list[str]:
    """The per-GPU ratio of the first two cards, the count for the same time, the verdict on a quoted cut; with
    notes, the memory and link caveats and the FP4 caution. [] when the estimator cannot time both cards."""
    first, second = turn.catalog.gpu(pairs[0][0]), turn.catalog.gpu(pairs[1][0])
    count = plan.speed_count(turn, pairs)
    precision = plan.speed_precision(turn, first, second)
    runs = []
    for gpu in (first, second):
        outcome = turn.call("estimate_training_time", plan.speed_args(turn, gpu.id, count, precision))
        if not outcome.ok:
            return [turn.error(outcome)] if with_notes else []
        runs.append(outcome.result)
    return render.speed_ratio_lines(turn, first, second, count, precision, runs, plan.card_cut(turn), with_notes)


def quoted_cut(turn: Turn, pairs: list[tuple[str, int | None]]) -> list[str]:
    """A comparison of sized options that also quotes a cut in cards ("can we use half as many?"): the ratio and
    the verdict on it, [] when no cut was quoted."""
    return speed_ratio(turn, pairs) if plan.card_cut(turn) is not None and len(pairs) >= 2 else []
