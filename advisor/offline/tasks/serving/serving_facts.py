"""Two facts a serving or sizing answer states when they apply, because a buyer's reasoning often goes wrong there:
an MoE model needs memory for all its experts while only the active ones set the speed, and FP8 weights on a card
without FP8 tensor cores run through a weight-only path (the math in 16-bit), not as FP8."""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.tasks.serving.serving_words import serving_text
from advisor.offline.turn import Turn
from tools.precision import FP8_FORMATS, computes_in_fp8


def moe_lines(turn: Turn, model_id: str) -> list[str]:
    """"It's only 37B active, so one card?": memory counts every expert, speed the active ones. Said for any MoE model;
    when the question leans on the active count, as a correction."""
    spec = turn.catalog.find_model(model_id)
    if spec is None or not spec.moe_experts or not spec.active_params_b:
        return []
    key = "moe_active_assumed" if turn.ask.leans_on_active else "moe_total_vs_active"
    return [turn.text(serving_text(key, model=spec.name, total=number(spec.params_b), active=number(spec.active_params_b),
                                   experts=spec.moe_experts))]  # fmt: skip


def fp8_weight_only_lines(turn: Turn, weights_precision: str, gpu_id: str | None) -> list[str]:
    """FP8 weights sized on a card that cannot compute in FP8 (A100, V100, T4): how they run there, and the other route."""
    card = turn.catalog.find_gpu(gpu_id) if gpu_id else None
    if card is None or weights_precision not in FP8_FORMATS or computes_in_fp8(weights_precision, card.fp8_tflops):
        return []
    return [turn.text(serving_text("fp8_weight_only", gpu=card.name))]
