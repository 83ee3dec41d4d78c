"""``check_gpu_claim``: is "N of part X match (or beat, or stand in for) M of part Y" true, on like-for-like figures?

A vendor's pitch ("eight consumer cards beat a data-centre server") usually sets the lowest-precision, sparse
headline figure of one part against the dense BF16 figure of the other, and sums memory across cards that share
no fast link. This tool puts both sides on the same footing: dense BF16 compute, memory per card and in all,
memory bandwidth in all, the scale-up link (NVLink / Infinity Fabric / HCCS or PCIe only) and the licence limit
on consumer cards in a data centre; the headline figure is shown beside it so the reader sees where a quoted
multiple comes from. The verdict is "true" only when the proposed side matches or beats on every figure and
carries no structural drawback; "false" when it loses on both compute and memory; "partly" otherwise.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.catalog import Catalog
from knowledge.gpus import GPU
from tools.gpu_specs import figure_ratio
from tools.recommend.configs import SERVER_GPUS, sold_as

Verdict = Literal["true", "false", "partly"]
Drawback = Literal["no_scale_up_link", "consumer_licence", "no_bf16"]
MAX_CARDS = 1024


class ClaimSideRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(description="GPU name or alias, e.g. 'RTX 4090', 'H100'.")
    count: int | None = Field(None, ge=1, le=MAX_CARDS, description="Cards on this side; None = one card, or one server when whole_server.")
    whole_server: bool = Field(False, description="The side is one server ('a DGX H100'): a board-mounted part counts its 8-GPU board.")


class ClaimRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    proposed: ClaimSideRequest = Field(description="The side the claim promotes (the cheaper or substitute part).")
    incumbent: ClaimSideRequest = Field(description="The side it is said to match, beat or replace.")


class ClaimSide(BaseModel):
    gpu_id: str
    name: str
    count: int
    bf16_tflops_card: float | None = Field(description="Dense BF16 TFLOPS per card (no sparsity).")
    bf16_tflops_total: float | None
    headline_tflops_card: float | None = Field(description="The largest figure a spec sheet prints: the lowest precision, doubled when the part has 2:4 sparsity.")
    headline_precision: str | None = Field(description="Precision of the headline figure: fp4, fp8, int8 or bf16.")
    headline_sparse: bool = Field(description="The headline figure counts 2:4 structured sparsity (twice the dense rate).")
    memory_gb_card: float
    memory_gb_total: float
    bandwidth_tb_s_total: float
    scale_up_gbs: float | None = Field(description="GPU-to-GPU link per card (NVLink, Infinity Fabric, HCCS), GB/s; None = PCIe only.")
    consumer: bool = Field(description="A GeForce-class card: NVIDIA's driver licence bars data-centre deployment.")


class ClaimCheck(BaseModel):
    proposed: ClaimSide
    incumbent: ClaimSide
    compute_ratio: float | None = Field(description="Proposed ÷ incumbent dense BF16 TFLOPS in all; None when either has no BF16.")
    memory_ratio: float = Field(description="Proposed ÷ incumbent memory in all.")
    bandwidth_ratio: float = Field(description="Proposed ÷ incumbent memory bandwidth in all.")
    headline_ratio: float | None = Field(description="Proposed headline ÷ incumbent dense BF16: the multiple a pitch built on the headline implies.")
    drawbacks: list[Drawback] = Field(description="Structural limits of the proposed side the incumbent does not have.")
    verdict: Verdict


def _headline(gpu: GPU) -> tuple[float | None, str | None]:
    for precision in ("fp4", "fp8", "int8", "bf16"):
        value = getattr(gpu, f"{precision}_tflops" if precision != "int8" else "int8_tops")
        if value:
            return value, precision
    return None, None


def _side(request: ClaimSideRequest, catalog: Catalog) -> ClaimSide:
    gpu = catalog.gpu(request.gpu)
    count = request.count or (SERVER_GPUS if request.whole_server and sold_as(gpu) == "board" else 1)
    dense, precision = _headline(gpu)
    sparse = bool(gpu.sparsity_2_4) and dense is not None
    return ClaimSide(
        gpu_id=gpu.id, name=gpu.name, count=count,
        bf16_tflops_card=gpu.bf16_tflops, bf16_tflops_total=round(gpu.bf16_tflops * count, 1) if gpu.bf16_tflops else None,
        headline_tflops_card=round(dense * (2 if sparse else 1), 1) if dense else None, headline_precision=precision, headline_sparse=sparse,
        memory_gb_card=gpu.memory_gb, memory_gb_total=round(gpu.memory_gb * count, 1),
        bandwidth_tb_s_total=round(gpu.bandwidth_gbs * count / 1000, 2),
        scale_up_gbs=gpu.nvlink_gbs, consumer=gpu.segment == "consumer",
    )


def check_gpu_claim(request: ClaimRequest, catalog: Catalog) -> ClaimCheck:
    proposed, incumbent = _side(request.proposed, catalog), _side(request.incumbent, catalog)
    drawbacks: list[Drawback] = []
    if proposed.scale_up_gbs is None and incumbent.scale_up_gbs is not None and proposed.count > 1:
        drawbacks.append("no_scale_up_link")  # the cards share a model over PCIe, the other side over NVLink
    if proposed.consumer and not incumbent.consumer:
        drawbacks.append("consumer_licence")
    if proposed.bf16_tflops_card is None and incumbent.bf16_tflops_card is not None:
        drawbacks.append("no_bf16")
    compute = figure_ratio(proposed.bf16_tflops_total, incumbent.bf16_tflops_total)
    memory = figure_ratio(proposed.memory_gb_total, incumbent.memory_gb_total) or 0.0
    bandwidth = figure_ratio(proposed.bandwidth_tb_s_total, incumbent.bandwidth_tb_s_total) or 0.0
    headline = figure_ratio(proposed.headline_tflops_card and proposed.headline_tflops_card * proposed.count, incumbent.bf16_tflops_total)
    wins = [compute is not None and compute >= 1, memory >= 1, bandwidth >= 1]
    if all(wins) and not drawbacks:
        verdict: Verdict = "true"
    elif not wins[0] and not wins[1]:
        verdict = "false"
    else:
        verdict = "partly"
    return ClaimCheck(proposed=proposed, incumbent=incumbent, compute_ratio=compute, memory_ratio=memory, bandwidth_ratio=bandwidth,
                      headline_ratio=headline, drawbacks=drawbacks, verdict=verdict)
