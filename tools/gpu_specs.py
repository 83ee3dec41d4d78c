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
    job: Job | None = Field(None, description="The work the cards are weighed for: the verdict names the better card for it and the "
                            "figure that decides it (bandwidth for serving, dense compute for training); None: the differences that matter.")
    cards_per_job: int | None = Field(None, ge=1, le=100_000, description="How many cards one job spans (8 for an 8-GPU training box): "
                                      "beyond a bridged pair the card-to-card link decides first; None: one card or not said.")


Job = Literal["inference", "training", "fine_tuning"]
Figure = Literal["bandwidth", "memory", "bf16", "fp8", "link", "power"]
# What decides each job, in order: decode reads every weight per token (bandwidth), training is bound by dense compute,
# and a fine-tune must first hold the model and its optimizer state (memory) on few cards. A figure within SAME_FIGURE
# of the other card's does not decide; the next one does.
JOB_FIGURES: dict[str, tuple[Figure, ...]] = {
    "inference": ("bandwidth", "memory", "fp8", "bf16"),
    "training": ("bf16", "fp8", "link", "bandwidth", "memory"),
    "fine_tuning": ("bf16", "memory", "bandwidth", "fp8"),
}
# A job over more cards than a bridged pair exchanges gradients or activations between all of them every step: the
# card-to-card link decides first (a PCIe card's NVLink bridge joins two cards only), then the job's own order.
BRIDGED_PAIR = 2
SAME_FIGURE = 0.05
SAME_POWER = 0.2  # board power within 20% changes no server choice
FIGURE_FIELDS = {"bandwidth": "bandwidth_gbs", "memory": "memory_gb", "bf16": "bf16_tflops", "fp8": "fp8_tflops", "link": "nvlink_gbs", "power": "tdp_w"}
LOWER_IS_BETTER = ("power",)


class Edge(BaseModel):
    figure: Figure
    leader: str = Field(description="id of the card ahead on this figure (for power: the one drawing less).")
    other: str
    leader_value: float
    other_value: float | None = Field(description="None: the other card has none (no FP8, PCIe only).")
    ratio: float | None = Field(description="leader ÷ other (for power: other ÷ leader); None when the other has none.")


class JobVerdict(BaseModel):
    job: Job | None = Field(description="The job weighed; None: no job named, the differences alone.")
    pick: str | None = Field(description="id of the better card for the job (for no job: the card ahead on the most figures), "
                             "None when the two are even on every figure.")
    other: str = Field(description="id of the card it is weighed against (the runner-up on the deciding figure).")
    decided_by: Figure | None = Field(description="The figure that decides the job; None when none differs.")
    edges: list[Edge] = Field(description="Every figure on which the two differ by more than 5% or that one lacks, the deciding one first.")
    best_for_serving: str | None = Field(None, description="With no job: the card ahead on what serving rests on (bandwidth, then memory).")
    best_for_training: str | None = Field(None, description="With no job: the card ahead on what training rests on (dense compute, then FP8).")
    cards_per_job: int | None = Field(None, description="The cards one job spans, as asked; above a bridged pair the link decided first.")
    price_ratio: float | None = Field(None, description="The pick's purchase price ÷ the other's, in one currency, when both are priced.")


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
    verdict: JobVerdict | None = Field(None, description="Two or more cards: the better one for the job asked, or the differences that matter.")


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
        verdict=job_verdict(gpus, request.job, currency, request.usd_to_cny, request.cards_per_job) if len(gpus) > 1 else None,
    )


def _edge(figure: Figure, a: GPU, b: GPU) -> Edge | None:
    """The card ahead on ``figure`` and by how much; None when they are within SAME_FIGURE or neither has it."""
    field = FIGURE_FIELDS[figure]
    va, vb = getattr(a, field), getattr(b, field)
    if (not va and not vb) or field in a.unknown or field in b.unknown:  # a figure no source gives (H800 PCIe's link) decides nothing
        return None
    if figure == "fp8" and va and vb:  # both have FP8: it tracks the dense BF16 edge, only its absence is news
        return None
    if figure in LOWER_IS_BETTER:
        if not va or not vb:
            return None
        leader, other = (a, b) if va <= vb else (b, a)
        low, high = getattr(leader, field), getattr(other, field)
        return None if high - low <= SAME_POWER * high else Edge(figure=figure, leader=leader.id, other=other.id, leader_value=low,
                                                                  other_value=high, ratio=round(high / low, 2))
    if not va or not vb:  # one has none: no FP8, or PCIe only
        leader, other = (a, b) if va else (b, a)
        return Edge(figure=figure, leader=leader.id, other=other.id, leader_value=getattr(leader, field), other_value=None, ratio=None)
    leader, other = (a, b) if va >= vb else (b, a)
    high, low = getattr(leader, field), getattr(other, field)
    if high - low <= SAME_FIGURE * high:
        return None
    return Edge(figure=figure, leader=leader.id, other=other.id, leader_value=high, other_value=low, ratio=round(high / low, 2))


