"""Serving-speed data: what each inference engine realises of a GPU's bandwidth and FLOPS.

The throughput estimator (``tools.serving``) is physics — bytes ÷ bandwidth, FLOPs ÷ peak — scaled
by the efficiencies here. Each figure is a measured share for one engine on one device family, or
an explicitly labelled assumption, and names its source (mostly calibration points in
``tests/data/serving_calibration.yaml`` that it was fitted on). ``load_serving_data`` validates the
file once and fails loudly (``CatalogError``) on a malformed row.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from knowledge.bilingual import Text
from knowledge.catalog import CatalogError, read_yaml
from knowledge.gpus import GPU

DATA_FILE = Path(__file__).parent / "serving.yaml"


class Efficiency(BaseModel):
    """Shares of the hardware peaks one engine realises on one device family."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bandwidth: float = Field(gt=0, le=1, description="Share of peak memory bandwidth when streaming weights.")
    kv_bandwidth: float | None = Field(None, gt=0, le=1, description="Attention kernels reading the KV cache; default = bandwidth.")
    mfu: float = Field(gt=0, le=1.5, description="Share of dense BF16 peak in GEMMs (prefill, large-batch decode).")
    source: str = Field(min_length=3)
    fitted_on: list[str] = Field(default_factory=list, description="Calibration ids the figures were fitted on.")


