"""Inference components: quantised weights, KV cache variants, engines, verdicts and levers."""

import pytest

from knowledge.catalog import load_catalog
from tools.memory.constants import GIB
from tools.memory.estimator import MemoryRequest, estimate_memory
from tools.precision import group_bits, weight_format

catalog = load_catalog()


def lines(**settings) -> dict[str, float]:
    return {i.key: i.value for i in estimate_memory(MemoryRequest(**settings), catalog).items}


def test_gptq_awq_include_group_scale_overhead():
    assert weight_format("gptq-int4").bits == pytest.approx(4 + 20 / 128)
    assert weight_format("AWQ").bits == weight_format("gptq-int4").bits
    assert weight_format("gptq-int8", group_size=32).bits == group_bits(8, 32) > weight_format("gptq-int8").bits
    assert lines(model="llama-3.1-8b", precision="gptq-int4", group_size=32)["weights"] > lines(model="llama-3.1-8b", precision="gptq-int4")["weights"]


def test_quantised_checkpoints_keep_embeddings_in_16_bit():
    spec = catalog.model("llama-3.1-8b")
    embeddings = spec.vocab * spec.hidden * 2  # untied input embedding + LM head
    weights = lines(model="llama-3.1-8b", precision="awq-int4")["weights"] * 1e9
    quantised_only = spec.params_b * 1e9 * weight_format("awq-int4").bytes
    assert weights == pytest.approx(quantised_only + embeddings * (2 - weight_format("awq-int4").bytes), rel=0.01)


def test_gguf_sizes_match_llama_cpp_file_sizes():
    # llama-quantize lists Llama-3-8B files: Q4_K_M 4.58 GiB, Q8_0 7.96 GiB, Q2_K 2.96 GiB.
    for name, gib in (("Q4_K_M", 4.58), ("q8_0", 7.96), ("Q2_K", 2.96)):
        assert lines(model="llama-3-8b", precision=name)["weights"] * 1e9 == pytest.approx(gib * GIB, rel=0.001)
    bits = [weight_format(n).bits for n in ("q8_0", "q6_k", "q5_k_m", "q5_0", "q4_k_m", "q4_0", "q3_k_m", "q2_k")]
    assert bits == sorted(bits, reverse=True)


def test_unsloth_dynamic_ggufs_match_the_published_deepseek_r1_files():
    # Unsloth's DeepSeek-R1 dynamic GGUFs: 1.58-bit 131 GB, 1.73-bit 158 GB, 2.22-bit 183 GB, 2.51-bit 212 GB.
    for name, gb in (("1.58-bit", 131), ("ud-iq1_m", 158), ("IQ2_XXS", 183), ("2.51bit", 212)):
        assert lines(model="deepseek-r1", precision=name)["weights"] == pytest.approx(gb, rel=0.01)


def test_a_gguf_estimate_says_its_weights_are_counted_as_llama_cpp_keeps_them():
    result = estimate_memory(MemoryRequest(model="llama-3.1-8b", precision="q4_k_m"), catalog)
    assert any("llama.cpp" in a.en and "GGUF" in a.zh for a in result.assumptions)
    plain = estimate_memory(MemoryRequest(model="llama-3.1-8b", precision="awq"), catalog)
    assert not any("llama.cpp" in a.en for a in plain.assumptions)


def test_weight_bytes_per_precision_are_ordered():
    order = ["fp32", "bf16", "fp8", "int8", "nf4", "int4"]
    weights = [lines(model="qwen2.5-7b", precision=p)["weights"] for p in order]
    assert weights == sorted(weights, reverse=True)
    assert weights[0] == pytest.approx(2 * weights[1])


def test_meta_fp8_recipe_keeps_attention_in_bf16():
    fp8_all, fp8_mlp, bf16 = (lines(model="llama-3.1-405b", precision=p, tp=8)["weights"] for p in ("fp8", "fp8-mlp", "bf16"))
    assert fp8_all < fp8_mlp < bf16


def test_kv_precision_scales_the_cache():
    base = lines(model="llama-3.1-8b", context=32768)["kv_cache"]
    assert lines(model="llama-3.1-8b", context=32768, kv_precision="fp8")["kv_cache"] == pytest.approx(base / 2)
    int8 = lines(model="llama-3.1-8b", context=32768, kv_precision="int8")["kv_cache"]
    assert base / 2 < int8 < base / 2 * 1.05  # per-token-head scales on top of 1 byte


def test_sliding_window_layers_cap_at_the_window():
    mistral = catalog.model("mistral-7b")  # every layer slides over 4096 tokens
    long, at_window = (lines(model="mistral-7b", context=c)["kv_cache"] for c in (32768, mistral.sliding_window))
    assert long == at_window
    gemma_4k, gemma_32k = (lines(model="gemma-2-9b", context=c)["kv_cache"] for c in (4096, 32768))
    assert gemma_32k == pytest.approx(gemma_4k * (21 * 8 + 21) / (21 + 21))  # half the layers keep growing


