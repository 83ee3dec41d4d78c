"""Which GPU, how many, and how to split the work: ranked options for a workload.

Per-GPU memory depends on the GPU count and parallel plan but not on the GPU type, so the
estimator runs once per candidate count; each GPU's capacity is then compared against it and
the chosen (GPU, count) pairs are confirmed by the estimator's own verdict.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.gpus import GPU, Price
from tools.checks import check_range
from tools.cost.money import DEFAULT_USD_TO_CNY, Currency, check_exchange_rate, normalize_currency
from tools.memory.constants import GB, GIB, TIGHT_FRACTION
from tools.memory.estimator import estimate_memory
from tools.memory.schema import MemoryEstimate, MemoryRequest
from tools.memory.verdict import unit_note

Task = Literal["inference", "lora", "qlora", "full_finetune", "pretrain"]
GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
CHINA_BUYABLE = {"available", "china-variant", "domestic"}
# Past one server the plan needs a fast fabric; consumer cards and Apple machines don't scale there.
MAX_COUNT_BY_SEGMENT = {"consumer": 8, "workstation": 8, "apple": 1, "datacenter": GPU_COUNTS[-1]}


class RecommendRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(None, description="Model name/alias, bare size ('7B', '70亿') or config.json text.")
    params_b: float | None = Field(None, description="Parameters in billions, when no model is named.")
    task: Task = Field("inference", description="inference (serving), lora, qlora, full_finetune or pretrain.")
    precision: str | None = Field(None, description="Weight precision for inference (bf16 default; fp8, int8, int4, awq-int4, q4_k_m…).")
    context: int = Field(4096, description="Tokens per sequence.")
    batch: int = Field(1, description="Concurrent sequences (inference) or micro-batch per GPU (training).")
    budget: float | None = Field(None, description="Purchase budget for the GPUs, in `currency`.")
    currency: str = Field("USD", description="'USD' or 'CNY'.")
    usd_to_cny: float = Field(DEFAULT_USD_TO_CNY, description="CNY per USD for converting catalog prices.")
    region: Literal["global", "cn"] = Field("global", description="'cn' keeps only GPUs that can be bought new in mainland China.")
    gpus: list[str] | None = Field(None, description="Only consider these GPUs (names or aliases).")
    max_gpus: int = Field(64, description="Largest GPU count to consider (1–512).")
    top: int = Field(5, description="How many options to return (1–20).")


class Option(BaseModel):
    gpu_id: str
    gpu_name: str
    count: int
    plan: str = Field(description="Parallel plan, e.g. 'single GPU', 'TP=4', 'ZeRO-3 over 8 GPUs'.")
    plan_label: Text = Field(description="The plan in both languages, e.g. 'single GPU' / '单卡'.")
    tp: int
    zero_stage: int
    per_gpu_gb: float = Field(description="Peak memory per GPU, GB = 10^9 bytes.")
    nominal_memory_gb: float = Field(description="The card's memory as sold (the catalog's nominal size, binary: 80 means 80 GiB).")
    capacity_gb: float = Field(description="Usable memory per GPU in GB = 10^9 bytes (80 GiB = 85.9 GB).")
    headroom_pct: float
    verdict: str
    purchase_cost: float | None = Field(None, description="count × indicative purchase price, in `currency`.")
    cloud_cost_per_hour: float | None = Field(None, description="count × indicative cloud price per GPU-hour.")
    within_budget: bool | None = None
    reasons: list[Text] = Field(default_factory=list)


class Recommendation(BaseModel):
    model_id: str
    model_name: str
    model_label: Text = Field(description="The model's display name in both languages.")
    params_b: float
    task: Task
    currency: Currency
    options: list[Option] = Field(description="Ranked: within budget first, then fewest GPUs, then cheapest purchase, then most headroom.")
    estimate: MemoryEstimate | None = Field(None, description="Full itemised estimate behind the top option.")
    excluded: list[Text] = Field(default_factory=list, description="What was left out and why (region, inference-only…).")
    notes: list[Text] = Field(default_factory=list)
    unit_note: Text = Field(description="One sentence on units (GB = 10^9 bytes, cards sold in GiB), to show once.")


def recommend_gpus(request: RecommendRequest, catalog: Catalog) -> Recommendation:
    currency = normalize_currency(request.currency)
    check_exchange_rate(request.usd_to_cny)
    check_range(request.max_gpus, "Maximum GPUs", "最大GPU数", minimum=1, maximum=GPU_COUNTS[-1], code="invalid_gpu_count")
    check_range(request.top, "Number of options", "返回方案数", minimum=1, maximum=20, code="invalid_top")
    if request.budget is not None:
        check_range(request.budget, "Budget", "预算", minimum=0, maximum=1e11, exclusive_minimum=True, code="invalid_budget")
    candidates, excluded = _candidates(request, catalog)
    counts = [c for c in GPU_COUNTS if c <= request.max_gpus]
    per_count = {c: _estimate(request, catalog, c) for c in counts}
    per_count = {c: e for c, e in per_count.items() if e is not None}
    # Each option keeps the confirmed estimate behind it, so the top one's breakdown is not recomputed.
    ranked: list[tuple[Option, MemoryEstimate]] = []
    for gpu in candidates:
        choice = _smallest_count(gpu, request, catalog, per_count)
        if choice is not None:
            ranked.append((_option(gpu, *choice, request, currency), choice[1]))
    # Fewer GPUs first: each split adds communication, failure points and engineering work.
    ranked.sort(key=lambda pair: _rank(pair[0]))
    options = [option for option, _ in ranked]
    first = next(iter(per_count.values()), None) or _estimate(request, catalog, 1, strict=True)
    top = options[: request.top]
    return Recommendation(
        model_id=first.model_id,
        model_name=first.model_name,
        model_label=first.model_label,
        params_b=first.params_b,
        task=request.task,
        currency=currency,
        options=top,
        estimate=ranked[0][1] if ranked else None,
        excluded=excluded,
        notes=_notes(request, options, counts),
        unit_note=unit_note(catalog.gpu(top[0].gpu_id) if top else None),
    )


def _rank(o: Option) -> tuple:
    return (_budget_rank(o.within_budget), o.count, o.purchase_cost is None, o.purchase_cost or 0, -o.headroom_pct)


def _budget_rank(within_budget: bool | None) -> int:
    """Known to fit the budget, then unknown price, then over budget."""
    return {True: 0, None: 1, False: 2}[within_budget]


def _candidates(request: RecommendRequest, catalog: Catalog) -> tuple[list[GPU], list[Text]]:
    gpus = [catalog.gpu(name) for name in request.gpus] if request.gpus else list(catalog.gpus)
    excluded: list[Text] = []
    if request.region == "cn":
        blocked = [g.name for g in gpus if g.china not in CHINA_BUYABLE]
        gpus = [g for g in gpus if g.china in CHINA_BUYABLE]
        if blocked:
            excluded.append(Text(
                en=f"Not sold new in mainland China (export controls): {', '.join(blocked[:8])}{'…' if len(blocked) > 8 else ''}.",
                zh=f"受出口管制、中国大陆买不到新卡：{'、'.join(blocked[:8])}{'等' if len(blocked) > 8 else ''}。",
            ))
    if request.task != "inference":
        inference_only = [g.name for g in gpus if g.inference_only]
        gpus = [g for g in gpus if not g.inference_only]
        if inference_only:
            excluded.append(Text(
                en=f"Inference-only devices left out of training: {', '.join(inference_only)}.",
                zh=f"仅适合推理、不参与训练推荐的设备：{'、'.join(inference_only)}。",
            ))
    return gpus, excluded


def _zero_stage(request: RecommendRequest, count: int) -> int:
    """Training on several GPUs shards everything (ZeRO-3/FSDP), LoRA's frozen base included."""
    return 3 if count > 1 and request.task != "inference" else 0


