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
# End-to-end gain of FP8 training over BF16 on the same H100/H200s, large models (Llama-3.1-70B/405B, torchao float8:
# 1.43-1.51x tensorwise, 1.34-1.43x rowwise at 2K-GPU scale): pytorch/ao README, Nov 2024 - Apr 2025,
# https://github.com/pytorch/ao (consultant-facts.md section 5). Small models gain little or nothing (torchtitan float8 docs).
FP8_TRAINING_GAIN = (1.34, 1.51)
FP8_TRAINING_SOURCE = ("pytorch/ao README: float8 training speed-ups on H100 (Nov 2024 - Apr 2025)", "https://github.com/pytorch/ao")


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
    bf16_sparse_card: float | None = Field(None, description="The BF16 figure a sheet prints with 2:4 sparsity (twice the dense rate); None without sparsity or BF16.")
    fp8_tflops_card: float | None = Field(None, description="Dense FP8 TFLOPS per card; None = no FP8.")
    fp8_sparse_card: float | None = Field(None, description="The FP8 figure a sheet prints with 2:4 sparsity; None without sparsity or FP8.")
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
    decode_ratio: float | None = Field(None, description="Card for card, proposed ÷ incumbent memory bandwidth: what decode "
                                       "(bandwidth-bound serving) gains.")
    compute_card_ratio: float | None = Field(None, description="Card for card, proposed ÷ incumbent dense BF16: what compute-bound "
                                             "work (training, prefill) gains in BF16.")
    fp8_side: Literal["proposed", "incumbent"] | None = Field(None, description="The side with FP8 when the other has none.")
    fp8_gain: tuple[float, float] = Field(FP8_TRAINING_GAIN, description="End-to-end gain of FP8 over BF16 training on large models "
                                          "(measured, pytorch/ao).")
    fp8_high: float | None = Field(None, description="compute_card_ratio × the top FP8 gain, when only the faster proposed side has FP8.")


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
        bf16_sparse_card=gpu.bf16_tflops * 2 if gpu.bf16_tflops and gpu.sparsity_2_4 else None, fp8_tflops_card=gpu.fp8_tflops,
        fp8_sparse_card=gpu.fp8_tflops * 2 if gpu.fp8_tflops and gpu.sparsity_2_4 else None,
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
    decode = figure_ratio(proposed.bandwidth_tb_s_total / proposed.count, incumbent.bandwidth_tb_s_total / incumbent.count)
    compute_card = figure_ratio(proposed.bf16_tflops_card, incumbent.bf16_tflops_card)
    fp8_side = None
    if bool(proposed.fp8_tflops_card) != bool(incumbent.fp8_tflops_card):
        fp8_side = "proposed" if proposed.fp8_tflops_card else "incumbent"
    fp8_high = round(compute_card * FP8_TRAINING_GAIN[1], 1) if compute_card and compute_card >= 1 and fp8_side == "proposed" else None
    return ClaimCheck(proposed=proposed, incumbent=incumbent, compute_ratio=compute, memory_ratio=memory, bandwidth_ratio=bandwidth,
                      headline_ratio=headline, drawbacks=drawbacks, verdict=verdict, decode_ratio=decode,
                      compute_card_ratio=compute_card, fp8_side=fp8_side, fp8_high=fp8_high)
