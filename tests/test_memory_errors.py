"""Contradictory or absurd settings raise a bilingual AdvisorError naming the problem, never a traceback."""

import pytest

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from tools.memory.estimator import MemoryLimitsRequest, MemoryRequest, estimate_memory, max_fit

catalog = load_catalog()
TRAIN = {"model": "llama-3.1-8b", "mode": "training"}


@pytest.mark.parametrize(
    ("settings", "code"),
    [
        (TRAIN | {"method": "qlora", "precision": "fp32"}, "qlora_needs_quantized_base"),
        (TRAIN | {"method": "qlora", "precision": "bf16"}, "qlora_needs_quantized_base"),
        (TRAIN | {"zero_stage": 3}, "zero_on_one_gpu"),
        (TRAIN | {"fsdp": "FULL_SHARD"}, "zero_on_one_gpu"),
        (TRAIN | {"fsdp": "FULL_SHARD", "zero_stage": 2, "num_gpus": 8}, "conflicting_sharding"),
        (TRAIN | {"offload": "optimizer_and_params", "zero_stage": 2, "num_gpus": 8}, "param_offload_needs_zero3"),
        (TRAIN | {"precision": "nf4"}, "cannot_train_quantized"),
        (TRAIN | {"method": "lora", "precision": "int4"}, "lora_on_quantized_base"),
        (TRAIN | {"method": "lora", "lora_rank": 0}, "invalid_lora_rank"),
        (TRAIN | {"method": "lora", "lora_rank": -8}, "invalid_lora_rank"),
        (TRAIN | {"method": "lora", "lora_rank": 8192}, "invalid_lora_rank"),
        (TRAIN | {"method": "lora", "lora_targets": ["attention_dense_xyz"]}, "unknown_lora_target"),
        (TRAIN | {"method": "freeze", "trainable_layers": 99}, "invalid_trainable_layers"),
        (TRAIN | {"engine": "vllm"}, "engine_for_training"),
        (TRAIN | {"optimizer_in_backward": True, "grad_accumulation": 4}, "optimizer_in_backward_accumulation"),
        ({"model": "llama-3.1-8b", "tp": 2, "num_gpus": 1}, "invalid_parallelism"),
        ({"model": "llama-3.1-8b", "tp": 3, "num_gpus": 3}, "tp_not_dividing_heads"),
        ({"model": "llama-3.1-8b", "pp": 64, "num_gpus": 64}, "invalid_parallelism"),
        ({"model": "llama-3.1-8b", "tp": 4, "num_gpus": 6}, "invalid_parallelism"),
        ({"model": "llama-3.1-8b", "batch": 0}, "invalid_batch"),
        ({"model": "llama-3.1-8b", "batch": -2}, "invalid_batch"),
        ({"model": "llama-3.1-8b", "context": 20_000_000}, "invalid_context"),
        ({"model": "llama-3.1-8b", "context": 0}, "invalid_context"),
        ({"model": "llama-3.1-8b", "params_b": -7}, "invalid_model_size"),
        ({"model": "llama-3.1-8b", "params_b": 1e7}, "invalid_model_size"),
        ({"model": "llama-3.1-8b", "gpu_memory_utilization": 1.5}, "invalid_utilization"),
        ({"model": "llama-3.1-8b", "precision": "int3.7"}, "unknown_precision"),
        ({"model": "llama-3.1-8b", "kv_precision": "fp6"}, "unknown_kv_precision"),
        ({"model": "llama-3.1-8b", "zero_stage": 2}, "training_option_for_inference"),
        ({"model": "llama-3.1-8b", "gpu": "H1000"}, "unknown_gpu"),
        ({"model": "no-such-model-xyz"}, "unknown_model"),
        ({}, "missing_model"),
    ],
)
def test_bad_settings_raise_bilingual_errors(settings, code):
    with pytest.raises(AdvisorError) as caught:
        estimate_memory(MemoryRequest(**settings), catalog)
    error = caught.value
    assert error.code == code
    assert error.en and error.zh and error.en != error.zh
    assert any("\u4e00" <= ch <= "\u9fff" for ch in error.zh)


def test_contradiction_errors_suggest_a_fix():
    with pytest.raises(AdvisorError) as caught:
        estimate_memory(MemoryRequest(**TRAIN, method="qlora", precision="fp32"), catalog)
    assert "nf4" in caught.value.suggestions
    with pytest.raises(AdvisorError) as caught:
        estimate_memory(MemoryRequest(model="llama-3.1-8b", tp=3, num_gpus=3), catalog)
    assert {"2", "4", "8"} <= set(caught.value.suggestions)


def test_zero_on_one_gpu_is_allowed_with_cpu_offload():
    result = estimate_memory(MemoryRequest(**TRAIN, zero_stage=3, offload="optimizer_and_params"), catalog)
    assert next(i for i in result.items if i.key == "optimizer_states").value == 0


def test_max_fit_rejects_the_same_contradictions():
    with pytest.raises(AdvisorError):
        max_fit(MemoryLimitsRequest(model="llama-3.1-8b", gpu="h100", batch=0), catalog)
