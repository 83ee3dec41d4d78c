"""Bad or impossible serving setups raise a bilingual AdvisorError that names the fix."""

from __future__ import annotations

import re

import pytest

from advisor.deps import default_registry
from knowledge.bilingual import AdvisorError
from knowledge.catalog import Catalog, load_catalog
from knowledge.serving import load_serving_data
from tools.serving.estimator import ThroughputRequest, estimate_throughput

catalog = load_catalog()
serving = load_serving_data()
CJK = re.compile(r"[\u4e00-\u9fff]")
BASE = {"model": "llama-3.1-8b", "gpu": "H100"}


def refuse(**settings) -> AdvisorError:
    with pytest.raises(AdvisorError) as caught:
        estimate_throughput(ThroughputRequest(**settings), catalog, serving)
    error = caught.value
    assert error.en.strip() and CJK.search(error.zh), error.to_dict()
    return error


@pytest.mark.parametrize(
    ("settings", "code"),
    [
        (BASE | {"batch": 0}, "invalid_batch"),
        (BASE | {"batch": -4}, "invalid_batch"),
        (BASE | {"prompt_tokens": -1}, "invalid_tokens"),
        (BASE | {"output_tokens": 0}, "invalid_tokens"),
        (BASE | {"prompt_tokens": 20_000_000}, "invalid_tokens"),
        (BASE | {"num_gpus": 0}, "invalid_parallelism"),
        (BASE | {"tp": 2, "num_gpus": 3}, "invalid_parallelism"),
        (BASE | {"target_ttft_ms": 0}, "invalid_target"),
        (BASE | {"target_tokens_per_s_per_user": -5}, "invalid_target"),
        (BASE | {"params_b": -7}, "invalid_model_size"),
        (BASE | {"precision": "int3.5"}, "unknown_precision"),
        (BASE | {"kv_precision": "fp6"}, "unknown_kv_precision"),
        (BASE | {"engine": "llamacpp", "num_gpus": 2, "tp": 2}, "layer_split_engine_tp"),
        (BASE | {"engine": "hf", "tp": 2}, "layer_split_engine_tp"),
        (BASE | {"engine": "llamacpp", "num_gpus": 64}, "invalid_parallelism"),
        ({"model": "llama-3.1-8b", "gpu": "M2 Ultra", "engine": "llamacpp", "num_gpus": 2}, "no_multi_gpu_on_apple"),
        (BASE | {"engine": "llamacpp", "kv_precision": "fp8"}, "engine_unsupported_kv_precision"),
    ],
)
def test_bad_numbers_and_contradictions(settings, code):
    assert refuse(**settings).code == code


def test_fp8_on_a100_suggests_int8_bf16_or_h100():
    error = refuse(model="llama-3.1-8b", gpu="A100 80G", precision="fp8")
    assert error.code == "fp8_unsupported"
    assert {"precision=int8", "precision=bf16", "gpu=H100"} <= set(error.suggestions)
    assert "FP8" in error.zh and "H100" in error.en


def test_tp_that_does_not_divide_the_heads_lists_valid_degrees():
    error = refuse(model="llama-3.1-8b", gpu="H100", tp=3, num_gpus=3)
    assert error.code == "tp_not_dividing_heads"
    assert {"tp=1", "tp=2", "tp=4", "tp=8"} <= set(error.suggestions) and "tp=3" not in error.suggestions
    assert "32" in error.en and "注意力头" in error.zh


@pytest.mark.parametrize(
    ("settings", "suggestion"),
    [
        ({"engine": "trtllm", "gpu": "MI300X"}, "engine=vllm"),
        ({"engine": "vllm", "gpu": "M2 Ultra"}, "engine=llamacpp"),
        ({"engine": "lmdeploy", "gpu": "M4 Max"}, "engine=llamacpp"),
    ],
)
def test_engine_without_a_backend_for_the_gpu_names_engines_that_have_one(settings, suggestion):
    error = refuse(model="llama-3.1-8b", **settings)
    assert error.code == "engine_unsupported_gpu" and suggestion in error.suggestions


