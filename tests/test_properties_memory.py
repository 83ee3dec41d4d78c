"""Physical laws of the memory estimator over randomly drawn, fully specified setups.

``test_memory_properties.py`` checks monotonicity on default settings; here every knob
(precision, KV format, engine, parallelism, optimizer, recompute, accumulation…) is drawn too,
and the inverse solver (`max_fit`) is checked against the forward estimate at its boundary.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from tools.memory.constants import MAX_BATCH, MAX_CONTEXT_TOKENS
from tools.memory.estimator import MemoryLimitsRequest, MemoryRequest, estimate_memory, max_fit

catalog = load_catalog()
# Dense MHA/GQA, MQA, MoE, MLA and sliding-window attention: every KV and weight formula is exercised.
MODELS = ["llama-2-7b", "llama-3.1-8b", "qwen2.5-14b", "octocoder", "mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v2",
          "gemma-2-9b", "mistral-7b", "phi-3-mini"]  # fmt: skip
NO_SLIDING_WINDOW = [m for m in MODELS if not catalog.model(m).sliding_window]
MODEL_STATES = ("weights", "gradients", "optimizer_states")
GPUS = ["h100-sxm", "a100-40gb-sxm", "rtx-4090", "l4", "mi300x", "h20"]
laws = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@st.composite
def inference_setups(draw, models=MODELS) -> dict:
    tp = draw(st.sampled_from([1, 1, 2, 4, 8]))
    return {
        "model": draw(st.sampled_from(models)),
        "mode": "inference",
        "precision": draw(st.sampled_from(["bf16", "fp16", "fp8", "int8", "awq-int4", "gptq-int4", "q4_k_m", "nf4"])),
        "kv_precision": draw(st.sampled_from(["bf16", "fp8", "int8", "fp32"])),
        "engine": draw(st.sampled_from(["hf", "hf_legacy", "vllm"])),
        "flash_attention": draw(st.booleans()),
        "tp": tp,
        "pp": draw(st.sampled_from([1, 1, 2])),
    }


@st.composite
def training_setups(draw, stage: int | None = None) -> dict:
    method = draw(st.sampled_from(["full", "lora", "qlora", "freeze"]))
    tp = draw(st.sampled_from([1, 1, 2, 4]))
    return {
        "model": draw(st.sampled_from(MODELS)),
        "mode": "training",
        "method": method,
        "optimizer": draw(st.sampled_from(["adamw", "adamw_fp16_grads", "adamw_bf16", "adamw_8bit", "sgd_momentum"])),
        "recompute": draw(st.sampled_from(["none", "selective", "full"])),
        "flash_attention": draw(st.booleans()),
        "grad_accumulation": draw(st.sampled_from([1, 4])),
        "chunked_loss": draw(st.booleans()),
        "torch_compile": draw(st.booleans()),
        "sequence_parallel": tp > 1 and draw(st.booleans()),
        "tp": tp,
        "num_gpus": tp * draw(st.sampled_from([2, 4, 8])),
        "zero_stage": draw(st.integers(0, 3)) if stage is None else stage,
        "offload": draw(st.sampled_from(["none", "none", "optimizer"])),
    }


any_setup = st.one_of(inference_setups(), training_setups())


def estimate(**kw):
    """The estimate, or None when hypothesis drew a combination the estimator rejects as contradictory."""
    try:
        return estimate_memory(MemoryRequest(**kw), catalog)
    except AdvisorError:
        return None


def total(**kw) -> float:
    result = estimate(**kw)
    assume(result is not None)
    return result.total_per_gpu_gb


def item(result, key: str) -> float:
    return sum(i.value for i in result.items if i.key == key)


@laws
@given(any_setup, st.integers(1, 64), st.integers(1, 64), st.integers(16, 32768))
def test_memory_never_shrinks_with_batch(setup, b1, b2, context):
    small, large = sorted((b1, b2))
    assert total(**setup, batch=small, context=context) <= total(**setup, batch=large, context=context) + 1e-9


@laws
@given(any_setup, st.integers(1, 16), st.integers(16, 65536), st.integers(16, 65536))
def test_memory_never_shrinks_with_context(setup, batch, c1, c2):
    short, long = sorted((c1, c2))
    assert total(**setup, batch=batch, context=short) <= total(**setup, batch=batch, context=long) + 1e-9


@laws
@given(any_setup, st.floats(0.1, 2000), st.floats(0.1, 2000))
def test_memory_never_shrinks_with_parameters(setup, p1, p2):
    small, large = sorted((p1, p2))
    assert total(**setup, params_b=small, context=2048) <= total(**setup, params_b=large, context=2048) + 1e-9


@laws
@given(training_setups(stage=0), st.integers(1, 8), st.sampled_from([512, 2048, 8192]))
def test_each_zero_stage_needs_no_more_than_the_one_before(setup, batch, context):
    per_stage = [estimate(**{**setup, "zero_stage": stage}, batch=batch, context=context) for stage in range(4)]
    assume(all(per_stage))
    totals = [r.total_per_gpu_gb for r in per_stage]
    assert all(r.dp == per_stage[0].dp for r in per_stage)
    assert all(later <= earlier + 1e-9 for earlier, later in zip(totals, totals[1:])), totals


@pytest.mark.parametrize("model, tp", [("llama-2-7b", 4), ("phi-3-mini", 2)])
def test_zero3_needs_no_more_than_zero2_with_tensor_parallelism(model, tp):
    kw = {"model": model, "mode": "training", "tp": tp, "num_gpus": 2 * tp, "context": 2048}
    zero2, zero3 = (estimate_memory(MemoryRequest(**kw, zero_stage=z), catalog).total_per_gpu_gb for z in (2, 3))
    assert zero3 <= zero2


@laws
@given(training_setups(stage=3), st.sampled_from([2, 4, 8, 16]))
def test_more_gpus_never_increase_model_states_under_zero3(setup, factor):
    fewer = estimate(**setup)
    more = estimate(**{**setup, "num_gpus": setup["num_gpus"] * factor})
    assume(fewer is not None and more is not None)
    for key in MODEL_STATES:
        assert item(more, key) <= item(fewer, key) + 1e-9, key
    assert sum(item(more, k) for k in MODEL_STATES) <= sum(item(fewer, k) for k in MODEL_STATES) + 1e-9


@laws
@given(inference_setups(models=NO_SLIDING_WINDOW), st.integers(1, 256), st.integers(1, 131072))
def test_kv_cache_is_linear_in_batch_times_context(setup, batch, context):
    reference = estimate(**setup, batch=1, context=1024)
    scaled = estimate(**setup, batch=batch, context=context)
    assume(reference is not None and scaled is not None)
    per_token = item(reference, "kv_cache") / 1024
    # line items are rounded to 1e-6 GB: the reference's rounding grows with the factor it is scaled by
    rounding = 0.5e-6 * (1 + batch * context / 1024)
    assert item(scaled, "kv_cache") == pytest.approx(per_token * batch * context, rel=1e-4, abs=rounding)


@laws
@given(inference_setups(models=["gemma-2-9b", "mistral-7b"]), st.integers(1, 64), st.integers(1, 4096), st.integers(4097, 131072))
def test_sliding_window_kv_is_linear_inside_the_window_and_sublinear_beyond(setup, batch, inside, beyond):
    reference = estimate(**setup, batch=1, context=4096)
    within = estimate(**setup, batch=batch, context=inside)
    past = estimate(**setup, batch=batch, context=beyond)
    assume(reference is not None and within is not None and past is not None)
    per_token = item(reference, "kv_cache") / 4096  # line items are rounded to 1e-6 GB: scale from a large one
    assert item(within, "kv_cache") == pytest.approx(per_token * batch * inside, rel=1e-4, abs=1e-6)
    assert item(past, "kv_cache") <= per_token * batch * beyond * (1 + 1e-4)


def fits(request: dict) -> bool:
    result = estimate(**request)
    assert result is not None, request
    return result.verdict != "does_not_fit"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(any_setup, st.sampled_from(GPUS), st.integers(1, 8), st.sampled_from([512, 4096, 32768]))
def test_max_fit_limits_fit_and_one_more_does_not(setup, gpu, batch, context):
    request = {**setup, "gpu": gpu, "batch": batch, "context": context}
    try:
        limits = max_fit(MemoryLimitsRequest(**request), catalog)
    except AdvisorError:
        assume(False)
    context_cap = min(catalog.model(setup["model"]).max_context, MAX_CONTEXT_TOKENS)
    if limits.max_batch:
        assert fits({**request, "batch": limits.max_batch})
    if limits.max_batch < MAX_BATCH:
        assert not fits({**request, "batch": limits.max_batch + 1})
    if limits.max_context:
        assert fits({**request, "context": limits.max_context})
    if limits.max_context < context_cap:
        assert not fits({**request, "context": limits.max_context + 1})
    assert limits.fits_as_requested == fits(request)
