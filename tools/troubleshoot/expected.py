"""Expected versus measured: is a stated NCCL all_reduce bus bandwidth what the hardware should give?

Pure. The expected figure is the path's raw bandwidth per direction times the efficiency range a healthy path reaches
(``knowledge/link_expectations.yaml``): between nodes, NICs × line rate ÷ 8; inside a node, half the catalog's
two-way NVLink figure, or one PCIe x16 link of the card's generation. The shape of a shortfall (below what one NIC
gives, about one NIC, part of the NICs) names the causes to check first.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import AdvisorError
from knowledge.catalog import Catalog
from knowledge.link_expectations import LinkExpectations, Path_, Shape
from knowledge.serving import ServingData
from knowledge.wording import shipped

TEXT = shipped("troubleshoot_text.yaml")

BITS_PER_BYTE = 8
NVLINK_DIRECTIONS = 2  # the catalog's NVLink figure counts both directions; busbw is one


class MeasuredCheckRequest(BaseModel):
    """A measured all_reduce busbw and the hardware it ran on, as the user stated it."""

    model_config = ConfigDict(extra="forbid")

    measured_busbw_gbs: float = Field(ge=0.01, le=10_000, description="busbw column of nccl-tests all_reduce_perf, GB/s.")
    nodes: int | None = Field(None, ge=1, le=100_000, description="Nodes in the test; more than one means the NICs carry it.")
    nics_per_node: int | None = Field(None, ge=1, le=64, description="RDMA NICs (HCAs) per node.")
    nic_gbps: float | None = Field(None, ge=1, le=3200, description="Line rate of one NIC, Gb/s (200 for HDR/200G).")
    gpu: str | None = Field(None, description="Card, for a test inside one node (its NVLink or PCIe link).")
    gpus_per_node: int | None = Field(None, ge=1, le=72)
    interconnect: Literal["pcie", "nvlink"] | None = Field(None, description="Stated link between the node's GPUs, if any.")


class MeasuredCheck(BaseModel):
    path: Path_ = Field(description="What carried the traffic: the NICs between nodes, NVLink or PCIe inside a node.")
    measured_gbs: float
    raw_gbs: float = Field(description="The path's raw bandwidth per direction the expectation starts from, GB/s.")
    efficiency_low: float
    efficiency_high: float
    expected_low_gbs: float
    expected_high_gbs: float
    times_below: float = Field(description="Middle of the expected range ÷ measured (1 or less: not below).")
    percent_of_expected: float = Field(description="Measured as a percentage of the middle of the expected range.")
    verdict: Literal["far_below", "below", "as_expected"]
    shape: Shape | None = Field(None, description="What the shortfall looks like, when there is one.")
    one_nic_low_gbs: float | None = Field(None, description="What one of the NICs alone would give, low end.")
    one_nic_high_gbs: float | None = None
    suspects: list[str] = Field(default_factory=list, description="Rule ids of the causes to check first, likeliest first.")
    formula: str = Field(description="How the expected range was computed, with the figures used.")
    nics_per_node: int | None = None
    nic_gbps: float | None = None
    gpu: str | None = Field(None, description="Catalog name of the card, for a test inside one node.")
    pcie_gen: int | None = None
    sources: list[str]


def check_measured(
    request: MeasuredCheckRequest, catalog: Catalog, serving: ServingData, expectations: LinkExpectations
) -> MeasuredCheck:
    """The expected busbw range for the stated path, the verdict on the measured figure, and what to suspect."""
    if (request.nodes or 1) > 1 or (request.nodes is None and request.nics_per_node and request.nic_gbps):
        return _inter_node(request, expectations)
    return _intra_node(request, catalog, serving, expectations)


def _inter_node(request: MeasuredCheckRequest, expectations: LinkExpectations) -> MeasuredCheck:
    nics, rate = request.nics_per_node, request.nic_gbps
    if not nics or not rate:
        raise AdvisorError(
            "missing_nics",
            **TEXT.text("errors.missing_nics").model_dump(),
        )
    low, high = expectations.paths["inter_node"].efficiency
    raw = nics * rate / BITS_PER_BYTE
    one_low, one_high = rate / BITS_PER_BYTE * low, rate / BITS_PER_BYTE * high
    check = _judged(request.measured_busbw_gbs, raw, "inter_node", expectations)
    shape: Shape | None = None
    if check["verdict"] != "as_expected":
        if request.measured_busbw_gbs < one_low:
            shape = "below_one_nic"
        elif request.measured_busbw_gbs <= one_high and nics > 1:
            shape = "one_nic"
        else:
            shape = "part_of_nics"
    return MeasuredCheck(
        **check, shape=shape, suspects=list(expectations.suspects[shape]) if shape else [],
        one_nic_low_gbs=round(one_low, 1), one_nic_high_gbs=round(one_high, 1), nics_per_node=nics, nic_gbps=rate,
        formula=f"{nics} × {rate:g} Gb/s ÷ {BITS_PER_BYTE} × {low:g}–{high:g}",
    )  # fmt: skip


def _intra_node(
    request: MeasuredCheckRequest, catalog: Catalog, serving: ServingData, expectations: LinkExpectations
) -> MeasuredCheck:
    card = catalog.find_gpu(request.gpu) if request.gpu else None
    if card is None:
        raise AdvisorError(
            "missing_setup",
            **TEXT.text("errors.missing_setup").model_dump(),
        )
    pcie_card = card.form_factor.startswith("PCIe")
    bridged = request.interconnect == "nvlink" and (request.gpus_per_node or 0) <= expectations.bridge_max_gpus
    if card.nvlink_gbs and request.interconnect != "pcie" and (not pcie_card or bridged):
        path: Path_ = "nvlink"
        raw = card.nvlink_gbs / NVLINK_DIRECTIONS
        formula = f"{card.nvlink_gbs:g} GB/s ÷ {NVLINK_DIRECTIONS}"
    else:
        path = "pcie"
        if card.pcie_gen not in serving.interconnect.pcie_gbs_per_direction:
            raise AdvisorError(
                "unknown_link", **TEXT.text("errors.unknown_link", gpu=card.name).model_dump()
            )
        raw = serving.interconnect.pcie_gbs_per_direction[card.pcie_gen]
        formula = f"PCIe Gen{card.pcie_gen} x16 {raw:g} GB/s"
    low, high = expectations.paths[path].efficiency
    check = _judged(request.measured_busbw_gbs, raw, path, expectations)
    shape: Shape | None = None if check["verdict"] == "as_expected" else ("nvlink_short" if path == "nvlink" else "pcie_short")
    return MeasuredCheck(
        **check, shape=shape, suspects=list(expectations.suspects[shape]) if shape else [], gpu=card.name,
        pcie_gen=card.pcie_gen, formula=f"{formula} × {low:g}–{high:g}",
    )  # fmt: skip


def _judged(measured: float, raw: float, path: Path_, expectations: LinkExpectations) -> dict:
    """The fields every path shares: the expected range from ``raw`` and where ``measured`` falls in it."""
    expectation = expectations.paths[path]
    low, high = expectation.efficiency
    expected_low, expected_high = raw * low, raw * high
    middle = (expected_low + expected_high) / 2
    if measured >= expected_low:
        verdict = "as_expected"
    elif measured >= expectations.far_below_fraction * expected_low:
        verdict = "below"
    else:
        verdict = "far_below"
    return {
        "path": path, "measured_gbs": measured, "raw_gbs": round(raw, 1), "efficiency_low": low, "efficiency_high": high,
        "expected_low_gbs": round(expected_low, 1), "expected_high_gbs": round(expected_high, 1),
        "times_below": round(middle / measured, 1), "percent_of_expected": round(100 * measured / middle),
        "verdict": verdict, "sources": [expectation.source, expectations.busbw_definition],
    }  # fmt: skip
