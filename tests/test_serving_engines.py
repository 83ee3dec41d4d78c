"""Engines without published speeds of their own: Ollama runs llama.cpp's figures under its own name; MLC-LLM,
ExLlamaV2 and AutoAWQ borrow the nearest measured engine's figures, and every borrowed source says so."""

from __future__ import annotations

import pytest

from knowledge.bilingual import AdvisorError
from knowledge.catalog import CatalogError, load_catalog
from knowledge.serving import inherit_engine_rows, load_serving_data
from tools.serving.estimator import ThroughputRequest, estimate_throughput

CATALOG = load_catalog()
DATA = load_serving_data()
BORROWING = {"mlc": "vllm", "exllamav2": "llamacpp", "autoawq": "hf"}


def speed(**args) -> float:
    request = ThroughputRequest(**{"model": "llama-3.1-8b", **args})
    return estimate_throughput(request, CATALOG, DATA).decode_tokens_per_s_per_seq


def test_ollama_is_llama_cpp_under_its_own_name():
    ollama = DATA.engine("ollama")
    assert ollama.runtime == "llamacpp" and ollama.name == "Ollama (llama.cpp)"
    for gpu in ("RTX 4090", "H100", "M2 Ultra"):
        assert speed(engine="ollama", gpu=gpu, precision="q4_k_m") == speed(engine="llamacpp", gpu=gpu, precision="q4_k_m")


def test_ollama_reads_a_bare_bit_width_as_the_gguf_file_it_pulls():
    result = estimate_throughput(ThroughputRequest(model="llama-3.1-8b", engine="ollama", gpu="RTX 4090", precision="int4"), CATALOG, DATA)
    note = next(n for n in result.notes if "Q4_K_M" in n.en)
    assert "Ollama" in note.en and "Q4_K_M" in note.zh and "权重" in note.zh


@pytest.mark.parametrize("engine_id,lender_id", BORROWING.items())
def test_borrowed_figures_say_they_were_not_measured_on_the_engine(engine_id, lender_id):
    engine, lender = DATA.engine(engine_id), DATA.engine(lender_id)
    assert engine.efficiency.bandwidth == lender.efficiency.bandwidth and engine.efficiency.mfu == lender.efficiency.mfu
    rows = [engine.efficiency, *engine.families.values()]
    assert all(row.source.startswith("No published measurement of this engine") and lender.name in row.source for row in rows)
    assert "No published" in engine.overhead_source


def test_each_new_engine_gives_a_speed_on_a_card_it_runs_on():
    assert speed(engine="mlc", gpu="RTX 4090", precision="int4") > 0
    assert speed(engine="exllamav2", gpu="RTX 4090", precision="gptq-int4") > 0
    assert speed(engine="autoawq", gpu="A100", precision="awq-int4") > 0
    # the quantised 8B runs faster than the 16-bit one on the same engine and card
    assert speed(engine="exllamav2", gpu="RTX 4090", precision="gptq-int4") > speed(engine="exllamav2", gpu="RTX 4090", precision="fp16")


@pytest.mark.parametrize("engine_id,precision", [("autoawq", "gptq-int4"), ("exllamav2", "awq-int4"), ("ollama", "awq-int4")])
def test_a_format_the_engine_cannot_load_is_refused_in_both_languages(engine_id, precision):
    with pytest.raises(AdvisorError) as caught:
        speed(engine=engine_id, gpu="RTX 4090", precision=precision)
    assert caught.value.code == "engine_unsupported_precision"
    assert DATA.engine(engine_id).name in caught.value.en and DATA.engine(engine_id).name in caught.value.zh


def test_an_alias_of_an_unknown_engine_fails_loudly():
    with pytest.raises(CatalogError, match="nope"):
        inherit_engine_rows([{"id": "vllm", "name": "vLLM"}, {"id": "x", "name": "X", "alias_of": "nope"}])
    with pytest.raises(CatalogError):  # a chain of borrowings hides where a figure came from
        inherit_engine_rows([{"id": "a", "name": "A", "figures_from": "b"}, {"id": "b", "name": "B", "alias_of": "a"}])


def test_all_reduce_latency_is_looked_up_per_link_and_engine():
    net = DATA.interconnect
    vllm_fabric, default_fabric = net.latency("infinity_fabric", "vllm"), net.latency("infinity_fabric", "sglang")
    assert vllm_fabric.engine == "vllm" and "AMD-1" in vllm_fabric.fitted_on
    assert default_fabric.engine is None and default_fabric.latency_us != vllm_fabric.latency_us
    assert net.latency("nvlink", "trtllm").engine is None


def test_an_amd_board_pays_its_own_link_latency_in_tp_decode():
    args = {"model": "llama-3.1-70b", "gpu": "MI300X", "num_gpus": 8, "precision": "fp8", "prompt_tokens": 128, "output_tokens": 128}
    vllm, sglang = speed(engine="vllm", **args), speed(engine="sglang", **args)
    assert vllm > sglang  # vLLM's fitted Infinity Fabric collective is shorter than the default


def test_a_link_kind_without_a_default_latency_is_refused():
    from knowledge.serving import Interconnect

    with pytest.raises(ValueError, match="pcie"):
        Interconnect(
            allreduce_latency=[{"link": "nvlink", "latency_us": 50, "source": "x" * 5}, {"link": "infinity_fabric", "latency_us": 50, "source": "x" * 5}],
            pcie_gbs_per_direction={4: 32}, bridge_max_gpus=2, source="test",
        )  # fmt: skip


def test_tensorrt_llm_fp8_weights_default_to_the_fp8_kv_cache_their_checkpoints_set():
    def result(**extra):
        request = ThroughputRequest(
            model="llama-3.1-8b", gpu="H100", engine="trtllm", precision="fp8", batch=256, prompt_tokens=2048, output_tokens=2048, **extra
        )
        return estimate_throughput(request, CATALOG, DATA)

    default, bf16 = result(), result(kv_precision="bf16")
    note = next(n for n in default.notes if "kv_cache_quant_algo" in n.en)
    assert "FP8" in note.en and "KV 缓存" in note.zh and "kv_cache_quant_algo" in note.zh
    assert not any("kv_cache_quant_algo" in n.en for n in bf16.notes)  # an asked-for format stands, unremarked
    assert default.max_batch_fits > bf16.max_batch_fits


def test_other_engines_keep_a_16_bit_kv_cache_for_fp8_weights():
    request = ThroughputRequest(model="llama-3.1-8b", gpu="H100", engine="vllm", precision="fp8")
    assert not any("kv_cache_quant_algo" in n.en for n in estimate_throughput(request, CATALOG, DATA).notes)
