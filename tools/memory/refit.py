"""When a job does not fit its card: how many of that card hold it, and the cheaper routes that do fit.

A consultant never stops at "does not fit, headroom −500%": the answer is the count of the same card that
holds the job and what would need fewer cards (FP8 or INT4 weights for serving; LoRA, QLoRA, CPU offload
or a larger card for training). Every figure here is another run of the same estimator, so the routes
carry the same itemised arithmetic as the estimate they replace.
"""

from __future__ import annotations

import math
from typing import Callable

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.gpus import GPU
from tools.cost.money import DEFAULT_USD_TO_CNY, convert
from tools.memory.items import MEMORY_TEXT
from tools.memory.schema import FitPlan, MemoryEstimate, MemoryRequest, Route
from tools.precision import computes_in_fp8, weight_format

# GPU counts tried, in the steps servers come in: one server's 1-8, then whole servers of 8.
COUNTS = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512)
SERVER_GPUS = 8
LARGER_CARD_GB = 80  # the card usually rented when a smaller one is too small (A100/H100 80GB)
INT4_FORMAT = "awq-int4"
SMALLEST_MODEL_B = 0.5
KV_SHARE_WORTH_HALVING = 0.25  # a KV cache under a quarter of the memory is not the lever
FP8_KV_VENDORS = frozenset({"NVIDIA", "AMD"})

ROUTE_LABELS: dict[str, Text] = {route: MEMORY_TEXT.text(f"routes.{route}") for route in MEMORY_TEXT.entry("routes")}


Estimator = Callable[[MemoryRequest], MemoryEstimate]


