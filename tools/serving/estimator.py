"""`estimate_throughput`: decode and prefill speed of an LLM on an engine and GPUs.

Resolve and check the request (``setup``), count bytes and FLOPs (``workload``), turn them into
step times with the engine's measured efficiencies (``physics``), then report speeds, the bound,
the KV-cache capacity and, with latency targets, the largest concurrency that meets them.
"""

from __future__ import annotations

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.serving import ServingData
from knowledge.wording import shipped
from tools.serving.physics import Capacity, Prefill, Rates, Step, capacity, decode_step, prefill, rates
from tools.serving.report import capacity_line, decode_lines, efficiencies, prefill_lines, streaming_line, throughput_line
from tools.serving.schema import TargetLimit, ThroughputRequest, ThroughputResult
from tools.serving.setup import ServingSetup, resolve_setup
from tools.serving.workload import Workload, workload

TEXT = shipped("serving_text.yaml")

__all__ = ["ThroughputRequest", "ThroughputResult", "estimate_figures", "estimate_throughput"]


def estimate_throughput(request: ThroughputRequest, catalog: Catalog, serving: ServingData) -> ThroughputResult:
    """Speeds for ``request``; bad input raises a bilingual ``AdvisorError``."""
    return _estimate(request, catalog, serving, explained=True)


def estimate_figures(request: ThroughputRequest, catalog: Catalog, serving: ServingData) -> ThroughputResult:
    """The same figures without the worded formula lines, efficiencies and assumptions: a caller that ranks hundreds
    of candidates (the recommender) reads only the figures, and wording each one cost more than the arithmetic."""
    return _estimate(request, catalog, serving, explained=False)


def _estimate(request: ThroughputRequest, catalog: Catalog, serving: ServingData, *, explained: bool) -> ThroughputResult:
    s = resolve_setup(request, catalog, serving)
    w = workload(s.spec, s.weights)
    r = rates(s)
    cap = capacity(s, w)
    _check_fits(s, cap)
    effective = min(s.batch, cap.max_batch * s.replicas)
    replicas = min(s.replicas, effective)
    batch = effective / replicas
    step = decode_step(s, w, r, batch)
    pf = prefill(s, w, r)
    ttft = ttft_seconds(pf, step, batch)
    streaming = streaming_speed(s, pf, step, batch)
    total = replicas * deployment_speed(s, pf, step, batch)
    shares = step.shares()
    bound = "capacity" if effective < s.batch else max(shares, key=shares.__getitem__)
    at_target, limit = max_concurrency(s, w, r, pf, cap)
    result = ThroughputResult(
        efficiency_assumed=efficiency_assumed(s), model_id=s.spec.id, model_name=s.spec.name, model_label=s.spec.label, gpu=s.gpu.name, engine=s.engine.id, num_gpus=s.num_gpus, tp=s.tp,
        replicas=s.replicas, layer_split=s.layer_split, batch=s.batch, effective_batch=effective,
        prompt_tokens=s.prompt, output_tokens=s.output,
        decode_tokens_per_s_per_seq=round(1 / step.total, 3), tokens_per_s_per_user_streaming=round(streaming, 3), output_tokens_per_s_total=round(total, 3),
        prefill_tokens_per_s=round(s.prompt / pf.total, 3), ttft_ms=round(ttft * 1e3, 3), step_ms=round(step.total * 1e3, 4),
        request_latency_s=round(ttft + max(s.output - 1, 0) / streaming, 4), bound=bound, max_batch_fits=cap.max_batch * s.replicas,
        weights_format=s.weights.id, memory_gb_per_gpu=round(cap.budget / 1e9, 3), weights_gb_per_gpu=round(cap.weights / 1e9, 3),
        kv_free_gb_per_gpu=round(cap.free / 1e9, 3), kv_gb_per_sequence=round(cap.per_sequence / 1e9, 4),
        max_concurrency_at_target=at_target, limit_at_target=limit, compute_peak_tflops=s.peak_tflops,
        lines=[*decode_lines(s, w, r, step, batch), *prefill_lines(s, w, pf, ttft, step, batch),
               streaming_line(s, step, pf, batch, streaming), throughput_line(s, step, pf, batch, replicas, total),
               capacity_line(s, cap)] if explained else [],
        efficiencies=efficiencies(s, w, r) if explained else [], precision_basis=s.precision_basis, notes=s.notes,
        assumptions=assumptions(s, r) if explained else [],
    )  # fmt: skip
    add_notes(result, s, w, cap)
    return result


def ttft_seconds(pf: Prefill, step: Step, batch: float) -> float:
    """Prefill of the new prompt, plus the decode step already in flight when others are running."""
    return pf.total + (step.total if batch > 1 else 0.0)


def _check_fits(s: ServingSetup, cap: Capacity) -> None:
    if s.gpu.vendor == "Apple":
        more = "gpu=M3 Ultra"  # one chip per machine: a bigger unified memory is the way up
    else:
        more = f"num_gpus={s.num_gpus * 2}" if s.engine.multi_gpu == "layers" else f"tp={s.tp * 2}"
    if cap.free <= 0:
        need = (cap.weights + cap.overhead) / 1e9
        raise AdvisorError(
            "does_not_fit",
            **TEXT.text("errors.does_not_fit", model=Text(en=s.spec.name, zh=s.spec.label.zh), weights=Text(en=s.weights.label, zh=s.weights.name_zh),
                        need=need, budget=cap.budget / 1e9, engine=s.engine.name, gpu=s.gpu.name).model_dump(),
            suggestions=[more, "precision=q4_k_m" if s.engine.runtime == "llamacpp" else "precision=awq-int4", "gpu=H200"],
        )  # fmt: skip
    if cap.max_batch < 1:
        tokens = s.prompt + s.output
        raise AdvisorError(
            "context_does_not_fit",
            **TEXT.text("errors.context_does_not_fit", tokens=tokens, per_sequence=cap.per_sequence / 1e9, free=cap.free / 1e9).model_dump(),
            suggestions=["prompt_tokens=4096", "kv_precision=fp8", more],
        )  # fmt: skip


