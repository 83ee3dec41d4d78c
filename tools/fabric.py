"""Scale-out fabric for a cluster of GPU servers: how many leaf and spine switches and cables a non-blocking,
rail-optimised two-tier fat tree takes, for each fabric option on file (InfiniBand, Spectrum-X, Broadcom Ethernet).

Model: one 400 Gb/s NIC per GPU; GPU k of every server connects to the leaves of rail k, so each rail is its own
set of leaves (a leaf gives half its ports to servers, half to spines: 1:1, non-blocking). When every NIC fits on one
switch there is no spine. Uplinks equal the downlinks in use, and the spines take them at full radix. A two-tier tree
reaches radix² / 2 NICs; past that a third tier is needed and the answer says so instead of counting one.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import AdvisorError, Text
from knowledge.facility import FacilityBook
from knowledge.wording import shipped
from tools.checks import INPUT_NAMES, check_range
from tools.common import LineItem, formula_fields

NIC_GBPS = 400  # the line rate of the one NIC per GPU the model counts (the switches' ports_400g are of this rate)
TEXT = shipped("fabric_text.yaml")
ERRORS = shipped("input_errors_text.yaml")


class FabricRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    servers: int = Field(description="GPU servers (nodes) to connect.")
    gpus_per_server: int = Field(8, description="GPUs per server; one 400 Gb/s NIC per GPU, one rail per GPU.")
    fabric: str | None = Field(None, description="'infiniband', 'spectrum-x' or 'broadcom'; default: every option on file.")


class FabricPlan(BaseModel):
    """One fabric option sized for the cluster."""

    fabric: str
    name: Text
    switch: str
    ports_400g: int
    tiers: int = Field(description="1 (one switch), 2 (leaf and spine) or 3 (beyond two tiers: not counted).")
    leaves: int
    spines: int
    switches: int
    nic_cables: int = Field(description="Server-to-leaf links: one per NIC.")
    spine_cables: int = Field(description="Leaf-to-spine links.")
    max_servers_two_tier: int = Field(description="Servers a two-tier tree of this switch reaches at this GPU count.")
    strengths: Text
    caveats: Text
    date: str
    url: str
    title: str
    items: list[LineItem]


class FabricResult(BaseModel):
    servers: int
    gpus_per_server: int
    nics: int
    nic_gbps: float = Field(NIC_GBPS, description="Line rate of each NIC counted, Gb/s: a stated link of another rate is not this plan.")
    plans: list[FabricPlan]


def size_fabric(request: FabricRequest, book: FacilityBook) -> FabricResult:
    check_range(request.servers, *INPUT_NAMES.pair("servers"), minimum=1, maximum=100_000, code="invalid_gpu_count")
    check_range(request.gpus_per_server, *INPUT_NAMES.pair("gpus_per_server"), minimum=1, maximum=16, code="invalid_gpu_count")
    fabrics = book.data.fabrics
    if request.fabric is not None:
        chosen = book.data.fabric(request.fabric)
        if chosen is None:
            known = ", ".join(f.id for f in fabrics)
            raise AdvisorError("invalid_fabric", **ERRORS.text("invalid_fabric", fabric=request.fabric, known=known).model_dump(), suggestions=["fabric"])
        fabrics = (chosen,)
    plans = [_plan(fabric, request.servers, request.gpus_per_server) for fabric in fabrics]
    return FabricResult(servers=request.servers, gpus_per_server=request.gpus_per_server, nics=request.servers * request.gpus_per_server,
                        plans=plans)  # fmt: skip


def _plan(fabric, servers: int, rails: int) -> FabricPlan:
    radix = fabric.ports_400g
    nics = servers * rails
    per_leaf = radix // 2  # servers one leaf takes on its rail, the other half of its ports going up
    max_servers = per_leaf * radix // rails  # a spine of `radix` ports reaches `radix` leaves
    if nics <= radix:
        tiers, leaves, spines, uplinks = 1, 1, 0, 0
        how = TEXT.text("one_switch", servers=servers, rails=rails, nics=nics, radix=radix)
    elif servers <= max_servers:
        tiers = 2
        leaves_per_rail = math.ceil(servers / per_leaf)
        leaves = rails * leaves_per_rail
        uplinks = nics  # 1:1: every downlink in use has an uplink
        spines = math.ceil(uplinks / radix)
        how = TEXT.text("two_tiers", rails=rails, servers=servers, per_leaf=per_leaf, leaves=leaves, uplinks=uplinks, radix=radix, spines=spines)
    else:
        tiers, leaves, spines, uplinks = 3, 0, 0, 0
        how = TEXT.text("three_tiers", servers=servers, max_servers=max_servers, radix=radix)
    items = [
        LineItem(key="switches", label=TEXT.text("labels.switches"), value=leaves + spines, unit="switches", **formula_fields(how)),
        LineItem(key="nic_cables", label=TEXT.text("labels.nic_cables"), value=nics if tiers < 3 else 0,
                 unit="links", formula=f"{servers} × {rails} = {nics}", formula_zh=f"{servers} × {rails} = {nics}"),
        LineItem(key="spine_cables", label=TEXT.text("labels.spine_cables"), value=uplinks, unit="links",
                 **formula_fields(TEXT.text("spine_links", uplinks=uplinks))),
    ]  # fmt: skip
    return FabricPlan(
        fabric=fabric.id, name=fabric.name, switch=fabric.switch, ports_400g=radix, tiers=tiers, leaves=leaves, spines=spines,
        switches=leaves + spines, nic_cables=nics if tiers < 3 else 0, spine_cables=uplinks, max_servers_two_tier=max_servers,
        strengths=fabric.strengths, caveats=fabric.caveats, date=fabric.date, url=fabric.source.url, title=fabric.source.title, items=items,
    )  # fmt: skip
