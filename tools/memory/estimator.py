"""GPU-memory estimator entry points: `estimate_memory` (itemised per GPU) and `max_fit` (inverse).

Inference: weights + KV cache + prefill temporaries + logits + runtime overheads, per engine.
Training: weights + gradients + optimizer states (ZeRO/FSDP/TP/PP) + activations (Korthikanti)
+ loss + buffers. Every line carries its formula; all figures are GB = 10^9 bytes.
"""

from __future__ import annotations

import dataclasses

from knowledge.bilingual import Text
from knowledge.catalog import Catalog
from knowledge.fact_notes import fact_note
from knowledge.gpus import GPU
from tools.memory.constants import GB, OUTSIDE_TORCH_ALLOCATOR
from tools.memory.inference import inference_parts, kv_bytes
from tools.memory.items import MEMORY_TEXT, Part
from tools.memory.limits import solve_limits
from tools.memory.refit import fit_plan
from tools.memory.schema import MemoryEstimate, MemoryLimits, MemoryLimitsRequest, MemoryRequest
from tools.memory.setup import Setup, resolve_setup
from tools.memory.shapes import kv_bytes_per_token_layer
from tools.memory.training import offloaded_bytes, training_parts
from tools.memory.verdict import RULE_OF_THUMB, capacity_budget, capacity_gb, capacity_line, counted_bound, main_lever, unit_note, usable_memory_note, verdict
from tools.precision import is_gguf, kv_format

__all__ = ["Footprint", "MemoryEstimate", "MemoryLimits", "MemoryLimitsRequest", "MemoryRequest", "estimate_memory", "footprint", "max_fit", "parts_for"]


def parts_for(setup: Setup) -> list[Part]:
    """The per-GPU components for a resolved setup (no pydantic, so inverse solving stays fast)."""
    return training_parts(setup) if setup.mode == "training" else inference_parts(setup)


def total_bytes(setup: Setup) -> float:
    return sum(p.bytes for p in parts_for(setup))


def with_size(setup: Setup, batch: int | None = None, context: int | None = None) -> Setup:
    """A copy of ``setup`` at another batch/context, with fresh note lists."""
    context = context if context is not None else setup.context
    prompt = setup.prompt_tokens if setup.prompt_tokens < setup.context else context
    return dataclasses.replace(
        setup, batch=batch if batch is not None else setup.batch, context=context,
        prompt_tokens=min(prompt, context), notes=[], assumptions=[],
    )  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Footprint:
    """What a ranking needs of an estimate: the per-GPU need and the card's usable capacity, rounded as
    ``MemoryEstimate.total_per_gpu_gb`` and ``gpu_capacity_gb`` are (capacity None without a GPU)."""

    total_per_gpu_gb: float
    gpu_capacity_gb: float | None


def per_gpu_gb(total: float) -> float:
    """The per-GPU figure an estimate reports, from the parts' bytes."""
    return round(total / GB, 3)


def _sized(request: MemoryRequest, catalog: Catalog) -> tuple[Setup, list[Part], float]:
    """The resolved setup, its per-GPU parts and their bytes: the one computation the full estimate and the
    bytes-only footprint share, so the two cannot drift."""
    setup = resolve_setup(request, catalog)
    parts = parts_for(setup)
    return setup, parts, sum(p.bytes for p in parts)


def footprint(request: MemoryRequest, catalog: Catalog) -> Footprint:
    """The per-GPU bytes of ``estimate_memory(request)`` and the capacity it is checked against, without the items,
    notes, assumptions or fit plan (no words are filled): the recommender weighs hundreds of layouts per answer and
    reads only these two figures. Raises AdvisorError exactly when estimate_memory does."""
    setup, _, total = _sized(request, catalog)
    capacity = capacity_gb(capacity_budget(setup, setup.gpu)) if setup.gpu is not None else None
    return Footprint(total_per_gpu_gb=per_gpu_gb(total), gpu_capacity_gb=capacity)


def estimate_memory(request: MemoryRequest, catalog: Catalog) -> MemoryEstimate:
    """Itemised peak memory per GPU for ``request``; with a GPU, also the verdict and main lever, and when it does
    not fit, what does (the fewest of that card, and the cheaper routes)."""
    result, gpu = _estimate(request, catalog)
    if result.verdict == "does_not_fit" and gpu is not None:
        result.fit_plan = fit_plan(request, result, gpu, lambda changed: _estimate(changed, catalog)[0], catalog)
        if result.main_lever is not None:  # one count in the answer: the plan's, with its assumption
            result.main_lever = counted_bound(result.main_lever, result.mode, result.fit_plan.same_card.count, gpu.name)
    return result


