"""A small, self-contained catalog for the training-time and TCO tests (figures from the reference notes).

The tests must not depend on every row of the shipped YAML, so they build the few GPUs and models
they need here; the same anchors are re-checked against the shipped catalog where it loads.
"""

from __future__ import annotations

from knowledge.catalog import Catalog
from knowledge.gpus import GPU, Price
from knowledge.models import ModelSpec

SOURCE = "gpu-specs-notes.md (reference, 2026-12-05)"  # a shipped row must name a dated source (knowledge/gpus.py)


def _gpu(id: str, name: str, **fields) -> GPU:
    base = dict(
        vendor="NVIDIA", architecture="-", segment="datacenter", memory_gb=80, memory_type="HBM", bandwidth_gbs=2000,
        interconnect="-", form_factor="SXM", launch_year=2022, china="available", source=SOURCE,
    )  # fmt: skip
    return GPU(id=id, name=name, **{**base, **fields})


def _usd(amount: float, note: str) -> Price:
    return Price(amount=amount, currency="USD", date="2026-09", note=note, source=SOURCE)


GPUS = [
    _gpu("a100-80gb-sxm", "NVIDIA A100 80GB SXM", bf16_tflops=312, tdp_w=400, nvlink_gbs=600,
         purchase_price=_usd(12_500, "new"), cloud_price=_usd(3.43, "AWS p4de on-demand"), aliases=["A100 80G"]),
    _gpu("h100-sxm", "NVIDIA H100 SXM", bf16_tflops=989.5, fp8_tflops=1979, tdp_w=700, nvlink_gbs=900,
         purchase_price=_usd(27_500, "SXM5 new"), cloud_price=_usd(6.88, "AWS p5 on-demand"), aliases=["H100"]),
    _gpu("h800-sxm", "NVIDIA H800 SXM", bf16_tflops=989.5, fp8_tflops=1979, tdp_w=700, nvlink_gbs=400, china="export-controlled",
         purchase_price=Price(amount=250_000, currency="CNY", date="2023-08", note="per GPU", source=SOURCE)),
    _gpu("l40s", "NVIDIA L40S", bf16_tflops=362.05, fp8_tflops=733, tdp_w=350, memory_gb=48, form_factor="PCIe"),
    _gpu("rtx-4090", "NVIDIA GeForce RTX 4090", segment="consumer", bf16_tflops=165.2, fp8_tflops=330.3, tdp_w=450,
         memory_gb=24, form_factor="PCIe", cloud_price=_usd(0.74, "RunPod")),
    _gpu("mi300x", "AMD Instinct MI300X", vendor="AMD", bf16_tflops=1307.4, fp8_tflops=2614.9, tdp_w=750, nvlink_gbs=896,
         memory_gb=192, form_factor="OAM", cloud_price=_usd(6.0, "Azure")),
    _gpu("apple-m4-max", "Apple M4 Max", vendor="Apple", segment="apple", tdp_w=100, memory_gb=128,
         form_factor="SoC", inference_only=True),
]  # fmt: skip


def _model(id: str, name: str, params_b: float, **fields) -> ModelSpec:
    base = dict(family="llama", layers=32, hidden=4096, heads=32, kv_heads=32, head_dim=128, ffn=11008, vocab=32000,
                attention="mha", max_context=4096, source="Hugging Face config.json")  # fmt: skip
    return ModelSpec(id=id, name=name, params_b=params_b, **{**base, **fields})


MODELS = [
    _model("llama-2-7b", "Llama 2 7B", 6.74),
    _model("llama-2-70b", "Llama 2 70B", 68.98, layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672, attention="gqa"),
    _model("mixtral-8x7b", "Mixtral 8x7B", 46.7, active_params_b=12.9, family="mixtral", kv_heads=8, ffn=14336,
           attention="gqa", moe_experts=8, moe_active=2, max_context=32768),
]  # fmt: skip


def small_catalog() -> Catalog:
    return Catalog(GPUS, MODELS)
