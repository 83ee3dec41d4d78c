"""The throughput estimator behaves like the physics it claims: batching, tensor parallelism, layer
splits, MoE expert coverage, KV-cache capacity, latency targets, and finite numbers everywhere."""

from __future__ import annotations

import math

import pytest

from advisor.deps import default_registry
from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from tools.serving.estimator import ThroughputRequest, ThroughputResult, estimate_throughput

catalog = load_catalog()
serving = load_serving_data()


def run(**settings) -> ThroughputResult:
    return estimate_throughput(ThroughputRequest(**settings), catalog, serving)


def item(result: ThroughputResult, key: str) -> float:
    return next(line.value for line in result.lines if line.key == key)


def test_more_batch_gives_more_total_and_less_per_sequence():
    results = [run(model="llama-3.1-8b", gpu="H100", batch=b) for b in (1, 4, 16, 64, 256)]
    totals = [r.output_tokens_per_s_total for r in results]
    per_seq = [r.decode_tokens_per_s_per_seq for r in results]
    assert totals == sorted(totals) and totals[-1] > 20 * totals[0]
    assert per_seq == sorted(per_seq, reverse=True) and per_seq[-1] < per_seq[0]


def test_small_batch_is_bandwidth_bound_and_large_short_batches_compute_bound():
    assert run(model="llama-3.1-8b", gpu="H100", batch=1).bound == "bandwidth"
    assert run(model="llama-3.1-8b", gpu="H100", batch=1024, prompt_tokens=128, output_tokens=128).bound == "compute"
    assert run(model="qwen2.5-0.5b", gpu="H100", batch=1).bound == "overhead"  # 1 GB of weights: the engine step dominates


def test_tensor_parallelism_on_nvlink_speeds_up_decode():
    speeds = [run(model="llama-3.1-70b", gpu="H100", tp=tp).decode_tokens_per_s_per_seq for tp in (2, 4, 8)]
    assert speeds == sorted(speeds) and speeds[-1] > 1.5 * speeds[0]
    four = run(model="llama-3.1-70b", gpu="H100", tp=4)
    assert item(four, "weights_read") == pytest.approx(item(run(model="llama-3.1-70b", gpu="H100", tp=2), "weights_read") / 2, rel=1e-6)
    assert item(four, "allreduce_time") > 0


def test_pcie_all_reduces_cost_more_than_nvlink():
    nvlink = run(model="llama-3.1-8b", gpu="H100", tp=2, batch=8)
    pcie = run(model="llama-3.1-8b", gpu="L40S", tp=2, batch=8)
    assert item(pcie, "allreduce_time") > item(nvlink, "allreduce_time")
    assert any(e.key == "allreduce_latency" for e in nvlink.efficiencies)


def test_layer_split_adds_memory_not_bandwidth():
    two = run(model="llama-3-70b", precision="q4_k_m", engine="llamacpp", gpu="RTX 4090", num_gpus=2)
    three = run(model="llama-3-70b", precision="q4_k_m", engine="llamacpp", gpu="RTX 4090", num_gpus=3)
    assert two.layer_split and two.tp == 1 and two.replicas == 1
    assert three.decode_tokens_per_s_per_seq == pytest.approx(two.decode_tokens_per_s_per_seq, rel=1e-6)
    assert three.max_batch_fits > two.max_batch_fits
    hf_split = run(model="qwen2.5-72b", engine="hf", gpu="A100 80G", num_gpus=2, prompt_tokens=16, output_tokens=64)
    assert hf_split.layer_split and any("one after another" in n.en for n in hf_split.notes)


def test_tensor_parallel_engine_with_more_gpus_runs_replicas():
    one = run(model="llama-3.1-70b", gpu="H100", tp=2, batch=32)
    four = run(model="llama-3.1-70b", gpu="H100", num_gpus=8, tp=2, batch=128)
    assert four.replicas == 4
    assert four.output_tokens_per_s_total == pytest.approx(4 * one.output_tokens_per_s_total, rel=1e-6)
    assert four.decode_tokens_per_s_per_seq == pytest.approx(one.decode_tokens_per_s_per_seq, rel=1e-6)


def test_moe_reads_active_experts_at_batch_1_and_nearly_all_at_large_batch():
    single = run(model="qwen3-30b-a3b", gpu="H100", batch=1)
    many = run(model="qwen3-30b-a3b", gpu="H100", batch=512, prompt_tokens=256, output_tokens=256)
    dense = run(model="qwen3-32b", gpu="H100", batch=1)
    stored_gb = 30.5 * 2
    assert item(single, "weights_read") < 0.25 * stored_gb
    assert item(many, "weights_read") > 0.9 * stored_gb
    assert single.decode_tokens_per_s_per_seq > 2 * dense.decode_tokens_per_s_per_seq
    assert any(e.key == "moe_bandwidth_factor" for e in single.efficiencies)