@pytest.mark.parametrize(
    ("settings", "suggestion"),
    [
        ({"engine": "llamacpp", "precision": "awq-int4"}, "precision=q4_k_m"),
        ({"engine": "vllm", "precision": "q4_k_m"}, "engine=llamacpp"),
        ({"engine": "trtllm", "precision": "nf4"}, "engine=vllm"),
        ({"engine": "hf", "precision": "q8_0"}, "engine=llamacpp"),
    ],
)
def test_weight_format_the_engine_cannot_load(settings, suggestion):
    error = refuse(model="llama-3.1-8b", gpu="H100", **settings)
    assert error.code == "engine_unsupported_precision" and suggestion in error.suggestions


def test_model_too_big_for_the_gpus_says_how_to_fit_it():
    error = refuse(model="llama-3.1-70b", gpu="RTX 4090")
    assert error.code == "does_not_fit" and "tp=2" in error.suggestions and "GB" in error.zh
    split = refuse(model="llama-3.1-70b", gpu="RTX 4090", engine="llamacpp", precision="q8_0")
    assert "num_gpus=2" in split.suggestions and "precision=q4_k_m" in split.suggestions


def test_one_sequence_longer_than_the_kv_room_is_refused():
    error = refuse(model="llama-3.1-8b", gpu="RTX 4090", prompt_tokens=1_000_000)
    assert error.code == "context_does_not_fit" and "kv_precision=fp8" in error.suggestions


def test_unknown_gpu_and_model_come_with_catalog_suggestions():
    gpu = refuse(model="llama-3.1-8b", gpu="H1000")
    assert gpu.code == "unknown_gpu" and gpu.suggestions
    model = refuse(model="llama-9-8b-turbo", gpu="H100")
    assert model.code == "unknown_model" and model.suggestions


def test_registry_turns_schema_errors_into_bilingual_errors():
    registry = default_registry()
    for args in (
        {"model": "llama-3.1-8b"},
        {"gpu": "H100", "engine": "tgi"},
        {"gpu": "H100", "batch": "many"},
        {"gpu": "H100", "gpu_name": "x"},
    ):
        outcome = registry.call("estimate_throughput", args)
        assert outcome.error and CJK.search(outcome.error["zh"]), (args, outcome)


def test_a_malformed_serving_data_file_fails_loudly(tmp_path):
    from knowledge.catalog import CatalogError
    from knowledge.serving import DATA_FILE, load_serving_data

    broken = tmp_path / "serving.yaml"
    broken.write_text(DATA_FILE.read_text(encoding="utf-8").replace("bandwidth: 0.75", "bandwidth: 1.75", 1), encoding="utf-8")
    with pytest.raises(CatalogError, match="serving.yaml"):
        load_serving_data(broken)
    no_catch_all = tmp_path / "families.yaml"
    no_catch_all.write_text(
        DATA_FILE.read_text(encoding="utf-8").replace("  - id: other\n", "  - id: other\n    vendors: [Google]\n"), encoding="utf-8"
    )
    with pytest.raises(CatalogError, match="catch-all"):
        load_serving_data(no_catch_all)


# --- compute figures: every shipped GPU has one, and a GPU without one is refused, not guessed ------------
def engine_for(gpu) -> str:
    """llama.cpp on Apple silicon, else the first engine with a backend for the GPU's vendor."""
    return "llamacpp" if gpu.vendor == "Apple" else next((e.id for e in serving.engines if gpu.vendor in e.vendors), None)


