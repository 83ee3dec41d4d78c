"""Look up, compare and filter GPUs from the catalog, with a few derived ratios buyers ask about."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import AdvisorError
from knowledge.catalog import Catalog
from knowledge.gpus import GPU


class CompareRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpus: list[str] = Field(
        min_length=1, max_length=8, description="GPU names or aliases to show side by side, e.g. ['H100', 'A100 80G', '4090']."
    )


class GpuFigures(BaseModel):
    gpu: GPU
    bf16_tflops_per_kw: float | None = Field(None, description="Dense BF16 TFLOPS per kW of board power.")
    usd_per_gb_memory: float | None = Field(None, description="Indicative purchase price (USD) per GB of memory.")


class Comparison(BaseModel):
    rows: list[GpuFigures]
    best_memory: str = Field(description="id of the GPU with the most memory.")
    best_bandwidth: str
    best_bf16: str | None = Field(None, description="id of the fastest dense-BF16 GPU, when known.")


def _figures(gpu: GPU) -> GpuFigures:
    per_kw = round(gpu.bf16_tflops / (gpu.tdp_w / 1000), 1) if gpu.bf16_tflops and gpu.tdp_w else None
    price = gpu.purchase_price
    per_gb = round(price.amount / gpu.memory_gb, 1) if price and price.currency == "USD" else None
    return GpuFigures(gpu=gpu, bf16_tflops_per_kw=per_kw, usd_per_gb_memory=per_gb)


def compare_gpus(request: CompareRequest, catalog: Catalog) -> Comparison:
    gpus = list({g.id: g for g in (catalog.gpu(name) for name in request.gpus)}.values())
    with_bf16 = [g for g in gpus if g.bf16_tflops]
    return Comparison(
        rows=[_figures(g) for g in gpus],
        best_memory=max(gpus, key=lambda g: g.memory_gb).id,
        best_bandwidth=max(gpus, key=lambda g: g.bandwidth_gbs).id,
        best_bf16=max(with_bf16, key=lambda g: g.bf16_tflops).id if with_bf16 else None,
    )


class GpuFilter(BaseModel):
    vendor: str | None = Field(None, description="Only this vendor, e.g. 'NVIDIA', 'AMD', 'Huawei'.")
    segment: Literal["datacenter", "workstation", "consumer", "apple"] | None = None
    min_memory_gb: float = Field(0, ge=0, description="Only GPUs with at least this much memory.")
    china_mainland: bool = Field(False, description="Only GPUs that can be bought new in mainland China.")
    training: bool = Field(False, description="Exclude inference-only devices.")


class GpuList(BaseModel):
    gpus: list[GPU]


CHINA_BUYABLE = {"available", "china-variant", "domestic"}


def list_gpus(request: GpuFilter, catalog: Catalog) -> GpuList:
    vendor = request.vendor.casefold() if request.vendor else None
    if vendor and vendor not in {g.vendor.casefold() for g in catalog.gpus}:
        vendors = sorted({g.vendor for g in catalog.gpus})
        raise AdvisorError(
            "unknown_vendor", f"Unknown vendor '{request.vendor}'.", f"未知厂商“{request.vendor}”。", vendors
        )
    rows = [
        g
        for g in catalog.gpus
        if (vendor is None or g.vendor.casefold() == vendor)
        and (request.segment is None or g.segment == request.segment)
        and g.memory_gb >= request.min_memory_gb
        and (not request.china_mainland or g.china in CHINA_BUYABLE)
        and (not request.training or not g.inference_only)
    ]
    return GpuList(gpus=sorted(rows, key=lambda g: (-g.memory_gb, g.name)))
