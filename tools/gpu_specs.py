"""Look up, compare and filter GPUs from the catalog, with a few derived ratios buyers ask about."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import AdvisorError
from knowledge.catalog import Catalog
from knowledge.gpus import GPU, Price
from knowledge.wording import shipped
from tools.cost.money import DEFAULT_USD_TO_CNY, Currency, check_exchange_rate, convert, money, normalize_currency

ERRORS = shipped("input_errors_text.yaml")


class CompareRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpus: list[str] = Field(
        min_length=1, max_length=8, description="GPU names or aliases to show side by side, e.g. ['H100', 'A100 80G', '4090']."
    )
    currency: str = Field("USD", description="Currency of the price ratios: USD or CNY; catalog prices in the other are converted.")
    usd_to_cny: float = Field(DEFAULT_USD_TO_CNY, description="CNY per USD for converting catalog prices.")


class PriceRatio(BaseModel):
    amount: float = Field(description="Indicative price (to buy, or to rent for an hour) per unit, in the comparison's currency.")
    formula: str = Field(description="How it was computed from the catalog price and spec.")


class GpuFigures(BaseModel):
    gpu: GPU
    bf16_tflops_per_kw: float | None = Field(None, description="Dense BF16 TFLOPS per kW of board power.")
    price_per_bf16_tflops: PriceRatio | None = Field(None, description="Purchase price per dense BF16 TFLOPS: what training compute costs to own.")
    price_per_tb_s: PriceRatio | None = Field(None, description="Purchase price per TB/s of memory bandwidth: what decode speed (serving) costs to own.")
    price_per_gb_memory: PriceRatio | None = Field(None, description="Purchase price per GB of memory.")
    rent_per_bf16_pflops: PriceRatio | None = Field(None, description="Cloud price per GPU-hour per dense BF16 PFLOPS.")
    rent_per_tb_s: PriceRatio | None = Field(None, description="Cloud price per GPU-hour per TB/s of memory bandwidth.")


class Comparison(BaseModel):
    rows: list[GpuFigures]
    currency: Currency = Field(description="Currency of the price ratios.")
    best_memory: str = Field(description="id of the GPU with the most memory.")
    best_bandwidth: str
    best_bf16: str | None = Field(None, description="id of the fastest dense-BF16 GPU, when known.")
    best_training_value: str | None = Field(None, description="id of the GPU with the lowest purchase price per BF16 TFLOPS, when two or more are priced.")
    best_serving_value: str | None = Field(None, description="id of the GPU with the lowest purchase price per TB/s of bandwidth, when two or more are priced.")
    best_training_rent: str | None = Field(None, description="id of the GPU with the lowest cloud price per BF16 PFLOPS, when two or more have one.")
    best_serving_rent: str | None = Field(None, description="id of the GPU with the lowest cloud price per TB/s, when two or more have one.")


def figure_ratio(a: float | None, b: float | None) -> float | None:
    """``a`` as a multiple of ``b`` to two decimals (a part's figure against another's); None when either is missing or zero."""
    return round(a / b, 2) if a and b else None


def _ratio(price: Price | None, per: float | None, unit: str, currency: Currency, usd_to_cny: float) -> PriceRatio | None:
    if price is None or not per:
        return None
    amount = convert(price.amount, price.currency, currency, usd_to_cny)
    rate = "" if price.currency == currency else f" × {usd_to_cny:g} CNY/USD" if currency == "CNY" else f" ÷ {usd_to_cny:g} CNY/USD"
    return PriceRatio(amount=round(amount / per, 2), formula=f"{money(price.amount, price.currency)}{rate} / {per:,.4g} {unit} = {money(amount / per, currency)}")


def _figures(gpu: GPU, currency: Currency, usd_to_cny: float) -> GpuFigures:
    per_kw = round(gpu.bf16_tflops / (gpu.tdp_w / 1000), 1) if gpu.bf16_tflops and gpu.tdp_w else None
    return GpuFigures(
        gpu=gpu,
        bf16_tflops_per_kw=per_kw,
        price_per_bf16_tflops=_ratio(gpu.purchase_price, gpu.bf16_tflops, "TFLOPS", currency, usd_to_cny),
        price_per_tb_s=_ratio(gpu.purchase_price, gpu.bandwidth_gbs / 1000, "TB/s", currency, usd_to_cny),
        price_per_gb_memory=_ratio(gpu.purchase_price, gpu.memory_gb, "GB", currency, usd_to_cny),
        rent_per_bf16_pflops=_ratio(gpu.cloud_price, gpu.bf16_tflops / 1000 if gpu.bf16_tflops else None, "PFLOPS", currency, usd_to_cny),
        rent_per_tb_s=_ratio(gpu.cloud_price, gpu.bandwidth_gbs / 1000, "TB/s", currency, usd_to_cny),
    )


def _cheapest(rows: list[GpuFigures], field: str) -> str | None:
    priced = [r for r in rows if getattr(r, field) is not None]
    return min(priced, key=lambda r: getattr(r, field).amount).gpu.id if len(priced) > 1 else None


def compare_gpus(request: CompareRequest, catalog: Catalog) -> Comparison:
    currency = normalize_currency(request.currency)
    check_exchange_rate(request.usd_to_cny)
    gpus = list({g.id: g for g in (catalog.gpu(name) for name in request.gpus)}.values())
    with_bf16 = [g for g in gpus if g.bf16_tflops]
    rows = [_figures(g, currency, request.usd_to_cny) for g in gpus]
    return Comparison(
        rows=rows,
        currency=currency,
        best_memory=max(gpus, key=lambda g: g.memory_gb).id,
        best_bandwidth=max(gpus, key=lambda g: g.bandwidth_gbs).id,
        best_bf16=max(with_bf16, key=lambda g: g.bf16_tflops).id if with_bf16 else None,
        best_training_value=_cheapest(rows, "price_per_bf16_tflops"),
        best_serving_value=_cheapest(rows, "price_per_tb_s"),
        best_training_rent=_cheapest(rows, "rent_per_bf16_pflops"),
        best_serving_rent=_cheapest(rows, "rent_per_tb_s"),
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
            "unknown_vendor", **ERRORS.text("unknown_vendor", vendor=request.vendor).model_dump(), suggestions=vendors
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