class Engine(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str
    alias_of: str | None = Field(None, description="Another name for this engine's runtime (Ollama runs llama.cpp): every figure is its.")
    figures_from: str | None = Field(
        None, description="No measurement of this engine: the figures it does not state are this engine's, and its sources say so."
    )
    step_overhead_ms: float = Field(ge=0, description="Serial host time per forward step (scheduler, sampler, Python).")
    launch_ms_per_layer: float = Field(0, ge=0, description="Host kernel-launch time per layer that overlaps GPU work (eager engines).")
    overhead_source: str = Field(min_length=3)
    multi_gpu: Literal["tensor", "layers"] = Field(description="How several GPUs serve one copy: tensor parallel or a layer split.")
    vendors: list[str] = Field(min_length=1, description="GPU vendors the engine has a backend for.")
    weight_formats: list[str] = Field(min_length=1)
    kv_formats: list[str] = Field(min_length=1)
    moe_bandwidth_factor: float = Field(1.0, gt=0, le=1, description="Share of the weight-streaming rate left for expert weights.")
    moe_mfu_factor: float = Field(1.0, gt=0, le=1, description="Share of the GEMM rate left for expert GEMMs.")
    moe_expert_loop_us: float = Field(0, ge=0, description="Serial host cost per (MoE layer × expert) and forward pass.")
    moe_source: str = ""
    memory_basis: Literal["total", "free"] = Field(
        description="'total': the engine may use memory_fraction of the GPU for everything; 'free': of what weights leave."
    )
    memory_fraction: float = Field(gt=0, le=1)
    prefill_chunk: int | None = Field(None, gt=0, description="Prompt tokens per forward pass; None = the whole prompt.")
    default_max_seqs: int | None = Field(None, gt=0, description="Default cap on running sequences (scheduler setting).")
    memory_source: str = Field(min_length=3)
    prefix_cache_default: bool = Field(False, description="Shared prompt prefixes are cached by default, so only new tokens are prefilled.")
    prefix_cache_source: str = Field("", description="Where the default (and the switch that turns it off) is documented.")
    checkpoint_kv: dict[str, str] = Field(
        default_factory=dict, description="Weight format → the KV-cache format the engine's checkpoints of that format set; the default KV."
    )
    checkpoint_kv_source: str = ""
    efficiency: Efficiency = Field(description="On datacenter NVIDIA GPUs, and the base for families without their own row.")
    families: dict[str, Efficiency] = Field(default_factory=dict, description="Measured rows per device family.")

    @property
    def runtime(self) -> str:
        """The engine whose code actually runs (Ollama: llama.cpp), for behaviour tied to a runtime such as GGUF files."""
        return self.alias_of or self.id


class DeviceFamily(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    label_en: str
    label_zh: str
    gpus: list[str] = Field(default_factory=list, description="Catalog ids that belong here whatever their vendor/segment.")
    vendors: list[str] = Field(default_factory=list)
    segments: list[str] = Field(default_factory=list, description="Empty: any segment of the listed vendors.")
    bandwidth_factor: float = Field(1.0, gt=0, le=1.5, description="Scales an engine's base efficiency when it has no row here.")
    compute_factor: float = Field(1.0, gt=0, le=1.5)
    memory_fraction: float = Field(1.0, gt=0, le=1, description="Share of memory the accelerator may use (Apple: GPU wired limit).")
    assumed: bool = Field(False, description="True where no measured point calibrates the factors: the answer says the efficiency is assumed.")
    source: str = Field(min_length=3)


LinkKind = Literal["nvlink", "infinity_fabric", "pcie"]


class AllReduceLatency(BaseModel):
    """Fixed time of one all-reduce on a link kind, for one engine or (engine None) any engine."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    link: LinkKind
    engine: str | None = Field(None, description="Engine id (its runtime for an alias); None: every engine without its own row.")
    latency_us: float = Field(gt=0, description="Per collective, including the launch and sync gaps around it.")
    source: str = Field(min_length=3)
    fitted_on: list[str] = Field(default_factory=list, description="Calibration ids the figure was fitted on.")


class Interconnect(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    allreduce_latency: list[AllReduceLatency] = Field(min_length=1)
    pcie_gbs_per_direction: dict[int, float] = Field(description="x16 link bandwidth per direction by PCIe generation.")
    bridge_max_gpus: int = Field(gt=1, description="GPUs an NVLink bridge joins; beyond it traffic goes over PCIe.")
    source: str = Field(min_length=3)

    @model_validator(mode="after")
    def _every_link_has_a_default(self) -> Interconnect:
        defaults = {row.link for row in self.allreduce_latency if row.engine is None}
        missing = set(LinkKind.__args__) - defaults
        if missing:
            raise ValueError(f"allreduce_latency needs a row without an engine for {sorted(missing)}")
        return self

    def latency(self, link: LinkKind, engine_id: str) -> AllReduceLatency:
        """The engine's own row for the link, else the link's default row."""
        rows = [row for row in self.allreduce_latency if row.link == link]
        return next((row for row in rows if row.engine == engine_id), next(row for row in rows if row.engine is None))


class FormatKernel(BaseModel):
    """How much slower an engine's kernels for a weight format stream weights than its 16-bit kernels (dequantisation),
    on the device families it was measured on; formats, engines and families without a row stream at the base rate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    formats: list[str] = Field(min_length=1, description="Weight-format ids (tools.precision), e.g. gptq-int4.")
    engines: list[str] = Field(min_length=1)
    families: list[str] = Field(min_length=1, description="Device-family ids the measurement covers.")
    bandwidth_factor: float = Field(gt=0, le=1, description="Multiplies the engine's weight-streaming share for these formats.")
    source: str = Field(min_length=3)
    fitted_on: list[str] = Field(default_factory=list, description="Calibration ids the factor was fitted on.")


class ServingData(BaseModel):
    """Everything the throughput estimator looks up, validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    engines: list[Engine]
    families: list[DeviceFamily]
    interconnect: Interconnect
    fp8_compute_gain: float = Field(ge=1, le=2, description="Realised FP8 GEMM speed-up over BF16 where the GPU has FP8.")
    fp8_source: str = Field(min_length=3)
    format_kernels: list[FormatKernel] = Field(default_factory=list, description="Measured dequantising-kernel factors.")
    format_gap: Text | None = Field(
        None, description="Said when a format with a measured kernel factor somewhere runs where none was measured ({format}, {engine}, {family})."
    )
    _efficiencies: dict[tuple[str, str], Efficiency] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> ServingData:
        family_ids = {f.id for f in self.families}
        last = self.families[-1] if self.families else None
        if len(family_ids) != len(self.families) or last is None or last.vendors or last.gpus:
            raise ValueError("family ids must be unique and the last family must be a catch-all (no vendors, no gpus)")
        for engine in self.engines:
            unknown = set(engine.families) - family_ids
            if unknown:
                raise ValueError(f"engine {engine.id}: unknown families {sorted(unknown)}")
        return self

    def format_kernel(self, engine_id: str, family_id: str, format_id: str) -> FormatKernel | None:
        """The measured factor for this engine, device family and weight format, if any."""
        return next((k for k in self.format_kernels
                     if format_id in k.formats and engine_id in k.engines and family_id in k.families), None)  # fmt: skip

    def unmeasured_format(self, engine_id: str, family_id: str, format_id: str) -> FormatKernel | None:
        """The measurement of this format elsewhere, when this engine's kernels on this family have none."""
        if self.format_kernel(engine_id, family_id, format_id):
            return None
        return next((k for k in self.format_kernels if format_id in k.formats), None)

    def engine(self, engine_id: str) -> Engine:
        return next(e for e in self.engines if e.id == engine_id)

    def efficiency(self, engine_id: str, family_id: str) -> Efficiency:
        """The engine's row for the family, else its base row scaled by the family's factors (cached)."""
        key = (engine_id, family_id)
        if key not in self._efficiencies:
            self._efficiencies[key] = self._efficiency(self.engine(engine_id), next(f for f in self.families if f.id == family_id))
        return self._efficiencies[key]

    @staticmethod
    def _efficiency(engine: Engine, family: DeviceFamily) -> Efficiency:
        if family.id in engine.families:
            return engine.families[family.id]
        base, scale = engine.efficiency, family.bandwidth_factor
        if scale == 1 and family.compute_factor == 1:
            return base
        return base.model_copy(update={
            "bandwidth": min(1.0, base.bandwidth * scale),
            "kv_bandwidth": None if base.kv_bandwidth is None else min(1.0, base.kv_bandwidth * scale),
            "mfu": base.mfu * family.compute_factor, "fitted_on": [],
            "source": f"{engine.name} base row × {family.label_en} factors (bandwidth ×{scale:g}, compute ×{family.compute_factor:g}): "
            f"{family.source}. Base: {base.source}",
        })  # fmt: skip

    def family(self, gpu: GPU) -> DeviceFamily:
        """The first family that lists the GPU, else the first whose vendor and segment match."""
        for family in self.families:
            if gpu.id in family.gpus:
                return family
        for family in self.families:
            if family.gpus and not family.vendors:
                continue
            if (not family.vendors or gpu.vendor in family.vendors) and (not family.segments or gpu.segment in family.segments):
                return family
        return self.families[-1]


def _borrowed(efficiency: dict, lender: dict) -> dict:
    return {**efficiency, "source": f"No published measurement of this engine: the figure of {lender['name']}. {efficiency['source']}"}


def inherit_engine_rows(engines: list[dict]) -> list[dict]:
    """Fill rows that name ``alias_of`` or ``figures_from`` from the engine they name. An alias is the same runtime,
    so its sources stand; a borrowed figure's source is rewritten to say it was not measured on this engine."""
    by_id = {row.get("id"): row for row in engines}
    filled = []
    for row in engines:
        lender_id = row.get("alias_of") or row.get("figures_from")
        lender = by_id.get(lender_id)
        if lender_id is None:
            filled.append(row)
            continue
        if lender is None or lender.get("alias_of") or lender.get("figures_from"):
            raise CatalogError(f"engine {row.get('id')}: {lender_id!r} is not an engine with its own figures")
        merged = {**{k: v for k, v in lender.items() if k not in ("id", "name")}, **row}
        if row.get("figures_from"):
            if "efficiency" not in row:
                merged["efficiency"] = _borrowed(lender["efficiency"], lender)
            if "families" not in row:
                merged["families"] = {family: _borrowed(row_, lender) for family, row_ in lender.get("families", {}).items()}
        filled.append(merged)
    return filled


@lru_cache(maxsize=1)
def load_serving_data(path: Path = DATA_FILE) -> ServingData:
    raw = read_yaml(path)
    try:
        if isinstance(raw, dict) and isinstance(raw.get("engines"), list):
            raw = {**raw, "engines": inherit_engine_rows(raw["engines"])}
        return ServingData.model_validate(raw)
    except ValidationError as exc:
        raise CatalogError(f"{path}: invalid serving data:\n{exc}") from exc