def _deciding(edges: dict[str, Edge], order: tuple[Figure, ...]) -> Edge | None:
    return next((edges[f] for f in order if f in edges), None)


def job_order(job: str, cards_per_job: int | None) -> tuple[Figure, ...]:
    """The figures that decide ``job`` in order; a job spread over more cards than a bridged pair puts the link first."""
    order = JOB_FIGURES[job]
    if cards_per_job is None or cards_per_job <= BRIDGED_PAIR:
        return order
    return ("link", *(f for f in order if f != "link"))


def job_verdict(gpus: list[GPU], job: Job | None, currency: Currency, usd_to_cny: float, cards_per_job: int | None = None) -> JobVerdict:
    """The better of the cards for ``job`` and the figure that decides it; with more than two cards, the best on the
    job's first figure is weighed against the runner-up. With no job: the differences, and which card serving and
    training would each take. ``cards_per_job``: a job over more than a bridged pair is decided by the link first."""
    order = JOB_FIGURES[job or "inference"]  # the runner-up is picked on the job's own first figure, spread or not
    first = FIGURE_FIELDS[order[0]]
    ranked = sorted(gpus, key=lambda g: getattr(g, first) or 0, reverse=True)
    a, b = ranked[0], ranked[1]
    edges = {f: e for f in FIGURE_FIELDS if (e := _edge(f, a, b)) is not None}
    order = job_order(job or "inference", cards_per_job)
    serving, training = _deciding(edges, job_order("inference", cards_per_job)), _deciding(edges, job_order("training", cards_per_job))
    if job:
        decided = _deciding(edges, order)
        pick = decided.leader if decided else None
    else:  # no job: a card is the pick only when serving and training would both take it
        decided = None
        leaders = {e.leader for e in (serving, training) if e is not None}
        pick = leaders.pop() if len(leaders) == 1 else None
    listed = sorted(edges.values(), key=lambda e: (e is not decided, -(e.ratio or 99)))
    price_ratio = None
    if pick:
        chosen, other = (a, b) if pick == a.id else (b, a)
        if chosen.purchase_price and other.purchase_price:
            mine = convert(chosen.purchase_price.amount, chosen.purchase_price.currency, currency, usd_to_cny)
            theirs = convert(other.purchase_price.amount, other.purchase_price.currency, currency, usd_to_cny)
            price_ratio = round(mine / theirs, 2)
    other_id = (b.id if pick == a.id else a.id) if pick else b.id
    return JobVerdict(job=job, pick=pick, other=other_id, decided_by=decided.figure if decided else None, edges=listed,
                      best_for_serving=serving.leader if serving and not job else None,
                      best_for_training=training.leader if training and not job else None, price_ratio=price_ratio,
                      cards_per_job=cards_per_job)


class GpuFilter(BaseModel):
    vendor: str | None = Field(None, description="Only this vendor, e.g. 'NVIDIA', 'AMD', 'Huawei'.")
    segment: Literal["datacenter", "workstation", "consumer", "apple"] | None = None
    min_memory_gb: float = Field(0, ge=0, description="Only GPUs with at least this much memory.")
    china_mainland: bool = Field(False, description="Only GPUs that can be bought new in mainland China.")
    training: bool = Field(False, description="Exclude inference-only devices.")


class GpuList(BaseModel):
    gpus: list[GPU]


CHINA_BUYABLE = {"available", "china-variant", "domestic"}
CHINA_USED_ONLY = {"second-hand"}  # no new supply in mainland China, installed units resold: buyable used, never offered new


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
