"""Monotonicity the estimator must respect for any settings (checked with hypothesis)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.catalog import load_catalog
from tools.memory.estimator import MemoryRequest, estimate_memory

catalog = load_catalog()
MODELS = ["llama-3.1-8b", "qwen2.5-7b", "mixtral-8x7b", "deepseek-v2", "gemma-2-9b", "octocoder", "qwen-7b"]
MODEL_STATES = ("weights", "gradients", "optimizer_states")

models = st.sampled_from(MODELS)
modes = st.sampled_from(["inference", "training"])
engines = st.sampled_from(["hf", "hf_legacy", "vllm"])
methods = st.sampled_from(["full", "lora", "qlora", "freeze"])
batches = st.integers(1, 64)
contexts = st.integers(16, 32768)


def total(**kw) -> float:
    return estimate_memory(MemoryRequest(**kw), catalog).total_per_gpu_gb


def states(**kw) -> float:
    result = estimate_memory(MemoryRequest(mode="training", **kw), catalog)
    return sum(i.value for i in result.items if i.key in MODEL_STATES)


def base(mode: str, method: str, engine: str) -> dict:
    if mode == "inference":
        return {"mode": mode, "engine": engine}
    return {"mode": mode, "method": method}


@settings(max_examples=60, deadline=None)
@given(models, modes, methods, engines, batches, batches, contexts)
def test_memory_grows_with_batch(model, mode, method, engine, b1, b2, context):
    small, large = sorted((b1, b2))
    kw = base(mode, method, engine) | {"model": model, "context": context}
    assert total(batch=small, **kw) <= total(batch=large, **kw) + 1e-9


@settings(max_examples=60, deadline=None)
@given(models, modes, methods, engines, batches, contexts, contexts, st.booleans())
def test_memory_grows_with_context(model, mode, method, engine, batch, c1, c2, flash):
    short, long = sorted((c1, c2))
    kw = base(mode, method, engine) | {"model": model, "batch": batch, "flash_attention": flash}
    assert total(context=short, **kw) <= total(context=long, **kw) + 1e-9


@settings(max_examples=40, deadline=None)
@given(modes, methods, st.floats(0.5, 500), st.floats(0.5, 500))
def test_memory_grows_with_parameters(mode, method, p1, p2):
    small, large = sorted((p1, p2))
    kw = base(mode, method, "hf") | {"model": "llama-3.1-8b", "context": 2048}
    assert total(params_b=small, **kw) <= total(params_b=large, **kw) + 1e-9


@settings(max_examples=40, deadline=None)
@given(models, methods, st.sampled_from([2, 4, 8, 64, 512]), st.sampled_from(["adamw", "adamw_fp16_grads", "adamw_8bit"]))
def test_higher_zero_stage_never_needs_more(model, method, gpus, optimizer):
    per_stage = [
        total(model=model, mode="training", method=method, optimizer=optimizer, zero_stage=z, num_gpus=gpus)
        for z in range(4)
    ]
    assert all(later <= earlier + 1e-9 for earlier, later in zip(per_stage, per_stage[1:]))
    model_states = [states(model=model, method=method, optimizer=optimizer, zero_stage=z, num_gpus=gpus) for z in range(4)]
    assert all(later <= earlier + 1e-9 for earlier, later in zip(model_states, model_states[1:]))


@settings(max_examples=40, deadline=None)
@given(models, st.integers(0, 3), st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4, 8, 16]))
def test_more_gpus_never_increase_model_states_per_gpu(model, stage, fewer_dp, factor):
    if stage and fewer_dp == 1:
        fewer_dp = 2  # ZeRO across a single rank is rejected as contradictory
    kw = {"model": model, "zero_stage": stage}
    assert states(num_gpus=fewer_dp * factor, **kw) <= states(num_gpus=fewer_dp, **kw) + 1e-9


def test_tensor_parallel_splits_weights_and_kv():
    one = estimate_memory(MemoryRequest(model="llama-3.1-70b", context=8192, batch=8), catalog)
    four = estimate_memory(MemoryRequest(model="llama-3.1-70b", context=8192, batch=8, tp=4), catalog)
    by_key = lambda r: {i.key: i.value for i in r.items}  # noqa: E731
    assert by_key(four)["weights"] * 4 == by_key(one)["weights"]
    assert by_key(four)["kv_cache"] * 4 == by_key(one)["kv_cache"]  # 8 KV heads → 2 per GPU
    assert four.total_all_gpus_gb == pytest.approx(four.total_per_gpu_gb * 4, abs=0.01)
