"""A figure the user states of the one card asked about ("the B200 is 192 GB, right?", "the H100 has 1979 TFLOPS, right?"), checked
against the catalog before the sheet: yes or no with the catalog's figure. A bare figure is placed among the spec sheet's
dense and sparse figures of each precision (the catalog's figures are dense; ``sparsity_2_4`` says whether the sheet
doubles them with 2:4 sparsity), so "1979" is named as the H100's sparse BF16 (or dense FP8), not its training figure.
Wording from the package text.yaml (section stated); every figure from the tool's row."""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("specs", "stated")
SAME = 0.02  # within 2 % of a catalog figure is that figure ("989" for 989.5, "80G" for 80 GB)
NEAR = (0.25, 2.5)  # a bare number this far from every sheet figure is no TFLOPS claim (a price, a year)
PRECISIONS = ("bf16", "fp8", "fp4")


def sheet_figures(gpu: dict) -> list[tuple[str, bool, float]]:
    """(precision, sparse, TFLOPS) for every figure a spec sheet prints for ``gpu``: the dense ones, and each doubled
    when the card has 2:4 structured sparsity."""
    figures = []
    for precision in PRECISIONS:
        dense = gpu.get(f"{precision}_tflops")
        if dense:
            figures.append((precision, False, float(dense)))
            if gpu.get("sparsity_2_4"):
                figures.append((precision, True, 2.0 * float(dense)))
    return figures


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= SAME * max(a, b)


def _memory(turn: Turn, gpu: dict, stated: float) -> str:
    key = "memory_yes" if _same(stated, float(gpu["memory_gb"])) else "memory_no"
    return WORDING.say(turn, key, name=gpu["name"], memory=number(gpu["memory_gb"]), stated=number(stated))


def _label(turn: Turn, precision: str, sparse: bool) -> str:
    return WORDING.say(turn, "figure.sparse" if sparse else "figure.dense", precision=precision.upper())


def _tflops(turn: Turn, gpu: dict, stated: float) -> str:
    figures = sheet_figures(gpu)
    if not figures:
        return ""
    dense_bf16 = gpu.get("bf16_tflops")
    matches = [(precision, sparse) for precision, sparse, tflops in figures if _same(stated, tflops)]
    if ("bf16", False) in matches:
        return WORDING.say(turn, "tflops_yes", name=gpu["name"], stated=number(stated))
    listed = turn.t(", ", "、").join(f"{number(tflops)} {_label(turn, precision, sparse)}" for precision, sparse, tflops in figures)
    if matches:
        which = WORDING.say(turn, "joiner_or").join(_label(turn, precision, sparse) for precision, sparse in matches)
        return WORDING.say(turn, "tflops_other", name=gpu["name"], stated=number(stated), which=which,
                           bf16=number(dense_bf16) if dense_bf16 else "—", figures=listed)
    low, high = min(t for *_, t in figures), max(t for *_, t in figures)
    if not NEAR[0] * low <= stated <= NEAR[1] * high:
        return ""
    return WORDING.say(turn, "tflops_none", name=gpu["name"], stated=number(stated), figures=listed)


def lead(turn: Turn, gpu: dict) -> str:
    """The verdict on each figure stated of ``gpu``, one line each, in the order said; "" when none was stated."""
    lines = [line for figure in turn.ask.figures_stated
             if (line := _memory(turn, gpu, figure.value) if figure.kind == "memory" else _tflops(turn, gpu, figure.value))]
    if lines:
        turn.entities.mark("gpu_memory")
        turn.slots.mark("gpu_memory")
    return "\n\n".join(f"**{line}**" for line in lines)
