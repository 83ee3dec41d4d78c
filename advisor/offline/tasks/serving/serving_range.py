"""A range of models ("7B to 72B", "14B–32B") answered per end: a row for the smallest and the largest, and the
end that decides (the larger one, whose speed and memory bind) named in the lead. The estimates are serving.py's;
this module picks the ends and says them."""

from __future__ import annotations

from dataclasses import dataclass
from os.path import commonprefix

from advisor.markdown import number, table
from advisor.offline.tasks.serving.serving_words import serving_text
from advisor.offline.turn import Turn
from knowledge.bilingual import Text


RANGE_COLUMNS = ("model", "per_user", "total", "fits", "limit")


@dataclass(frozen=True)
class RangeEnd:
    model: str  # what the estimator takes: a catalog id, else a bare size ("72b")
    size_b: float
    result: dict | None  # the estimate at the stated load; None when the weights do not fit the setup


def range_models(turn: Turn) -> list[tuple[str, float]]:
    """(model, size) for the smallest and the largest size named; [] when the thread names one size only."""
    sizes = turn.ask.model_sizes_b
    if len(sizes) < 2:
        return []
    return [(_model_of_size(turn, sizes[0]), sizes[0]), (_model_of_size(turn, sizes[-1]), sizes[-1])]


def _model_of_size(turn: Turn, size_b: float) -> str:
    """The named model of that size; else the named family's model of that size ("Qwen2.5 7B to 72B"); else the size."""
    specs = [spec for name in turn.slots.models if (spec := turn.catalog.find_model(name)) is not None]
    for spec in specs:
        if abs(spec.params_b - size_b) <= 0.15 * size_b:
            return spec.id
    for spec in specs:  # the sibling whose id reads most like the named one ("qwen2.5-14b" → "qwen2.5-32b", not "qwen3-32b")
        siblings = [m for m in turn.catalog.models if m.family == spec.family and abs(m.params_b - size_b) <= 0.15 * size_b]
        if siblings:
            return max(siblings, key=lambda m: len(commonprefix([m.id, spec.id]))).id
    return f"{size_b:g}b"


def _label(turn: Turn, end: RangeEnd) -> str:
    if end.result is not None:
        return turn.text(Text(**end.result["model_label"]))
    spec = turn.catalog.find_model(end.model)
    return spec.name if spec is not None else f"{end.size_b:g}B"


def _verdict(turn: Turn, end: RangeEnd, floor: float | None) -> str:
    if end.result is None:
        return turn.text(serving_text("range_no_fit"))
    if floor is None:
        return ""
    per_user = end.result["tokens_per_s_per_user_streaming"]
    return turn.text(serving_text("range_meets" if per_user >= floor else "range_below", target=f"{floor:g}"))


def range_lead(turn: Turn, ends: list[RangeEnd], setup: Text, users: int, floor: float | None, bound: callable) -> list[str]:
    """The lead (the larger end decides, both ends' speeds) and a row per end."""
    small, large = ends[0], ends[-1]

    def speed(end: RangeEnd) -> str:
        return number(end.result["tokens_per_s_per_user_streaming"]) if end.result is not None else "–"

    lead = serving_text("range_lead", large=_label(turn, large), small=_label(turn, small),
                        setup=setup, users=f"{users:,}", large_speed=speed(large), small_speed=speed(small),
                        large_verdict=_verdict(turn, large, floor), small_verdict=_verdict(turn, small, floor))  # fmt: skip
    header = [turn.text(serving_text(f"range_columns.{column}")) for column in RANGE_COLUMNS]
    rows = []
    for end in ends:
        r = end.result
        if r is None:
            rows.append([_label(turn, end), "–", "–", "–", _verdict(turn, end, floor)])
            continue
        rows.append([_label(turn, end), number(r["tokens_per_s_per_user_streaming"]), number(r["output_tokens_per_s_total"]), f"{r['max_batch_fits']:,}",
                     turn.text(bound(r))])  # fmt: skip
    return [turn.text(lead), table(header, rows)]
