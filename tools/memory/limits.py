"""Inverse questions: the largest batch or context that fits a GPU.

Memory grows linearly in batch and (with FlashAttention) in context, piecewise-linearly where
gradients and activations trade places, and quadratically in context without FlashAttention.
So the search interpolates between a fitting and a non-fitting size (regula falsi, Illinois
variant) and only falls back to halving when interpolation stalls: a handful of evaluations,
not a scan.
"""

from __future__ import annotations

from collections.abc import Callable

from knowledge.bilingual import AdvisorError
from tools.memory.constants import GB, MAX_BATCH, MAX_CONTEXT_TOKENS
from tools.memory.items import MEMORY_TEXT
from tools.memory.schema import MemoryLimits
from tools.memory.setup import Setup
from tools.memory.verdict import capacity_line

MAX_STEPS = 64


def largest_fitting(cost: Callable[[int], float], budget: float, high: int) -> tuple[int, int]:
    """(largest x in [1, high] with cost(x) ≤ budget, or 0; number of evaluations used).

    ``cost`` must not decrease with x. A secant through x = 1, 2 lands on the answer for linear
    costs; otherwise its guess narrows the bracket that interpolation then closes.
    """
    calls = 0

    def excess(x: int) -> float:
        nonlocal calls
        calls += 1
        return cost(x) - budget

    low, excess_low = 1, excess(1)
    if excess_low > 0:
        return 0, calls
    high_known: tuple[int, float] | None = None
    if high > 1:
        second = excess(2)
        slope = second - excess_low
        if second > 0:
            return 1, calls
        low, excess_low = 2, second
        if slope > 0:
            guess = min(high, 2 + int(-second / slope))
            for probe in (guess, guess + 1):
                if low < probe <= high:
                    value = excess(probe)
                    if value <= 0:
                        low, excess_low = probe, value
                    else:
                        high_known = (probe, value)
                        break
            if high_known and high_known[0] == low + 1:
                return low, calls
    if high_known is None:
        if low == high:
            return low, calls
        high_known = (high, excess(high))
        if high_known[1] <= 0:
            return high, calls
    high, excess_high = high_known
    kept = 0  # which end survived the last step: +1 low, -1 high (Illinois halves a twice-kept end)
    while high - low > 1 and calls < MAX_STEPS:
        guess = low + int((high - low) * -excess_low / (excess_high - excess_low))
        if not low < guess < high:
            guess = (low + high) // 2
        value = excess(guess)
        if value <= 0:
            low, excess_low = guess, value
            excess_high = excess_high / 2 if kept == 1 else excess_high
            kept = 1
        else:
            high, excess_high = guess, value
            excess_low = excess_low / 2 if kept == -1 else excess_low
            kept = -1
    return low, calls


def solve_limits(setup: Setup, total: Callable[[Setup], float], resize: Callable[..., Setup]) -> MemoryLimits:
    gpu = setup.gpu
    if gpu is None:  # MemoryLimitsRequest requires a GPU; guard direct callers too
        raise AdvisorError("missing_gpu", **MEMORY_TEXT.text("errors.missing_gpu").model_dump(), suggestions=["H100", "RTX 4090"])
    _, budget = capacity_line(setup, gpu)
    spec = setup.spec
    context_cap = min(spec.max_context, MAX_CONTEXT_TOKENS)
    max_batch, _ = largest_fitting(lambda b: total(resize(setup, batch=b)), budget, MAX_BATCH)
    max_context, _ = largest_fitting(lambda c: total(resize(setup, context=c)), budget, context_cap)
    fits = total(setup) <= budget
    notes = [MEMORY_TEXT.text("limits.searched", budget=budget / GB, gpu=gpu.name)]
    reason = None
    if max_context == context_cap and context_cap < MAX_CONTEXT_TOKENS:
        reason = MEMORY_TEXT.text("limits.model_context", model=spec.name, max_context=spec.max_context)
    elif max_batch == 0 or max_context == 0:
        reason = MEMORY_TEXT.text("limits.nothing_fits")
    else:
        reason = MEMORY_TEXT.text("limits.memory")
    return MemoryLimits(
        model_id=spec.id,
        gpu=gpu.name,
        num_gpus=setup.num_gpus,
        capacity_gb=round(budget / GB, 3),
        context=setup.context,
        batch=setup.batch,
        max_batch=max_batch,
        max_context=max_context,
        fits_as_requested=fits,
        limit_reason=reason,
        notes=notes,
    )