def test_tensor_parallel_keeps_at_least_one_kv_head_per_gpu():
    tp8, tp16 = (lines(model="llama-3.1-70b", context=8192, tp=t)["kv_cache"] for t in (8, 16))
    assert tp8 == tp16  # 8 KV heads: beyond TP 8 each GPU still holds one replicated head
    mla1, mla8 = (lines(model="deepseek-v3", context=8192, tp=t)["kv_cache"] for t in (1, 8))
    assert mla1 == mla8  # the MLA latent is not split by heads


def test_legacy_hf_engine_doubles_the_cache_and_keeps_prompt_logits():
    modern = lines(model="qwen-7b", context=8192, prompt_tokens=4096)
    legacy = lines(model="qwen-7b", context=8192, prompt_tokens=4096, engine="hf_legacy")
    assert legacy["kv_cache"] == pytest.approx(2 * modern["kv_cache"])
    assert legacy["logits"] == pytest.approx(modern["logits"] * 4096, rel=1e-3)


def test_eager_attention_adds_a_quadratic_score_matrix():
    short, long = (lines(model="llama-3.1-8b", context=c, flash_attention=False)["attention_scores"] for c in (2048, 8192))
    assert long == pytest.approx(16 * short)
    assert "attention_scores" not in lines(model="llama-3.1-8b", context=8192)


def test_chunked_prefill_bounds_the_transient():
    whole = lines(model="llama-3.1-8b", context=32768)["prefill_activations"]
    chunked = lines(model="llama-3.1-8b", context=32768, prefill_chunk=2048)["prefill_activations"]
    assert chunked == pytest.approx(whole / 16)


def test_vllm_reports_kv_capacity_from_its_budget():
    result = estimate_memory(MemoryRequest(model="llama-3.1-8b", gpu="h100-sxm", engine="vllm", context=8192), catalog)
    by_key = {i.key: i.value for i in result.items}
    non_kv = sum(v for k, v in by_key.items() if k != "kv_cache")
    per_token = by_key["kv_cache"] / 8192
    assert result.capacity.value == pytest.approx(0.9 * 80 * GIB / 1e9, rel=1e-4)
    assert result.kv_cache_tokens == pytest.approx((result.capacity.value - non_kv) / per_token, rel=1e-3)
    assert result.max_concurrency == pytest.approx(result.kv_cache_tokens / 8192, rel=1e-3)
    assert any("vLLM reserves" in n.en for n in result.notes)


@pytest.mark.parametrize(
    ("settings", "verdict", "lever_word"),
    [
        (dict(model="llama-3.1-8b", gpu="h100-sxm"), "fits", None),
        (dict(model="llama-3.1-70b", gpu="h100-sxm"), "does_not_fit", "quantise"),
        (dict(model="llama-3.1-8b", gpu="rtx-4090", batch=64, context=32768, engine="vllm"), "does_not_fit", "KV cache"),
        (dict(model="llama-3.1-8b", gpu="rtx-4090", mode="training"), "does_not_fit", "Optimizer states"),
    ],
)
def test_verdict_headroom_and_main_lever(settings, verdict, lever_word):
    result = estimate_memory(MemoryRequest(**settings), catalog)
    assert result.verdict == verdict
    assert result.headroom_pct == pytest.approx((1 - result.total_per_gpu_gb / result.capacity.value) * 100, abs=0.1)
    if lever_word is None:
        assert result.main_lever is None
    else:
        assert lever_word in result.main_lever.en and result.main_lever.zh


def test_tight_band_between_90_and_100_percent():
    # Find a batch whose estimate lands in the last 10% of an RTX 4090 and check it is called tight.
    for batch in range(1, 64):
        result = estimate_memory(MemoryRequest(model="llama-3.1-8b", gpu="rtx-4090", precision="int4", batch=batch, context=8192), catalog)
        share = result.total_per_gpu_gb / result.capacity.value
        if 0.9 < share <= 1.0:
            assert result.verdict == "tight"
            return
    pytest.fail("no batch landed in the tight band")


def test_every_line_shows_its_formula_with_numbers():
    result = estimate_memory(MemoryRequest(model="qwen2.5-72b", precision="awq-int4", tp=2, gpu="l40s", engine="vllm"), catalog)
    for item in result.items:
        assert item.unit == "GB" and any(ch.isdigit() for ch in item.formula) and item.label.zh
    assert sum(i.value for i in result.items) == pytest.approx(result.total_per_gpu_gb, abs=0.01)
