"""The first line of a spec answer for what was asked of the cards (``Ask.spec_fields_asked``, ``Ask.comparison_claim``):
"H200 memory bandwidth?" → the bandwidth first, then the card; "the L40S has more TFLOPS than the A100, right?" →
right or wrong with both figures, on the catalog's dense figure of the precision named. Wording from the package
text.yaml (section asked); every figure from compare_gpus' rows."""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("specs", "asked")
TB = 1000  # GB/s in a TB/s
TFLOPS_FIELDS = {"bf16_tflops": "BF16", "fp8_tflops": "FP8", "fp4_tflops": "FP4"}


def figure(turn: Turn, gpu: dict, field: str, sparse: bool = True) -> str:
    """One catalog figure of ``gpu`` in words: its unit, the memory type, the sparse figure beside a dense one (not
    in a comparison, which is made on the dense figures alone)."""
    value = gpu.get(field)
    if value is None:
        return WORDING.say(turn, "figure.none")
    if field in TFLOPS_FIELDS:
        figures = {"value": number(value), "precision": TFLOPS_FIELDS[field]}
        if sparse and gpu.get("sparsity_2_4"):
            return WORDING.say(turn, "figure.tflops_sparse", sparse=number(2 * value), **figures)
        return WORDING.say(turn, "figure.tflops", **figures)
    if field == "bandwidth_gbs" and value >= TB:
        return WORDING.say(turn, "figure.bandwidth_tb", value=number(value), tb=number(value / TB, 2))
    return WORDING.say(turn, f"figure.{field}", value=number(value), memory_type=gpu.get("memory_type", ""))


def one_card(turn: Turn, gpu: dict) -> str:
    """The figures asked of one card, each first in its own line; "" when the question names none."""
    return "\n\n".join(WORDING.say(turn, "one", figure=figure(turn, gpu, field), name=WORDING.say(turn, f"name.{field}"), card=gpu["name"])
                       for field in turn.ask.spec_fields_asked)  # fmt: skip


def claim(turn: Turn, gpus: list[dict]) -> str:
    """Right or wrong on the comparison stated between two of ``gpus``, with both figures; "" when none was stated."""
    stated = turn.ask.comparison_claim
    by_id = {gpu["id"]: gpu for gpu in gpus}
    if stated is None or stated.subject not in by_id or stated.other not in by_id:
        return ""
    subject, other, field = by_id[stated.subject], by_id[stated.other], stated.field
    name = WORDING.say(turn, f"name.{field}")
    missing = [gpu["name"] for gpu in (subject, other) if gpu.get(field) is None]
    if missing:
        return WORDING.say(turn, "claim.unknown", name=name, missing=missing[0])
    figures = {"subject": subject["name"], "other": other["name"], "name": name,
               "subject_figure": figure(turn, subject, field, sparse=False), "other_figure": figure(turn, other, field, sparse=False)}  # fmt: skip
    ours, theirs = float(subject[field]), float(other[field])
    if ours == theirs:
        return WORDING.say(turn, "claim.equal", **figures)
    actual = "more" if ours > theirs else "less"
    if actual == stated.direction:
        return WORDING.say(turn, "claim.right", direction=WORDING.say(turn, f"claim.direction.{actual}"), **figures)
    return WORDING.say(turn, "claim.wrong", direction=WORDING.say(turn, f"claim.direction.{stated.direction}"),
                       actual=WORDING.say(turn, f"claim.direction.{actual}"), **figures)  # fmt: skip