@pytest.mark.parametrize("gpu", catalog.gpus, ids=lambda g: g.id)
def test_every_shipped_gpu_gets_a_sourced_compute_peak(gpu):
    """The estimator's compute time uses the catalog figure itself, never an invented default."""
    assert gpu.tensor16_tflops or gpu.fp32_tflops, f"{gpu.id} has no compute figure: add its datasheet TFLOPS to gpus.yaml"
    if engine_for(gpu) is None:  # no serving engine in our sources runs this vendor (the MTT S4000): refused, not guessed
        with pytest.raises(AdvisorError):
            estimate_throughput(ThroughputRequest(model="qwen2.5-0.5b", gpu=gpu.id, engine="vllm", batch=1), catalog, serving)
        return
    request = ThroughputRequest(model="qwen2.5-0.5b", gpu=gpu.id, engine=engine_for(gpu), batch=1, prompt_tokens=256, output_tokens=16)
    result = estimate_throughput(request, catalog, serving)
    assert result.compute_peak_tflops == (gpu.tensor16_tflops or gpu.fp32_tflops), gpu.id
    fp32_note = any("FP32" in note.en and f"{gpu.fp32_tflops:g} TFLOPS" in note.en for note in result.notes)
    assert fp32_note == (gpu.tensor16_tflops is None), (gpu.id, [n.en for n in result.notes])
    fp16_note = any("no BF16" in note.en and "不支持 BF16" in note.zh for note in result.notes)  # V100, T4: FP16 rate, said so
    assert fp16_note == (gpu.bf16_tflops is None and gpu.fp16_tflops is not None), gpu.id


def test_a_gpu_without_any_compute_figure_is_refused_in_both_languages():
    h100 = catalog.gpu("H100")
    blank = h100.model_copy(update={"id": "mystery-gpu", "name": "Mystery GPU", "aliases": ["Mystery GPU"],
                                    "bf16_tflops": None, "fp8_tflops": None, "fp32_tflops": None})  # fmt: skip
    custom = Catalog([*catalog.gpus, blank], catalog.models)
    with pytest.raises(AdvisorError) as caught:
        estimate_throughput(ThroughputRequest(model="llama-3.1-8b", gpu="mystery-gpu"), custom, serving)
    error = caught.value
    assert error.code == "gpu_compute_unknown"
    assert "Mystery GPU" in error.en and "TFLOPS" in error.en and CJK.search(error.zh) and "Mystery GPU" in error.zh
    assert "gpu=H100" in error.suggestions


def test_a_gpu_with_only_an_fp32_figure_uses_it_and_says_so():
    h100 = catalog.gpu("H100")
    plain = h100.model_copy(update={"id": "fp32-only", "name": "FP32-only GPU", "aliases": ["FP32-only GPU"],
                                    "bf16_tflops": None, "fp8_tflops": None})  # fmt: skip
    custom = Catalog([*catalog.gpus, plain], catalog.models)
    result = estimate_throughput(ThroughputRequest(model="llama-3.1-8b", gpu="fp32-only", prompt_tokens=4096), custom, serving)
    full = estimate_throughput(ThroughputRequest(model="llama-3.1-8b", gpu="H100", prompt_tokens=4096), catalog, serving)
    assert result.compute_peak_tflops == h100.fp32_tflops
    assert any("FP32" in n.en and "may be faster" in n.en and CJK.search(n.zh) for n in result.notes)
    assert result.prefill_tokens_per_s < full.prefill_tokens_per_s / 5  # 67 vs 989.5 TFLOPS: prefill is compute-bound


def test_gguf_weights_with_no_engine_named_run_on_llama_cpp_and_a_named_engine_is_kept():
    catalog, data = load_catalog(), load_serving_data()
    for precision in ("q4_k_m", "Q8_0", "1.58bit"):
        result = estimate_throughput(ThroughputRequest(model="qwen2.5-7b", gpu="L40S", precision=precision), catalog, data)
        assert result.engine == "llamacpp", precision
    assert estimate_throughput(ThroughputRequest(model="qwen2.5-7b", gpu="L40S", precision="awq-int4"), catalog, data).engine == "vllm"
    assert refuse(model="qwen2.5-7b", gpu="L40S", precision="q4_k_m", engine="vllm").code == "engine_unsupported_precision"


def test_with_no_engine_named_a_mac_runs_llama_cpp_and_int4_is_its_usual_gguf_file():
    catalog, data = load_catalog(), load_serving_data()
    mac = estimate_throughput(ThroughputRequest(model="qwen2.5-7b", gpu="M2 Ultra", precision="int4"), catalog, data)
    assert mac.engine == "llamacpp" and any("GGUF Q4_K_M" in note.en for note in mac.notes)
    assert refuse(model="qwen2.5-7b", gpu="M2 Ultra", precision="int4", engine="llamacpp").code == "engine_unsupported_precision"