def streaming_speed(s: ServingSetup, pf: Prefill, step: Step, batch: float) -> float:
    """Output tokens/s one user sees once their first token has arrived (the inverse of TPOT/ITL): a decode step per
    token, plus the stalls from the OTHER requests' prefills that the engine interleaves while this one streams. In a
    steady batch each of the other ``batch - 1`` slots turns over once per request, so ``batch - 1`` prefills land
    within one request's output. Its own prefill is the TTFT (``ttft_seconds``), never counted here: a single user
    streams at the decode step's rate whatever the prompt length. Speed targets and the chat floor are checked on it."""
    return s.output / (s.output * step.total + (batch - 1) * pf.amortised(batch))


def deployment_speed(s: ServingSetup, pf: Prefill, step: Step, batch: float) -> float:
    """Output tokens/s one replica produces with ``batch`` requests in flight: every request's prefill is work the
    replica does, so all ``batch`` prefills are counted over one request's lifetime."""
    return batch * s.output / (s.output * step.total + batch * pf.amortised(batch))


def _missed(s: ServingSetup, w: Workload, r: Rates, pf: Prefill, batch: int) -> TargetLimit | None:
    """The first target ``batch`` concurrent sequences miss, or None when they meet both."""
    step = decode_step(s, w, r, batch)
    if s.target_tps is not None and streaming_speed(s, pf, step, batch) < s.target_tps:
        return "speed"
    if s.target_ttft_ms is not None and ttft_seconds(pf, step, batch) * 1e3 > s.target_ttft_ms:
        return "ttft"
    return None


def max_concurrency(s: ServingSetup, w: Workload, r: Rates, pf: Prefill, cap: Capacity) -> tuple[int | None, TargetLimit | None]:
    """Most concurrent sequences (all replicas) meeting both targets, and the limit that stops one more: a target,
    or the KV cache when every sequence that fits meets them. Both speeds fall as the batch grows."""
    if s.target_tps is None and s.target_ttft_ms is None:
        return None, None
    first_miss = _missed(s, w, r, pf, 1)
    if first_miss:
        return 0, first_miss
    low, high = 1, cap.max_batch
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if _missed(s, w, r, pf, middle) is None else (low, middle - 1)
    limit = "kv_cache" if low >= cap.max_batch else _missed(s, w, r, pf, low + 1)
    return low * s.replicas, limit


def add_notes(result: ThroughputResult, s: ServingSetup, w: Workload, cap: Capacity) -> None:
    notes = result.notes
    if result.bound == "capacity":
        notes.append(TEXT.text("notes.capacity", fit=result.effective_batch, asked=s.batch, per_replica=cap.max_batch))
    if s.layer_split:
        notes.append(TEXT.text("notes.layer_split", engine=s.engine.name, chain=s.chain))
    if w.moe and s.engine.moe_expert_loop_us:
        notes.append(TEXT.text("notes.moe_loop", engine=s.engine.name, layers=w.moe_layers, experts=w.experts))
    per_replica = -(-result.effective_batch // s.replicas)
    if s.engine.default_max_seqs and per_replica > s.engine.default_max_seqs:
        notes.append(TEXT.text("notes.max_seqs", per_replica=per_replica, engine=s.engine.name, cap=s.engine.default_max_seqs))
    if result.max_concurrency_at_target == 0:
        notes.append(TEXT.text("notes.misses_targets"))


def efficiency_assumed(s: ServingSetup) -> bool:
    """No measurement calibrates the device family, and the engine has no row of its own for it."""
    return s.family.assumed and s.family.id not in s.engine.families


def _engine_assumption(s: ServingSetup) -> Text:
    """The engine and device; where no measurement calibrates the device family, that its efficiency is assumed."""
    family = Text(en=s.family.label_en, zh=s.family.label_zh)
    if efficiency_assumed(s):
        return TEXT.text("assumptions.engine_assumed", engine=s.engine.name, gpu=s.gpu.name, family=family,
                         bandwidth=s.family.bandwidth_factor, compute=s.family.compute_factor)  # fmt: skip
    return TEXT.text("assumptions.engine", engine=s.engine.name, gpu=s.gpu.name, family=family)


def _allreduce_assumption(r: Rates) -> list[Text]:
    """A tensor-parallel all-reduce latency no measurement calibrates (no fitted point for this link and engine) is
    said to be an assumption, with what it is and what would move it."""
    row = r.link_row
    if row is None or row.fitted_on:
        return []
    return [TEXT.text(f"assumptions.allreduce_assumed.{row.link}", latency=row.latency_us)]


def assumptions(s: ServingSetup, r: Rates) -> list[Text]:
    return [
        _engine_assumption(s),
        *_allreduce_assumption(r),
        TEXT.text("assumptions.average_context", context=s.prompt + s.output / 2),
        TEXT.text("assumptions.prefill_counted"),
    ]  # fmt: skip
