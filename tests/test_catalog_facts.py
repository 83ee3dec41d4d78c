"""Catalog facts the advice stands on: per-precision TFLOPS, Apple GPU memory, shipped and pasted precisions."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from knowledge.checkpoint_names import load_checkpoint_names
from tools.memory.estimator import estimate_memory
from tools.memory.schema import MemoryRequest
from tools.models.checkpoint import split_checkpoint_name
from tools.models.resolve import checkpoint_precision, resolve_model
from tools.precision import kv_format, runs_natively, weight_format


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_every_gpu_has_the_facts_the_advice_needs(catalog):
    for gpu in catalog.gpus:
        assert gpu.bandwidth_gbs > 0 and gpu.memory_gb > 0, gpu.id
        assert gpu.tensor16_tflops or gpu.fp32_tflops, gpu.id  # a dense rate for at least one supported precision
        assert gpu.china and gpu.china_rule and gpu.china_rule.rule != "unknown_density", gpu.id
        assert gpu.china_rule.date and len(gpu.china_rule.source) > 10 and len(gpu.source) > 10, gpu.id
        # A rate per supported precision, none where unsupported: a chip with FP4 has FP8, one with FP8 has a 16-bit rate
        if gpu.fp4_tflops:
            assert gpu.fp8_tflops, gpu.id
        if gpu.fp8_tflops:
            assert gpu.tensor16_tflops and gpu.fp8_tflops > gpu.tensor16_tflops * 0.99, gpu.id
    assert {"mlu370-x8", "ascend-910b", "rtx-5090d", "mtt-s4000"} <= {gpu.id for gpu in catalog.gpus}  # new rows are held to the same test
    # Power is missing only where the vendor publishes no chip power: older rows are listed, a new row must bring it
    # or say in `unknown` that no source gives it (and then cite the dated pages its other figures come from).
    unpowered = {gpu.id for gpu in catalog.gpus if not gpu.tdp_w and gpu.vendor != "Apple" and "tdp_w" not in gpu.unknown}
    assert unpowered == {"ascend-910c", "tpu-v5e", "tpu-v5p"}


def test_chips_without_bf16_list_none_and_carry_fp16(catalog):
    for name, fp16 in (("V100", 125), ("T4", 65)):
        gpu = catalog.gpu(name)
        assert gpu.bf16_tflops is None and gpu.fp16_tflops == fp16 and gpu.tensor16_tflops == fp16


@pytest.mark.parametrize("language", ["en", "zh"])
def test_v100_is_sized_in_fp16_and_says_why(catalog, language):
    result = estimate_memory(MemoryRequest(model="Llama-3.1-8B", gpu="V100"), catalog)
    weights = next(item for item in result.items if item.key == "weights")
    assert "FP16" in weights.label.pick(language) and "BF16" not in weights.label.pick(language)
    note = next(n.pick(language) for n in result.notes if "BF16" in n.pick(language))
    assert "125" in note and ("FP16" in note)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_apple_memory_verdict_uses_the_gpu_share(catalog, language):
    result = estimate_memory(MemoryRequest(model="Llama-3.1-70B", gpu="M2 Ultra", precision="bf16"), catalog)
    assert result.gpu_capacity_gb == pytest.approx(192 * 2**30 * 0.75 / 1e9, rel=1e-3)
    assert result.verdict != "fits"  # 141 GB of weights in 155 GB usable, not 206 GB
    assert "iogpu.wired_limit_mb" in result.notes[0].pick(language) and "75%" in result.notes[0].pick(language)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_deepseek_defaults_to_the_fp8_it_ships_in(catalog, language):
    result = estimate_memory(MemoryRequest(model="DeepSeek-V3"), catalog)
    assert 650 < result.total_per_gpu_gb < 720  # not the 1.34 TB of BF16
    assert any("FP8" in n.pick(language) and ("ships" in n.pick(language) or "官方发布" in n.pick(language)) for n in result.notes)
    stated = estimate_memory(MemoryRequest(model="DeepSeek-V3", precision="bf16"), catalog)
    assert stated.total_per_gpu_gb > 1300


def test_memory_reports_allocator_peak_and_nvidia_smi_total(catalog):
    result = estimate_memory(MemoryRequest(model="Llama-3.1-8B", gpu="H100"), catalog)
    runtime = result.nvidia_smi_total_gb - result.torch_allocated_peak_gb
    assert 0.5 < runtime < 2 and result.nvidia_smi_total_gb == result.total_per_gpu_gb
    assert "nvidia-smi" in result.scopes_note.en and "nvidia-smi" in result.scopes_note.zh


@pytest.mark.parametrize(
    ("pasted", "model_id", "precision"),
    [
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "qwen2.5-7b", "gptq-int8"),
        ("nvidia/Llama-3.1-70B-Instruct-FP8", "llama-3.1-70b", "fp8"),
        ("llama3.1:70b-instruct-q4_K_M", "llama-3.1-70b", "q4_k_m"),
        ("Qwen/Qwen3-8B-FP8", "qwen3-8b", "fp8"),
        ("Qwen/Qwen2.5-72B-Instruct-AWQ", "qwen2.5-72b", "awq-int4"),
        ("bartowski/Qwen2.5-7B-Instruct-GGUF", "qwen2.5-7b", None),
        ("meta-llama/Llama-2-7b-chat-hf", "llama-2-7b", None),
    ],
)
def test_pasted_checkpoint_names_resolve_to_model_and_precision(catalog, pasted, model_id, precision):
    assert resolve_model(pasted, catalog).id == model_id
    assert checkpoint_precision(pasted, catalog) == precision


def test_a_catalog_alias_is_not_mistaken_for_a_suffix(catalog):
    assert checkpoint_precision("DeepSeek-V3-0324", catalog) is None
    assert split_checkpoint_name("Llama-3.1-8B-Instruct", load_checkpoint_names()).base == "Llama-3.1-8B"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_pasted_precision_is_used_and_said(catalog, language):
    result = estimate_memory(MemoryRequest(model="Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", gpu="3060 12GB"), catalog)
    weights = next(item for item in result.items if item.key == "weights")
    assert "GPTQ-INT8" in weights.label.pick(language)
    assert any("GPTQ-INT8" in n.pick(language) and "Qwen2.5-7B" in n.pick(language) for n in result.notes)


def test_fp4_formats_count_their_scales():
    assert weight_format("NVFP4").bits == 4.5 and weight_format("mxfp4").bits == 4.25
    assert "developer.nvidia.com" in weight_format("nvfp4").source and "opencompute.org" in weight_format("mxfp4").source
    assert kv_format("nvfp4").bytes_per_element(128) == 0.5625
    assert runs_natively("nvfp4", "NVIDIA", 9000) and not runs_natively("nvfp4", "NVIDIA", None)
    assert runs_natively("mxfp4", "AMD", 10100) and not runs_natively("nvfp4", "AMD", 10100)
    assert runs_natively("bf16", "NVIDIA", None)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_serving_speed_uses_the_pasted_or_shipped_precision_and_says_so(catalog, language):
    from knowledge.serving import load_serving_data
    from tools.serving.estimator import estimate_throughput
    from tools.serving.schema import ThroughputRequest

    def run(model: str, gpu: str, gpus: int, **extra):
        request = ThroughputRequest(model=model, gpu=gpu, num_gpus=gpus, batch=1, prompt_tokens=512, output_tokens=128, **extra)
        return estimate_throughput(request, catalog, load_serving_data())

    pasted = run("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "3060 12GB", 1)
    assert any("GPTQ-INT8" in n.pick(language) and "Qwen2.5-7B" in n.pick(language) for n in pasted.notes)
    shipped, stated = run("DeepSeek-V3", "H200", 8), run("DeepSeek-V3", "H200", 8, precision="fp8")
    assert any("FP8" in n.pick(language) for n in shipped.notes)
    assert shipped.decode_tokens_per_s_per_seq == stated.decode_tokens_per_s_per_seq  # BF16 would not even fit 8 × H200


def test_gpt_oss_counts_active_parameters_the_way_its_card_does_and_ships_in_mxfp4(catalog):
    from knowledge.serving import load_serving_data
    from tools.models.param_count import count_params
    from tools.serving.estimator import estimate_throughput
    from tools.serving.schema import ThroughputRequest

    big = next(m for m in catalog.models if m.id == "gpt-oss-120b")
    counted = count_params(big)
    assert counted.active / 1e9 == pytest.approx(5.13, rel=0.02)  # the card leaves out the input embedding
    assert (counted.active + big.vocab * big.hidden) / 1e9 == pytest.approx(5.7, rel=0.02)  # the arithmetic per token with it
    weights = estimate_memory(MemoryRequest(model="gpt-oss-120b", context=1024), catalog)
    assert 58 < weights.total_per_gpu_gb < 80  # MXFP4 experts: one 80 GB card, not the 234 GB of BF16
    served = estimate_throughput(ThroughputRequest(model="gpt-oss-120b", gpu="H100", num_gpus=1, batch=1, prompt_tokens=512,
                                                   output_tokens=128, engine="vllm"), catalog, load_serving_data())  # fmt: skip
    assert served.decode_tokens_per_s_per_seq > 60  # five active billion parameters per token, not 117