def test_moe_on_transformers_pays_the_expert_loop():
    hf = run(model="qwen3-30b-a3b", engine="hf", gpu="H100", prompt_tokens=16, output_tokens=64)
    assert hf.decode_tokens_per_s_per_seq < 5
    assert any("Python loop" in n.en and "循环" in n.zh for n in hf.notes)


def test_batch_beyond_kv_capacity_is_capacity_bound():
    result = run(model="llama-3.1-8b", gpu="RTX 4090", batch=500, prompt_tokens=8000, output_tokens=1000)
    assert result.bound == "capacity"
    assert result.effective_batch == result.max_batch_fits < 500
    assert any("queue" in n.en for n in result.notes)
    fp8_kv = run(model="llama-3.1-8b", gpu="RTX 4090", batch=500, prompt_tokens=8000, output_tokens=1000, kv_precision="fp8")
    assert fp8_kv.max_batch_fits > result.max_batch_fits


def test_kv_capacity_uses_engine_memory_budget():
    vllm = run(model="llama-3.1-8b", gpu="H100", prompt_tokens=1024, output_tokens=1024)
    hf = run(model="llama-3.1-8b", gpu="H100", engine="hf", prompt_tokens=1024, output_tokens=1024)
    assert hf.max_batch_fits > vllm.max_batch_fits  # vLLM keeps 10% of the GPU back by default
    capacity = next(line for line in vllm.lines if line.key == "kv_capacity")
    assert "0.9 ×" in capacity.formula and "权重" in capacity.formula_zh


def test_fp8_prefill_beats_bf16_on_h100():
    bf16 = run(model="llama-3.1-8b", gpu="H100", prompt_tokens=4096)
    fp8 = run(model="llama-3.1-8b", gpu="H100", prompt_tokens=4096, precision="fp8")
    assert fp8.ttft_ms < bf16.ttft_ms and fp8.prefill_tokens_per_s > 1.2 * bf16.prefill_tokens_per_s


def test_long_prompts_slow_prefill_superlinearly():
    short = run(model="llama-3.1-8b", gpu="H100", prompt_tokens=2048)
    long = run(model="llama-3.1-8b", gpu="H100", prompt_tokens=65536)
    assert long.ttft_ms > 32 * short.ttft_ms * 0.9 and long.prefill_tokens_per_s < short.prefill_tokens_per_s


def test_latency_targets_give_the_largest_concurrency_that_meets_them():
    loose = run(model="llama-3.1-8b", gpu="H100", batch=8, target_tokens_per_s_per_user=20)
    strict = run(model="llama-3.1-8b", gpu="H100", batch=8, target_tokens_per_s_per_user=60)
    assert loose.max_concurrency_at_target > strict.max_concurrency_at_target > 0
    edge = run(model="llama-3.1-8b", gpu="H100", batch=strict.max_concurrency_at_target)
    beyond = run(model="llama-3.1-8b", gpu="H100", batch=strict.max_concurrency_at_target + 1)
    assert edge.tokens_per_s_per_user_streaming >= 60 > beyond.tokens_per_s_per_user_streaming  # the per-user figure the answers print
    assert strict.limit_at_target == "speed"
    ttft = run(model="llama-3.1-8b", gpu="H100", target_ttft_ms=100)
    assert ttft.max_concurrency_at_target is not None and ttft.max_concurrency_at_target >= 1
    assert run(model="llama-3.1-8b", gpu="H100").max_concurrency_at_target is None


def test_unreachable_target_says_what_to_change():
    result = run(model="llama-3.1-70b", gpu="A100 80G", num_gpus=2, target_tokens_per_s_per_user=500)
    assert result.max_concurrency_at_target == 0
    assert any("latency targets" in n.en and "时延目标" in n.zh for n in result.notes)


def test_h20_and_apple_use_their_family_figures():
    h20 = run(model="llama-3.1-8b", gpu="H20", engine="sglang")
    h100 = run(model="llama-3.1-8b", gpu="H100", engine="sglang")
    assert next(e for e in h20.efficiencies if e.key == "bandwidth_weights").value < 0.5
    assert h20.decode_tokens_per_s_per_seq < h100.decode_tokens_per_s_per_seq
    mac = run(model="llama-3-8b", gpu="M2 Ultra", engine="llamacpp", precision="q4_k_m")
    assert (
        mac.decode_tokens_per_s_per_seq > 0 and "fitted on LC-7" in next(e for e in mac.efficiencies if e.key == "bandwidth_weights").source
    )