def _estimate(request: MemoryRequest, catalog: Catalog) -> tuple[MemoryEstimate, GPU | None]:
    setup, parts, total = _sized(request, catalog)
    spec = setup.spec
    result = MemoryEstimate(
        model_id=spec.id,
        model_name=spec.name,
        model_label=spec.label,
        params_b=spec.params_b,
        mode=setup.mode,
        num_gpus=setup.num_gpus,
        tp=setup.tp,
        pp=setup.pp,
        dp=setup.dp,
        items=[p.line() for p in parts],
        total_per_gpu_gb=per_gpu_gb(total),
        total_all_gpus_gb=round(total * setup.num_gpus / GB, 3),
        weights_all_gpus_gb=round(sum(p.bytes for p in parts if p.key == "weights") * setup.tp * setup.pp / GB, 3),
        torch_allocated_peak_gb=round(sum(p.bytes for p in parts if p.key not in OUTSIDE_TORCH_ALLOCATOR) / GB, 3),
        nvidia_smi_total_gb=round(total / GB, 3),
        outside_allocator_gb=round(sum(p.bytes for p in parts if p.key in OUTSIDE_TORCH_ALLOCATOR) / GB, 3),
        scopes_note=fact_note("memory_scopes"),
        precision_basis=setup.precision_basis,
        weights_precision=setup.weights.id,
        host_ram_gb=round(offloaded_bytes(setup) / GB, 1) if setup.offload != "none" else None,
        notes=[*setup.notes, RULE_OF_THUMB],
        assumptions=[*setup.assumptions, *general_assumptions(setup)],
        unit_note=unit_note(setup.gpu),
    )
    if setup.mode == "inference":
        result.kv_precision = setup.kv.id
    if setup.mode == "inference" and setup.kv.id in ("bf16", "fp16"):
        fp8 = dataclasses.replace(setup, kv=kv_format("fp8"))
        result.kv_cache_fp8_gb = round(kv_bytes(fp8, fp8.batch, fp8.context) / GB, 3)
    if setup.gpu is not None:
        capacity, budget = capacity_line(setup, setup.gpu)
        result.gpu = setup.gpu.name
        result.gpu_capacity_gb = capacity.value
        result.capacity_all_gpus_gb = round(capacity.value * setup.num_gpus, 3)
        result.capacity = capacity
        if (usable := usable_memory_note(setup.gpu)) is not None:
            result.notes.insert(0, usable)
            result.gpu_share_note = usable
        result.verdict, headroom = verdict(total, budget)
        result.headroom_pct = round(headroom, 1)
        if result.verdict != "fits":
            result.main_lever = main_lever(setup, parts)
        if setup.mode == "inference" and setup.engine == "vllm":
            add_vllm_capacity(result, setup, parts, budget)
    return result, setup.gpu


def add_vllm_capacity(result: MemoryEstimate, setup: Setup, parts: list[Part], budget: float) -> None:
    """vLLM gives the KV cache whatever its budget leaves after everything else."""
    non_kv = sum(p.bytes for p in parts if p.key != "kv_cache")
    free = max(budget - non_kv, 0.0)
    per_token = kv_bytes_per_token_layer(setup.spec, setup.kv, setup.tp) * setup.spec.layers / setup.pp
    per_sequence = kv_bytes(setup, 1, setup.context)
    result.kv_cache_tokens = int(free // per_token)
    result.max_concurrency = round(free / per_sequence, 2)
    if free <= 0:  # nothing left for the cache: the fit verdict says so already; a note of zeros repeats it as clutter
        return
    result.notes.append(MEMORY_TEXT.text("assumptions.vllm_kv", budget=budget / GB, non_kv=non_kv / GB, free=free / GB,
                                          tokens=result.kv_cache_tokens, sequences=result.max_concurrency, context=setup.context))  # fmt: skip


def general_assumptions(setup: Setup) -> list[Text]:
    if setup.mode == "inference":
        if is_gguf(setup.weights.id):
            engine = MEMORY_TEXT.text("assumptions.gguf_engine")
        else:
            engine = MEMORY_TEXT.text("assumptions.engine", engine=MEMORY_TEXT.text(f"assumptions.engines.{setup.engine}"))
        return [MEMORY_TEXT.text("assumptions.inference", engine=engine, batch=setup.batch, context=setup.context, prompt=setup.prompt_tokens)]
    return [MEMORY_TEXT.text(
        "assumptions.training", batch=setup.batch, context=setup.context, recompute=MEMORY_TEXT.text(f"assumptions.recompute.{setup.recompute}"),
        flash=MEMORY_TEXT.text("assumptions.flash_on" if setup.flash else "assumptions.flash_off"),
        tp=setup.tp, pp=setup.pp, dp=setup.dp, zero=setup.zero_stage,
    )]  # fmt: skip


def max_fit(request: MemoryLimitsRequest, catalog: Catalog) -> MemoryLimits:
    """Largest batch (at the requested context) and context (at the requested batch) that fit the GPU."""
    setup = resolve_setup(request, catalog)
    return solve_limits(setup, total_bytes, with_size)
