"""The estimator reproduces published formulas and rules exactly (ZeRO paper, KV cache, MLA, LLaMA-Factory)."""

import pytest

from knowledge.catalog import load_catalog
from tools.memory.constants import GIB
from tools.memory.estimator import MemoryRequest, estimate_memory

catalog = load_catalog()
MODEL_STATES = ("weights", "gradients", "optimizer_states")


def item(result, key):
    return next(i for i in result.items if i.key == key)


def model_states(**settings) -> float:
    result = estimate_memory(MemoryRequest(mode="training", **settings), catalog)
    return sum(item(result, key).value for key in MODEL_STATES)


# ZeRO paper (arXiv:1910.02054) Figure 1 and Table 1: Ψ = 7.5B, mixed-precision Adam, K = 12.
@pytest.mark.parametrize(
    ("stage", "gpus", "expected_gb"),
    [
        (0, 64, 120), (1, 64, 31.4), (2, 64, 16.6), (3, 64, 1.9),
        (1, 4, 52.5), (2, 4, 41.3), (3, 4, 30), (1, 16, 35.6), (2, 16, 21.6), (3, 16, 7.5),
    ],
)  # fmt: skip
def test_zero_paper_model_states_per_gpu(stage, gpus, expected_gb):
    got = model_states(params_b=7.5, optimizer="adamw_fp16_grads", zero_stage=stage, num_gpus=gpus)
    assert got == pytest.approx(expected_gb, abs=0.05)


def test_fsdp_strategies_map_to_zero_stages():
    base = dict(params_b=7.5, optimizer="adamw_fp16_grads", num_gpus=64)
    assert model_states(fsdp="FULL_SHARD", **base) == model_states(zero_stage=3, **base)
    assert model_states(fsdp="SHARD_GRAD_OP", **base) == model_states(zero_stage=2, **base)


def test_eighteen_byte_recipe_counts_fp32_gradients():
    assert model_states(params_b=7.0, optimizer="adamw") == pytest.approx(18 * 7.0)
    assert model_states(params_b=7.0, optimizer="adamw_bf16") == pytest.approx(8 * 7.0)


def test_llama3_8b_kv_cache_is_exactly_16_gib():
    result = estimate_memory(MemoryRequest(model="llama-3-8b", batch=16, context=8192, kv_precision="fp16"), catalog)
    assert item(result, "kv_cache").value * 1e9 == pytest.approx(16 * GIB, rel=1e-6)


def test_deepseek_v3_kv_uses_the_mla_latent():
    result = estimate_memory(MemoryRequest(model="deepseek-v3", context=1000), catalog)
    kv = item(result, "kv_cache")
    per_token = kv.value * 1e9 / 1000
    assert per_token == pytest.approx(576 * 61 * 2, rel=1e-6)  # (kv_lora_rank 512 + rope 64) × 61 layers × 2 B
    assert "MLA" in kv.formula
    assert per_token < 2 * 128 * 128 * 61 * 2 / 50  # far below 2 · heads · head_dim per layer


# LLaMA-Factory README "Hardware Requirement" for a 7B model, assuming batch 1 × 1,024 tokens,
# gradient checkpointing, FlashAttention and the CUDA context (the table states no batch or length).
@pytest.mark.parametrize(
    ("settings", "published_gb"),
    [
        (dict(optimizer="adamw"), 120),
        (dict(optimizer="adamw_bf16"), 60),
        (dict(method="lora"), 16),
        (dict(method="qlora", precision="bnb-int8"), 10),
        (dict(method="qlora", precision="nf4"), 6),
    ],
)
def test_llama_factory_7b_rules(settings, published_gb):
    result = estimate_memory(MemoryRequest(model="llama-2-7b", mode="training", context=1024, **settings), catalog)
    assert result.total_per_gpu_gb == pytest.approx(published_gb, rel=0.15)


def test_rule_of_thumb_note_is_bilingual_and_explains_the_4gb_rule():
    result = estimate_memory(MemoryRequest(model="llama-3.1-8b"), catalog)
    note = next(n for n in result.notes if "4 GB" in n.en)
    assert "fp32" in note.en and "16–18" in note.en and "KV" in note.en
    assert "每10亿参数约4GB" in note.zh


def test_units_are_decimal_gb_and_say_so():
    result = estimate_memory(MemoryRequest(model="llama-3.1-8b", precision="bf16"), catalog)
    assert result.unit.startswith("GB")
    assert item(result, "weights").value == pytest.approx(8.03 * 2, rel=1e-3)
