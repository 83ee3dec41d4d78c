"""Inverse questions: the largest batch / context that fits, solved in a handful of evaluations."""

import pytest

from knowledge.catalog import load_catalog
from tools.memory.estimator import MemoryLimitsRequest, MemoryRequest, estimate_memory, max_fit
from tools.memory.limits import largest_fitting

catalog = load_catalog()


def fits(**settings) -> bool:
    return estimate_memory(MemoryRequest(**settings), catalog).verdict in ("fits", "tight")


@pytest.mark.parametrize(
    "settings",
    [
        dict(model="llama-3.1-8b", gpu="rtx-4090", context=4096),
        dict(model="qwen2.5-7b", gpu="l40s", context=16384, engine="vllm"),
        dict(model="llama-3.1-70b", gpu="h100-sxm", tp=4, context=32768, kv_precision="fp8"),
        dict(model="llama-3.1-8b", gpu="a100-80gb-sxm", mode="training", method="lora", context=2048),
        dict(model="mistral-7b", gpu="rtx-4090", context=2048, flash_attention=False),
    ],
)
def test_max_batch_is_the_boundary(settings):
    limits = max_fit(MemoryLimitsRequest(**settings), catalog)
    assert limits.max_batch >= 1
    assert fits(**settings | {"batch": limits.max_batch})
    assert not fits(**settings | {"batch": limits.max_batch + 1})


@pytest.mark.parametrize(
    "settings",
    [
        dict(model="llama-3.1-8b", gpu="rtx-4090", batch=4),
        dict(model="llama-3.1-8b", gpu="rtx-4090", batch=1, flash_attention=False),
        dict(model="qwen2.5-7b", gpu="rtx-4090", batch=2, mode="training", method="qlora"),
    ],
)
def test_max_context_is_the_boundary(settings):
    limits = max_fit(MemoryLimitsRequest(**settings), catalog)
    assert 1 <= limits.max_context < catalog.model(settings["model"]).max_context
    assert fits(**settings | {"context": limits.max_context})
    assert not fits(**settings | {"context": limits.max_context + 1})
    assert limits.limit_reason.en == "Limited by GPU memory."


def test_context_capped_by_the_model_not_memory():
    limits = max_fit(MemoryLimitsRequest(model="llama-3-8b", gpu="h200-sxm"), catalog)
    assert limits.max_context == 8192
    assert "maximum" in limits.limit_reason.en and "最大长度" in limits.limit_reason.zh


def test_nothing_fits_reports_zero_and_why():
    limits = max_fit(MemoryLimitsRequest(model="llama-3.1-405b", gpu="rtx-4090"), catalog)
    assert limits.max_batch == 0 and limits.max_context == 0 and not limits.fits_as_requested
    assert "Even one sequence" in limits.limit_reason.en


def test_vllm_max_batch_agrees_with_reported_concurrency():
    settings = dict(model="llama-3.1-8b", gpu="h100-sxm", engine="vllm", context=8192)
    concurrency = estimate_memory(MemoryRequest(**settings), catalog).max_concurrency
    limits = max_fit(MemoryLimitsRequest(**settings), catalog)
    assert abs(limits.max_batch - concurrency) <= 1


@pytest.mark.parametrize(
    ("cost", "budget", "high"),
    [
        (lambda x: 10 + 3 * x, 100, 10**6),  # linear (batch)
        (lambda x: 5 + 2 * x + 0.001 * x * x, 10_000, 10**7),  # quadratic (context, eager attention)
        (lambda x: max(10 + 2 * x, 50 + x), 1000, 10**6),  # piecewise (activations vs gradients)
        (lambda x: 40 + x, 30, 100),  # nothing fits
        (lambda x: x, 10**9, 1000),  # everything fits
    ],
)
def test_solver_matches_brute_force_in_few_evaluations(cost, budget, high):
    calls = []

    def counted(x):
        calls.append(x)
        return cost(x)

    best, used = largest_fitting(counted, budget, high)
    brute = max((x for x in range(1, min(high, 300_000) + 1) if cost(x) <= budget), default=0)
    assert best == brute
    assert used == len(calls) <= 20
