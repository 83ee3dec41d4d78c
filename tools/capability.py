"""Whether a named GPU has a capability (FP8, FP4, NVLink, a memory size...), read from its catalog row, with
the comparable cards that do have it. Which field decides each capability is data (knowledge/capabilities.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import AdvisorError, Text
from knowledge.capabilities import Capability, load_capabilities
from knowledge.catalog import Catalog, variant_family
from knowledge.gpus import GPU
from knowledge.wording import shipped

FIELDS = shipped("tool_field_descriptions.yaml")
ERRORS = shipped("input_errors_text.yaml")

ALTERNATIVES = 3
PCIE_GEN3_X16_GBS = 16  # ≈15.75 GB/s per direction for a Gen3 x16 link; each generation doubles it (PCI-SIG specifications)


class CapabilityRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    gpu: str = Field(min_length=1, description=FIELDS.entry("capability.gpu"))
    capability: str = Field(description="fp4, fp8, bf16, mig, int8, sparsity, nvlink, pcie_gen, memory, bandwidth, tdp or form_factor.")
    threshold: float | None = Field(None, gt=0, description="For memory or bandwidth: the size asked about ('at least 48 GB').")


class CardFigure(BaseModel):
    id: str
    name: str
    value: float | str | None = Field(None, description="The card's figure for the capability, in its unit.")


class CapabilityVerdict(BaseModel):
    gpu: GPU
    capability: str
    verdict: Literal["yes", "no", "unknown", "figure"] = Field(
        description="yes/no: has it (or meets the size asked); unknown: has such a link, figure unpublished; figure: a value was asked."
    )
    value: float | str | None = Field(None, description="The catalog figure, in `unit`; None when the card lacks it.")
    unit: str
    threshold: float | None = None
    pcie_lane_gbs: float | None = Field(None, description="Per-direction bandwidth of the card's PCIe x16 link, GB/s.")
    alternatives: list[CardFigure] = Field(default_factory=list, description="Comparable cards that have it, when this one does not.")
    variants: list[CardFigure] = Field(default_factory=list, description="Other versions of the same GPU, for a form-factor question.")


def _capability(name: str) -> Capability:
    table = load_capabilities()
    found = table.get(name.strip().lower())
    if found is None:
        known = [c.id for c in table.capabilities]
        raise AdvisorError(
            "unknown_capability",
            **ERRORS.text("unknown_capability", name=name[:40], known=Text(en=", ".join(known), zh="、".join(known))).model_dump(),
            suggestions=known,
        )
    return found


def _meets(capability: Capability, gpu: GPU, threshold: float | None) -> bool:
    value = getattr(gpu, capability.field)
    if capability.kind == "minimum" and threshold is not None:
        return value is not None and value >= threshold
    return value is not None and value is not False and value != 0  # 0 MIG instances, no sparsity: the card lacks it


def _unsourced(capability: Capability, gpu: GPU) -> bool:
    """Has such a link whose figure is unpublished, or a field our sources leave empty: neither is a "no"."""
    if capability.kind != "presence":
        return False
    unsourced_here = capability.field in gpu.unknown and capability.unknown is not None  # the row says no source gives it
    if (capability.unknown_if_unsourced or unsourced_here or gpu.segment in capability.unknown_for_segments) and getattr(gpu, capability.field) is None:
        return True
    return any(word.lower() in gpu.interconnect.lower() for word in capability.unknown_when)


def _alternatives(capability: Capability, gpu: GPU, threshold: float | None, catalog: Catalog) -> list[CardFigure]:
    """Cards that have it, the most comparable first: the same segment and vendor, not an older generation, then the
    closest memory; one per family."""
    own = variant_family(gpu.id)
    having = [g for g in catalog.gpus if variant_family(g.id) != own and _meets(capability, g, threshold)]
    having.sort(key=lambda g: (g.segment != gpu.segment, g.vendor != gpu.vendor, g.launch_year < gpu.launch_year, abs(g.memory_gb - gpu.memory_gb)))
    picked: dict[str, GPU] = {}
    for candidate in having:
        picked.setdefault(variant_family(candidate.id), candidate)
    return [CardFigure(id=g.id, name=g.name, value=getattr(g, capability.field)) for g in list(picked.values())[:ALTERNATIVES]]


def check_capability(request: CapabilityRequest, catalog: Catalog) -> CapabilityVerdict:
    capability = _capability(request.capability)
    gpu = catalog.gpu(request.gpu)
    value = getattr(gpu, capability.field)
    threshold = request.threshold if capability.kind == "minimum" else None
    if capability.kind == "value" or (capability.kind == "minimum" and threshold is None):
        verdict = "figure"
    elif _meets(capability, gpu, threshold):
        verdict = "yes"
    elif _unsourced(capability, gpu):
        verdict = "unknown"
    else:
        verdict = "no"
    family = variant_family(gpu.id)
    return CapabilityVerdict(
        gpu=gpu,
        capability=capability.id,
        verdict=verdict,
        value=value,
        unit=capability.unit,
        threshold=threshold,
        pcie_lane_gbs=PCIE_GEN3_X16_GBS * 2 ** (gpu.pcie_gen - 3) if gpu.pcie_gen else None,
        alternatives=_alternatives(capability, gpu, threshold, catalog) if verdict == "no" else [],
        variants=[CardFigure(id=g.id, name=g.name, value=getattr(g, capability.field)) for g in catalog.gpus
                  if g.id != gpu.id and variant_family(g.id) == family] if capability.id == "form_factor" else [],  # fmt: skip
    )