def test_lines_carry_both_languages_and_consistent_numbers():
    result = run(model="llama-3.1-70b", gpu="H100", tp=4, batch=32)
    for line in result.lines:
        assert line.formula and line.formula_zh and "=" in line.formula
        assert math.isfinite(line.value)
    assert item(result, "decode_step") == pytest.approx(result.step_ms, rel=1e-3)
    assert item(result, "ttft") == pytest.approx(result.ttft_ms, rel=1e-3)
    assert all(e.source for e in result.efficiencies)
    assert result.model_label.en == result.model_name


GRID = [
    {"model": "llama-3.1-8b", "gpu": "RTX 3060 12GB", "engine": "llamacpp", "precision": "q4_k_m"},
    {"model": "deepseek-v3", "gpu": "H200", "num_gpus": 8, "precision": "fp8", "batch": 64},
    {"model": "mixtral-8x7b", "gpu": "MI300X", "batch": 32},
    {"model": "gemma-2-9b", "gpu": "L4", "prompt_tokens": 8000, "output_tokens": 100},
    {"model": "qwen2.5-72b", "gpu": "A100 80G", "num_gpus": 4, "engine": "lmdeploy", "precision": "awq-int4", "batch": 100},
    {"model": "chatglm3-6b", "gpu": "T4", "engine": "hf", "precision": "fp16"},
    {"model": "70B", "gpu": "910B", "num_gpus": 8, "batch": 1000, "prompt_tokens": 100_000},
    {"params_b": 1.5, "gpu": "M4 Max", "engine": "llamacpp", "batch": 1_000_000, "output_tokens": 100_000},
    {"model": "qwen2.5-7b", "gpu": "TPU v5e", "num_gpus": 4, "target_ttft_ms": 1e-3, "target_tokens_per_s_per_user": 1e-3},
]


@pytest.mark.parametrize("settings", GRID, ids=[f"{s.get('model', s.get('params_b'))}-{s['gpu']}" for s in GRID])
def test_every_number_is_finite_and_positive(settings):
    result = default_registry().run("estimate_throughput", settings)
    for name in (
        "decode_tokens_per_s_per_seq",
        "output_tokens_per_s_total",
        "prefill_tokens_per_s",
        "ttft_ms",
        "step_ms",
        "request_latency_s",
    ):
        value = getattr(result, name)
        assert math.isfinite(value) and value > 0, (name, value)
    assert 1 <= result.effective_batch <= result.batch and result.max_batch_fits >= 1


# ---- 4-bit dequantising kernels (QW points of tests/data/serving_calibration.yaml) ----


def _four_bit(gpu: str, engine: str = "vllm"):
    catalog, data = load_catalog(), load_serving_data()
    ask = dict(model="qwen2.5-7b", engine=engine, gpu=gpu, prompt_tokens=1, output_tokens=512)
    quantised = estimate_throughput(ThroughputRequest(precision="gptq-int4", **ask), catalog, data)
    sixteen = estimate_throughput(ThroughputRequest(precision="bf16", **ask), catalog, data)
    return quantised, sixteen


def test_measured_4bit_kernels_stream_weights_slower_than_16_bit_on_a100():
    quantised, sixteen = _four_bit("a100-80gb-sxm")
    used = {e.key: e for e in quantised.efficiencies}
    assert used["format_kernel_factor"].value < 1 and "QW-1" in used["format_kernel_factor"].source
    assert used["bandwidth_weights"].value < {e.key: e for e in sixteen.efficiencies}["bandwidth_weights"].value
    assert not any("no measured speed" in n.en for n in quantised.notes)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_unmeasured_4bit_kernels_say_the_gap_in_both_languages(language):
    quantised, sixteen = _four_bit("rtx-4090")
    assert "format_kernel_factor" not in {e.key for e in quantised.efficiencies}
    gap = [n.pick(language) for n in quantised.notes if "GPTQ-INT4" in n.pick(language) and "0.75" in n.pick(language)]
    assert len(gap) == 1 and ("16-bit" in gap[0] or "16 位" in gap[0])
    assert not any("0.75" in n.pick(language) for n in sixteen.notes)  # a 16-bit request has no such gap
