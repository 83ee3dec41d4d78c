"""The closest parts from other vendors to a named GPU ("Huawei's answer to the H100?"), or a named substitute
set against the part in place ("910B instead of our A100s?"), with each key figure as a share of the named part's."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from knowledge.catalog import Catalog, variant_family
from knowledge.gpus import GPU
from tools.gpu_specs import figure_ratio

MAX_PARTS = 4


class EquivalentRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(min_length=1, description="The part to match: the one in place, or the one a counterpart is asked for, e.g. 'A100'.")
    vendors: list[str] = Field(default_factory=list, max_length=8,
                               description="Catalog vendors to take a counterpart from, e.g. ['Huawei']; empty: any other vendor.")
    candidates: list[str] = Field(default_factory=list, max_length=MAX_PARTS,
                                  description="Named substitutes to set against the part instead of searching, e.g. ['910B'].")
    count: int = Field(2, ge=1, le=MAX_PARTS, description="How many of the closest parts to return when none is named.")


class Share(BaseModel):
    """A candidate's figure as a share of the named part's (1.0 = the same); None when either figure is unpublished."""

    bf16: float | None = Field(None, description="Dense BF16 (FP16 where BF16 is absent) TFLOPS, candidate ÷ part.")
    memory: float | None = Field(None, description="Memory, candidate ÷ part.")
    bandwidth: float | None = Field(None, description="Memory bandwidth, candidate ÷ part.")
    link: float | None = Field(None, description="Card-to-card link bandwidth (NVLink, HCCS, Infinity Fabric…), candidate ÷ part.")


class EquivalentPart(BaseModel):
    gpu: GPU
    share: Share
    distance: float = Field(description="Sum of |ln share| over the figures both publish: 0 is an exact match.")


class EquivalentResult(BaseModel):
    gpu: GPU = Field(description="The named part.")
    parts: list[EquivalentPart] = Field(description="Closest first; empty when no part of the vendors asked is in the catalog.")
    searched: bool = Field(description="True when the parts were found by closeness, False when they were named.")


def _compute(gpu: GPU) -> float | None:
    return gpu.bf16_tflops or gpu.fp16_tflops


def _share(candidate: GPU, part: GPU) -> Share:
    return Share(
        bf16=figure_ratio(_compute(candidate), _compute(part)),
        memory=figure_ratio(candidate.memory_gb, part.memory_gb),
        bandwidth=figure_ratio(candidate.bandwidth_gbs, part.bandwidth_gbs),
        link=figure_ratio(candidate.nvlink_gbs, part.nvlink_gbs),
    )


def _matched(candidate: GPU, part: GPU) -> EquivalentPart:
    share = _share(candidate, part)
    known = [value for value in (share.bf16, share.memory, share.bandwidth) if value]
    return EquivalentPart(gpu=candidate, share=share, distance=round(sum(abs(math.log(value)) for value in known), 3))


def find_equivalents(request: EquivalentRequest, catalog: Catalog) -> EquivalentResult:
    part = catalog.gpu(request.gpu)
    if request.candidates:
        named = list({g.id: g for g in (catalog.gpu(name) for name in request.candidates) if g.id != part.id}.values())
        return EquivalentResult(gpu=part, parts=[_matched(g, part) for g in named], searched=False)
    wanted = {vendor.casefold() for vendor in request.vendors}
    pool = [g for g in catalog.gpus if g.vendor != part.vendor and (not wanted or g.vendor.casefold() in wanted)
            and _compute(g) and not g.inference_only]  # fmt: skip
    # a data-centre part is matched among data-centre parts; a desk card among its own kind when there are any
    same_segment = [g for g in pool if g.segment == part.segment]
    pool = same_segment or [g for g in pool if g.segment == "datacenter"]
    best: dict[str, EquivalentPart] = {}
    for candidate in pool:  # one row per family: the H100 SXM and PCIe are one answer to "NVIDIA's equivalent"
        matched = _matched(candidate, part)
        family = variant_family(candidate.id)
        if family not in best or matched.distance < best[family].distance:
            best[family] = matched
    ranked = sorted(best.values(), key=lambda matched: (matched.distance, matched.gpu.name))
    return EquivalentResult(gpu=part, parts=ranked[: request.count], searched=True)