def _memory_request(request: RecommendRequest, count: int, gpu: str | None = None) -> MemoryRequest:
    common = dict(model=request.model, params_b=request.params_b, context=request.context, batch=request.batch, gpu=gpu)
    if request.task == "inference":
        tp = min(count, 8)
        return MemoryRequest(mode="inference", precision=request.precision, tp=tp, pp=count // tp, num_gpus=count, **common)
    method = {"lora": "lora", "qlora": "qlora"}.get(request.task, "full")
    zero = _zero_stage(request, count)
    precision = request.precision if request.task == "qlora" else None
    return MemoryRequest(mode="training", method=method, precision=precision, zero_stage=zero, num_gpus=count, **common)


def _estimate(request: RecommendRequest, catalog: Catalog, count: int, strict: bool = False) -> MemoryEstimate | None:
    try:
        return estimate_memory(_memory_request(request, count), catalog)
    except AdvisorError:
        # e.g. a TP degree that does not divide the attention heads: that count is not a valid plan
        if strict:
            raise
        return None


def _smallest_count(gpu: GPU, request: RecommendRequest, catalog: Catalog, per_count: dict[int, MemoryEstimate]):
    limit = MAX_COUNT_BY_SEGMENT[gpu.segment]
    for count, estimate in per_count.items():
        if count > limit:
            break
        # Catalog sizes are binary (an "80 GB" card holds 80 GiB), as the estimator assumes. A plan
        # must "fit", not merely squeeze in: allocator spikes and fragmentation eat the last 10%.
        if estimate.total_per_gpu_gb <= gpu.memory_gb * GIB / GB * TIGHT_FRACTION:
            confirmed = _confirm(request, catalog, gpu.id, count)
            if confirmed.verdict == "fits":
                return count, confirmed
    return None


def _confirm(request: RecommendRequest, catalog: Catalog, gpu_id: str, count: int) -> MemoryEstimate:
    return estimate_memory(_memory_request(request, count, gpu_id), catalog)


def _price(price: Price | None, count: int, currency: Currency, usd_to_cny: float) -> float | None:
    if price is None:
        return None
    amount = price.amount
    if price.currency != currency:
        amount = amount * usd_to_cny if currency == "CNY" else amount / usd_to_cny
    return round(amount * count, 2)


def _plan(request: RecommendRequest, count: int, zero_stage: int) -> Text:
    if count == 1:
        return Text(en="single GPU", zh="单卡")
    if request.task == "inference":
        plan = f"TP={count}" if count <= 8 else f"TP=8 × PP={count // 8}"
        return Text(en=plan, zh=plan)
    if zero_stage:
        return Text(en=f"ZeRO-{zero_stage} over {count} GPUs", zh=f"{count} 卡 ZeRO-{zero_stage}")
    return Text(en=f"data parallel over {count} GPUs", zh=f"{count} 卡数据并行")


def _option(gpu: GPU, count: int, estimate: MemoryEstimate, request: RecommendRequest, currency: Currency) -> Option:
    purchase = _price(gpu.purchase_price, count, currency, request.usd_to_cny)
    cloud = _price(gpu.cloud_price, count, currency, request.usd_to_cny)
    within = None if request.budget is None or purchase is None else purchase <= request.budget
    zero_stage = _zero_stage(request, count)
    capacity = estimate.gpu_capacity_gb or gpu.memory_gb * GIB / GB
    need, nominal, room = f"{estimate.total_per_gpu_gb:.1f}", f"{gpu.memory_gb:g}", f"{estimate.headroom_pct:.0f}%"
    reasons = [Text(
        en=f"needs {need} GB per GPU; the card sold as {nominal} GB holds {capacity:.1f} GB ({room} headroom)",
        zh=f"每卡需要 {need} GB；标称 {nominal} GB 的卡实有 {capacity:.1f} GB（余量 {room}）",
    )]
    if count > 8:
        reasons.append(Text(en="spans several servers: needs InfiniBand/RoCE between nodes", zh="需要多台服务器，节点间需 InfiniBand/RoCE 高速网络"))
    elif count > 1 and not gpu.nvlink_gbs:
        reasons.append(Text(en="PCIe only: splitting across cards costs speed", zh="仅PCIe互联：多卡切分会损失速度"))
    if gpu.china == "export-controlled" and request.region != "cn":
        reasons.append(Text(en="not sold new in mainland China", zh="中国大陆买不到新卡（出口管制）"))
    if gpu.inference_only:
        reasons.append(Text(en="inference only (no practical training)", zh="仅适合推理"))
    plan = _plan(request, count, zero_stage)
    return Option(
        gpu_id=gpu.id,
        gpu_name=gpu.name,
        count=count,
        plan=plan.en,
        plan_label=plan,
        tp=min(count, 8) if request.task == "inference" else 1,
        zero_stage=zero_stage,
        per_gpu_gb=estimate.total_per_gpu_gb,
        nominal_memory_gb=gpu.memory_gb,
        capacity_gb=capacity,
        headroom_pct=estimate.headroom_pct or 0.0,
        verdict=estimate.verdict or "fits",
        purchase_cost=purchase,
        cloud_cost_per_hour=cloud,
        within_budget=within,
        reasons=reasons,
    )


def _notes(request: RecommendRequest, options: list[Option], counts: list[int]) -> list[Text]:
    notes: list[Text] = []
    if not options:
        notes.append(Text(
            en=f"Nothing in the catalog fits with up to {counts[-1]} GPUs; try quantisation, QLoRA, or allow more GPUs.",
            zh=f"在最多 {counts[-1]} 张卡的范围内没有可行方案；可以尝试量化、QLoRA，或放宽最大卡数。",
        ))
    elif request.budget is not None and not any(o.within_budget for o in options):
        notes.append(Text(en="No option fits the budget; the cheapest ones are listed.", zh="没有方案在预算之内，下面列出最便宜的几种。"))
    return notes
