"""GPU catalog schema. Every figure is per single accelerator; TFLOPS are dense (never sparse)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid")

    amount: float = Field(gt=0, description="Price in `currency`.")
    currency: Literal["USD", "CNY"] = "USD"
    date: str = Field(description="When the price was observed, YYYY-MM or YYYY-MM-DD.")
    note: str = Field("", description="Where/what (e.g. 'AWS p5 on-demand, per GPU', 'street price').")
    source: str = Field(description="Where the figure comes from.")
    overridden_by: str = Field("", description="Set when the price is the company's own (ADVISOR_PRICES file).")


class GPU(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Stable slug, e.g. 'h100-sxm'.")
    name: str = Field(description="Marketing name, e.g. 'NVIDIA H100 SXM'.")
    vendor: Literal["NVIDIA", "AMD", "Intel", "Huawei", "Google", "AWS", "Apple"]
    architecture: str
    segment: Literal["datacenter", "workstation", "consumer", "apple"]
    memory_gb: float = Field(
        gt=0, description="Memory as sold ('80 GB'; unified memory for Apple). Vendors' sizes are binary: 80 means 80 GiB = 85.9 × 10^9 bytes."
    )
    memory_type: str
    bandwidth_gbs: float = Field(gt=0, description="Memory bandwidth, GB/s.")
    bf16_tflops: float | None = Field(None, gt=0, description="Dense BF16/FP16 tensor TFLOPS (no sparsity).")
    fp8_tflops: float | None = Field(None, gt=0, description="Dense FP8 TFLOPS; None when the chip has no FP8.")
    fp32_tflops: float | None = Field(None, gt=0, description="Non-tensor FP32 TFLOPS.")
    tdp_w: float | None = Field(
        None, gt=0, description="Board power / TDP in watts; None where the vendor publishes none (Google TPUs)."
    )
    interconnect: str = Field(description="Human-readable interconnect summary.")
    nvlink_gbs: float | None = Field(None, ge=0, description="GPU-to-GPU link bandwidth per GPU (NVLink, Infinity Fabric, ICI, HCCS), GB/s; None = PCIe only.")
    pcie_gen: int | None = Field(None, ge=3, le=6)
    form_factor: str
    launch_year: int = Field(ge=2015, le=2030)
    inference_only: bool = Field(False, description="True where training is impractical (e.g. Apple silicon).")
    china: Literal["available", "export-controlled", "china-variant", "second-hand", "domestic", "not-sold"] = Field(
        description="Availability in mainland China: export-controlled parts cannot be bought new there; second-hand: a China variant later barred too, so only installed or used units remain."
    )
    availability_en: str = ""
    availability_zh: str = ""
    purchase_price: Price | None = Field(None, description="Indicative purchase price per GPU (or per card).")
    cloud_price: Price | None = Field(None, description="Indicative on-demand cloud price per GPU-hour.")
    aliases: list[str] = Field(default_factory=list, description="What users type: '4090', 'A100 80G', '昇腾910B'.")
    source: str = Field(min_length=3)