def _layout(request: MemoryRequest, count: int) -> dict:
    """The request spread over ``count`` GPUs the way a consultant would: tensor parallel inside a server and
    pipeline stages across servers for serving; ZeRO-3/FSDP sharding with activation checkpointing for training (the
    activations are not sharded, so a count without checkpointing would be far larger than the one anyone runs)."""
    if request.mode == "inference":
        tp = min(count, SERVER_GPUS)
        return {"tp": tp, "pp": count // tp, "num_gpus": count}
    if count == 1:
        sharded = 3 if request.offload != "none" else 0
        return {"num_gpus": 1, "tp": 1, "pp": 1, "zero_stage": sharded, "fsdp": None}
    return {"num_gpus": count, "tp": 1, "pp": 1, "zero_stage": 3, "fsdp": None, "recompute": "full"}


def _at(estimate: Estimator, request: MemoryRequest, count: int) -> MemoryEstimate | None:
    try:
        return estimate(request.model_copy(update=_layout(request, count)))
    except AdvisorError:  # e.g. a tensor-parallel degree that does not divide the heads: not a valid layout
        return None


def _fewest(estimate: Estimator, request: MemoryRequest) -> tuple[int, MemoryEstimate] | None:
    for count in COUNTS:
        found = _at(estimate, request, count)
        if found is not None and found.verdict == "fits":
            return count, found
    return None


def _micro_batch_one(request: MemoryRequest) -> MemoryRequest | None:
    """A training micro-batch above 1 at micro-batch 1, gradient accumulation keeping the effective batch and activation
    checkpointing on: the first lever before adding cards, as ZeRO-3 shards the model states, never one micro-batch's
    activations; None when there is no such step (serving, or micro-batch 1 already)."""
    if request.mode != "training" or request.batch <= 1:
        return None
    return request.model_copy(update={"batch": 1, "grad_accumulation": request.batch * request.grad_accumulation, "recompute": "full"})


def _fewest_sized(estimate: Estimator, request: MemoryRequest) -> tuple[MemoryRequest, tuple[int, MemoryEstimate] | None]:
    """The request and the fewest cards that hold it, at the asked micro-batch or at micro-batch 1 when that needs fewer."""
    fewest = _fewest(estimate, request)
    smaller = _micro_batch_one(request)
    if smaller is None:
        return request, fewest
    try:
        at_one = _fewest(estimate, smaller)
    except AdvisorError:
        return request, fewest
    if at_one is not None and (fewest is None or at_one[0] < fewest[0]):
        return smaller, at_one
    return request, fewest


def _route(key: str, gpu: GPU, estimate: Estimator, request: MemoryRequest, your_count: int) -> Route | None:
    try:
        sized, fewest = _fewest_sized(estimate, request)
    except AdvisorError:
        return None
    count, found = fewest if fewest else (None, None)
    route = Route(key=key, label=ROUTE_LABELS[key], gpu_id=gpu.id, gpu=gpu.name, count=count, precision=request.precision, kv_precision=request.kv_precision)
    if sized is not request:  # held at micro-batch 1: said with the accumulation that keeps the batch
        route.micro_batch, route.grad_accumulation = sized.batch, sized.grad_accumulation
    request = sized
    if your_count > 1:  # the user's own GPUs: the memory per GPU on them
        found = _at(estimate, request, your_count)
        route.fits_your_count = found is not None and found.verdict in ("fits", "tight")
    if found is not None:
        route.per_gpu_gb = found.total_per_gpu_gb
        route.tp, route.pp = found.tp, found.pp
        route.host_ram_gb = found.host_ram_gb
    return route


def fp8_kv_supported(gpu: GPU) -> bool:
    """An FP8 KV cache: vLLM and SGLang store it on NVIDIA (Ampere included, E5M2) and AMD cards; elsewhere unknown."""
    return getattr(gpu, "vendor", None) in FP8_KV_VENDORS


def _price_usd(gpu: GPU, count: int) -> float:
    price = gpu.purchase_price
    if price is None:
        return math.inf
    return convert(price.amount, price.currency, "USD", DEFAULT_USD_TO_CNY) * count


def _fp8_card_route(estimate: Estimator, request: MemoryRequest, asked: GPU, catalog: Catalog) -> Route | None:
    """The cheapest data-center card of the same vendor that computes in FP8 and holds the FP8 release."""
    best: tuple[float, Route] | None = None
    for gpu in catalog.gpus:
        if gpu.segment != "datacenter" or gpu.vendor != asked.vendor or not gpu.fp8_tflops or gpu.purchase_price is None:
            continue
        route = _route("fp8_card", gpu, estimate, request.model_copy(update={"gpu": gpu.id}), 1)
        if route is None or route.count is None:
            continue
        cost = _price_usd(gpu, route.count)
        if best is None or cost < best[0]:
            best = (cost, route)
    return best[1] if best else None


def _largest_model(estimate: Estimator, request: MemoryRequest, gpu: GPU, your_count: int, too_big_b: float) -> Route | None:
    """The largest generic dense model that fits the same method on the user's GPUs (bisection on parameters)."""
    def fits(params_b: float) -> bool:
        generic = request.model_copy(update={"model": None, "params_b": params_b})
        found = _at(estimate, generic, your_count)
        return found is not None and found.verdict == "fits"

    low, high = SMALLEST_MODEL_B, too_big_b
    try:
        if not fits(low):
            return None
        for _ in range(12):
            middle = (low + high) / 2
            low, high = (middle, high) if fits(middle) else (low, middle)
    except AdvisorError:
        return None
    size = math.floor(low * 10) / 10 if low < 10 else float(math.floor(low))
    found = _at(estimate, request.model_copy(update={"model": None, "params_b": size}), your_count)
    return Route(key="smaller_model", label=ROUTE_LABELS["smaller_model"], gpu_id=gpu.id, gpu=gpu.name, count=your_count,
                 per_gpu_gb=found.total_per_gpu_gb if found else None, fits_your_count=True, params_b=size)  # fmt: skip


def _serving_routes(estimate: Estimator, request: MemoryRequest, result: MemoryEstimate, gpu: GPU, your_count: int, catalog: Catalog) -> list[Route]:
    bits = weight_format(result.weights_precision).bits
    routes = []
    if bits > 8 and computes_in_fp8("fp8", gpu.fp8_tflops):
        routes.append(_route("fp8", gpu, estimate, request.model_copy(update={"precision": "fp8"}), your_count))
    if bits > 4.5:
        routes.append(_route("int4", gpu, estimate, request.model_copy(update={"precision": INT4_FORMAT}), your_count))
    shipped = catalog.model(result.model_id).shipped_precision if result.model_id in {m.id for m in catalog.models} else None
    if request.precision is None and shipped and not computes_in_fp8(shipped, gpu.fp8_tflops) and gpu.id in {g.id for g in catalog.gpus}:
        routes.append(_fp8_card_route(estimate, request, gpu, catalog))
    kv = next((i.value for i in result.items if i.key == "kv_cache"), 0.0)
    if kv > KV_SHARE_WORTH_HALVING * result.total_per_gpu_gb and (request.kv_precision or "bf16") in ("bf16", "fp16") and fp8_kv_supported(gpu):
        routes.append(_route("fp8_kv", gpu, estimate, request.model_copy(update={"kv_precision": "fp8"}), your_count))
    return [r for r in routes if r is not None]


def _training_routes(estimate: Estimator, request: MemoryRequest, result: MemoryEstimate, gpu: GPU, your_count: int, catalog: Catalog) -> list[Route]:
    routes = []
    adapters = {"optimizer": "adamw", "offload": "none", "precision": None}
    if request.method in ("full", "freeze"):  # order: adapters first (quality close to full), offload (slow), other hardware
        routes.append(_route("lora", gpu, estimate, request.model_copy(update={**adapters, "method": "lora"}), your_count))
    if request.method != "qlora":
        routes.append(_route("qlora", gpu, estimate, request.model_copy(update={**adapters, "method": "qlora"}), your_count))
    if request.method == "full" and request.offload == "none":
        routes.append(_route("offload", gpu, estimate, request.model_copy(update={"offload": "optimizer_and_params"}), your_count))
    if gpu.memory_gb < LARGER_CARD_GB and your_count == 1:
        larger = min((g for g in catalog.gpus if g.segment == "datacenter" and g.memory_gb == LARGER_CARD_GB and g.bf16_tflops and g.cloud_price),
                     key=lambda g: convert(g.cloud_price.amount, g.cloud_price.currency, "USD", DEFAULT_USD_TO_CNY), default=None)  # fmt: skip
        if larger is not None:
            routes.append(_route("larger_card", larger, estimate, request.model_copy(update={"gpu": larger.id, "gpu_memory_gb": None}), 1))
    return [r for r in routes if r is not None]


def fit_plan(request: MemoryRequest, result: MemoryEstimate, gpu: GPU, estimate: Estimator, catalog: Catalog) -> FitPlan:
    """``request`` did not fit ``gpu``: the fewest of that card that hold it, then the cheaper routes that fit."""
    your_count = result.num_gpus
    same = _route("same_card", gpu, estimate, request, 1) or Route(key="same_card", label=ROUTE_LABELS["same_card"], gpu_id=gpu.id, gpu=gpu.name, count=None)
    pick = _serving_routes if request.mode == "inference" else _training_routes
    routes = pick(estimate, request, result, gpu, your_count, catalog)
    if your_count > 1 and (request.mode == "training" or not any(r.fits_your_count for r in routes)):
        smaller = _largest_model(estimate, request, gpu, your_count, result.params_b)
        routes += [smaller] if smaller else []

    def works(route: Route) -> bool:
        return bool(route.fits_your_count) if your_count > 1 else route.count is not None

    # the routes keep a consultant's order of preference (quality first), the ones that work ahead of the rest
    return FitPlan(your_count=your_count, same_card=same, routes=sorted(routes, key=lambda route: not works(route)))
