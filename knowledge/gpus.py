"""GPU catalog schema. Every figure is per single accelerator; TFLOPS are dense (never sparse)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from knowledge.export_rules import ChinaRule, ChinaStatus, china_rule, load_export_rules
from knowledge.sources import DATE_PATTERN, DatedSource


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid")

    amount: float = Field(gt=0, description="Price in `currency`.")
    currency: Literal["USD", "CNY"] = "USD"
    date: str = Field(pattern=DATE_PATTERN, description="When the price was observed, YYYY-MM or YYYY-MM-DD.")
    note: str = Field("", description="Where/what (e.g. 'AWS p5 on-demand, per GPU', 'street price').")
    source: str = Field(min_length=3, description="Where the figure comes from.")
    source_url: str | None = Field(None, pattern=r"^https?://\S+$", description="The page the figure was read from (one a reader can open).")
    no_url_because: str = Field(
        "", description="Why there is no source_url: the reference (file and section) names the source without a page to open."
    )
    overridden_by: str = Field("", description="Set when the price is the company's own (ADVISOR_PRICES file).")

    @property
    def cited(self) -> str:
        """The source as an answer cites it: with the page to open when there is one."""
        return f"{self.source} — {self.source_url}" if self.source_url else self.source


# Figures a vendor may leave unpublished; a row names the ones it lacks in `unknown`.
UNKNOWABLE = frozenset({"bf16_tflops", "fp16_tflops", "fp8_tflops", "fp4_tflops", "fp32_tflops", "die_area_mm2", "tdp_w", "nvlink_gbs",
                        "pcie_gen", "int8_tops", "mig_instances", "sparsity_2_4"})  # fmt: skip


class GPU(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Stable slug, e.g. 'h100-sxm'.")
    name: str = Field(description="Marketing name, e.g. 'NVIDIA H100 SXM'.")
    vendor: Literal["NVIDIA", "AMD", "Intel", "Huawei", "Cambricon", "Moore Threads", "Google", "AWS", "Apple"]
    architecture: str
    segment: Literal["datacenter", "workstation", "consumer", "apple"]
    memory_gb: float = Field(
        gt=0, description="Memory as sold ('80 GB'; unified memory for Apple). Vendors' sizes are binary: 80 means 80 GiB = 85.9 × 10^9 bytes."
    )
    memory_type: str
    ecc: bool | None = Field(
        None, description="ECC on the card's memory: True for HBM parts and for GDDR parts sold with ECC (memory_type says 'ECC', "
        "or the row sets it from the datasheet), False for GeForce cards (the row sets it); None = not in our sources.",
    )
    bandwidth_gbs: float = Field(gt=0, description="Memory bandwidth, GB/s.")
    bf16_tflops: float | None = Field(
        None, gt=0, description="Dense BF16 tensor TFLOPS (no sparsity); None where the chip has no BF16 (Volta, Turing) or none is published."
    )
    fp16_tflops: float | None = Field(
        None, gt=0,
        description="Dense FP16 tensor TFLOPS at the fastest accumulate mode, given where it differs from BF16: "
        "GeForce FP16-accumulate (2 × the BF16 rate) and chips without BF16. None = same as BF16.",
    )
    fp4_tflops: float | None = Field(None, gt=0, description="Dense FP4 tensor TFLOPS (Blackwell NVFP4/MXFP4, MI355X MXFP4); None = no FP4.")
    fp8_tflops: float | None = Field(None, gt=0, description="Dense FP8 TFLOPS; None when the chip has no FP8.")
    fp32_tflops: float | None = Field(None, gt=0, description="Non-tensor FP32 TFLOPS.")
    die_area_mm2: float | None = Field(None, gt=0, description="Die area, for the 3A090 performance-density test; needed for data-centre parts with TPP 1,600–4,800.")
    gpu_usable_fraction: float = Field(
        1.0, gt=0, le=1,
        description="Share of `memory_gb` the GPU may use by default: 1 for discrete cards; about 0.75 on Apple silicon, "
        "where macOS caps the GPU's wired memory (raise it with `sudo sysctl iogpu.wired_limit_mb=<MB>`).",
    )
    tdp_w: float | None = Field(
        None, gt=0, description="Board power / TDP in watts; None where the vendor publishes none (Google TPUs)."
    )
    interconnect: str = Field(description="Human-readable interconnect summary.")
    nvlink_gbs: float | None = Field(None, ge=0, description="GPU-to-GPU link bandwidth per GPU (NVLink, Infinity Fabric, ICI, HCCS), GB/s; None = PCIe only.")
    pcie_gen: int | None = Field(None, ge=3, le=6)
    form_factor: str
    cooling: Literal["passive", "active", "liquid"] | None = Field(
        None,
        description="How the card is cooled: 'passive' = a bare heatsink that the server's chassis fans must blow through "
        "(its temperature is the chassis airflow's and the BMC fan policy's job); None = not in our sources.",
    )
    launch_year: int = Field(ge=2015, le=2030)
    mig_instances: int | None = Field(
        None, ge=0, description="Most hardware-isolated MIG instances one GPU splits into; 0 = no MIG (GeForce, workstation Ada, L40S, "
        "non-NVIDIA parts); None = not in our sources.",
    )
    int8_tops: float | None = Field(None, gt=0, description="Dense INT8 tensor TOPS (sparse figures halved); None = not in our sources.")
    sparsity_2_4: bool | None = Field(
        None, description="2:4 structured sparsity in the tensor cores (doubles the peak on pruned weights); None = not in our sources."
    )
    capability_sources: list[DatedSource] = Field(
        default_factory=list, description="Sources of mig_instances, int8_tops and sparsity_2_4 (required when any is set)."
    )
    inference_only: bool = Field(False, description="True where training is impractical (e.g. Apple silicon).")
    china: ChinaStatus | None = Field(
        None,
        description="Availability in mainland China. Derived at load time from the ECCN 3A090 thresholds and the dated events in "
        "export_rules.yaml; not written in gpus.yaml. second-hand: a China variant later barred too; licensed: case-by-case US licence.",
    )
    china_rule: ChinaRule | None = Field(None, description="The rule or event that decides `china`, with the TPP it was computed from.")
    china_edition_of: list[str] = Field(default_factory=list, description="The parts this China-market edition is sold in place of "
                                        "('rtx-4090d' → rtx-4090), so a mainland buyer hears which edition to ask for.")
    laptop_of: list[str] = Field(default_factory=list, description="The desktop cards whose number this laptop GPU is sold under "
                                 "('rtx-3060-laptop' → rtx-3060-12gb): that number said with a laptop word, or with this row's memory, "
                                 "means this row, so the memory the user has wins over the desktop card's.")
    availability_en: str = ""
    availability_zh: str = ""
    purchase_price: Price | None = Field(None, description="Indicative purchase price per GPU (or per card).")
    cloud_price: Price | None = Field(None, description="Indicative on-demand cloud price per GPU-hour.")
    aliases: list[str] = Field(default_factory=list, description="What users type: '4090', 'A100 80G', '昇腾910B'.")
    source: str = Field(min_length=3)
    spec_sources: list[DatedSource] = Field(
        default_factory=list, description="Dated pages a reader can open that give the row's figures (newer rows; older rows name theirs in `source`)."
    )
    source_quality: Literal["primary", "secondary"] = Field(
        "primary",
        description="'secondary' where no vendor page of the part gives the row's figures, only press reports, OEM or distributor "
        "sheets or transcriptions (China variants, domestic parts); the answer's sources say so beside the card.",
    )
    no_url_because: str = Field(
        "", description="Where spec_sources is empty or partial: which cited sources the reference (file and section) names "
        "without a page to open. A row gives its figures either as dated pages in spec_sources or says here why it cannot.",
    )
    unverified: list[str] = Field(
        default_factory=list,
        description="Fields whose value no openable dated source confirms (e.g. 'cooling' read from a form factor, not a "
        "datasheet): kept, but said to be unverified.",
    )
    unknown: list[str] = Field(
        default_factory=list,
        description="Figures no openable source gives (field names, e.g. 'tdp_w'): left None and said to be unknown, never guessed.",
    )

    @property
    def tensor16_tflops(self) -> float | None:
        """The dense 16-bit tensor rate for speed estimates: BF16, or FP16 on chips without BF16."""
        return self.bf16_tflops or self.fp16_tflops

    @property
    def precision_tflops(self) -> dict[str, float | None]:
        return {"fp4_tflops": self.fp4_tflops, "fp8_tflops": self.fp8_tflops, "bf16_tflops": self.bf16_tflops,
                "fp16_tflops": self.fp16_tflops, "fp32_tflops": self.fp32_tflops}  # fmt: skip

    @model_validator(mode="after")
    def _ecc_from_memory_type(self) -> GPU:
        if self.ecc is None and ("HBM" in self.memory_type or "ECC" in self.memory_type):
            self.ecc = True  # HBM carries ECC on every part; a GDDR row that says "ECC" is sold with it
        return self

    @model_validator(mode="after")
    def _capability_fields_are_sourced(self) -> GPU:
        stated = self.mig_instances is not None or self.int8_tops is not None or self.sparsity_2_4 is not None
        if stated and not self.capability_sources:
            raise ValueError(f"{self.id}: mig_instances / int8_tops / sparsity_2_4 need capability_sources (title, url, date)")
        return self

    @model_validator(mode="after")
    def _unknown_figures_are_empty_and_sourced(self) -> GPU:
        for name in self.unknown:
            if name not in UNKNOWABLE:
                raise ValueError(f"{self.id}: unknown lists {name!r}, which is not a figure that may be unpublished ({sorted(UNKNOWABLE)})")
            if getattr(self, name) is not None:
                raise ValueError(f"{self.id}: {name} is listed as unknown but has a value")
        if self.unknown and not self.spec_sources:
            raise ValueError(f"{self.id}: a row with unknown figures needs spec_sources (title, url, date) saying where the known ones come from")
        return self

    @model_validator(mode="after")
    def _figures_are_dated(self) -> GPU:
        if not self.spec_sources and not re.search(r"(?<!\d)(19|20)\d\d(?!\d)", self.source):
            raise ValueError(f"{self.id}: the row's figures need a dated source: spec_sources (title, url, date) or a date in `source`")
        return self

    @model_validator(mode="after")
    def _derive_china(self) -> GPU:
        if self.china_rule is None:
            self.china_rule = china_rule(self.id, self.vendor, self.segment == "datacenter", self.precision_tflops,
                                         self.die_area_mm2, load_export_rules())  # fmt: skip
        if self.china is None:
            self.china = self.china_rule.status
        return self
