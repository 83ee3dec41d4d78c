"""`estimate_throughput`: decode and prefill speed of an LLM on an engine and GPUs.

Resolve and check the request (``setup``), count bytes and FLOPs (``workload``), turn them into
step times with the engine's measured efficiencies (``physics``), then report speeds, the bound,
the KV-cache capacity and, with latency targets, the largest concurrency that meets them.
"""

from __future__ import annotations

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.serving import ServingData
from tools.serving.physics import Capacity, Prefill, Rates, Step, capacity, decode_step, prefill, rates
from tools.serving.report import capacity_line, decode_lines, efficiencies, prefill_lines, throughput_line
from tools.serving.schema import TargetLimit, ThroughputRequest, ThroughputResult
from tools.serving.setup import ServingSetup, resolve_setup
from tools.serving.workload import Workload, workload

__all__ = ["ThroughputRequest", "ThroughputResult", "estimate_throughput"]


def estimate_throughput(request: ThroughputRequest, catalog: Catalog, serving: ServingData) -> ThroughputResult:
    """Speeds for ``request``; bad input raises a bilingual ``AdvisorError``."""
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
    per_user = per_user_speed(s, pf, step, batch)
    total = replicas * batch * per_user
    shares = step.shares()
    bound = "capacity" if effective < s.batch else max(shares, key=shares.__getitem__)
    at_target, limit = max_concurrency(s, w, r, pf, cap)
    result = ThroughputResult(
        model_id=s.spec.id, model_name=s.spec.name, model_label=s.spec.label, gpu=s.gpu.name, engine=s.engine.id, num_gpus=s.num_gpus, tp=s.tp,
        replicas=s.replicas, layer_split=s.layer_split, batch=s.batch, effective_batch=effective,
        prompt_tokens=s.prompt, output_tokens=s.output,
        decode_tokens_per_s_per_seq=round(1 / step.total, 3), per_user_tokens_per_s=round(per_user, 3), output_tokens_per_s_total=round(total, 3),
        prefill_tokens_per_s=round(s.prompt / pf.total, 3), ttft_ms=round(ttft * 1e3, 3), step_ms=round(step.total * 1e3, 4),
        request_latency_s=round(ttft + max(s.output - 1, 0) * step.total, 4), bound=bound, max_batch_fits=cap.max_batch * s.replicas,
        weights_format=s.weights.id, memory_gb_per_gpu=round(cap.budget / 1e9, 3), weights_gb_per_gpu=round(cap.weights / 1e9, 3),
        kv_free_gb_per_gpu=round(cap.free / 1e9, 3), kv_gb_per_sequence=round(cap.per_sequence / 1e9, 4),
        max_concurrency_at_target=at_target, limit_at_target=limit, compute_peak_tflops=s.peak_tflops,
        lines=[*decode_lines(s, w, r, step, batch), *prefill_lines(s, w, pf, ttft, step, batch),
               throughput_line(s, step, pf, batch, replicas, total), capacity_line(s, cap)],
        efficiencies=efficiencies(s, w, r), precision_basis=s.precision_basis, notes=s.notes, assumptions=assumptions(s),
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
            f"{s.spec.name} in {s.weights.label} needs {need:.1f} GB per GPU for weights and runtime, more than the "
            f"{cap.budget / 1e9:.1f} GB {s.engine.name} may use on {s.gpu.name}. Add GPUs, use 4-bit weights, or a larger GPU.",
            f"{s.spec.label.zh}（{s.weights.name_zh}）每卡需要 {need:.1f} GB 存放权重与运行时，超过 {s.engine.name} 在 {s.gpu.name} 上"
            f"可用的 {cap.budget / 1e9:.1f} GB。请增加 GPU、改用 4 位权重，或换更大显存的 GPU。",
            [more, "precision=q4_k_m" if s.engine.runtime == "llamacpp" else "precision=awq-int4", "gpu=H200"],
        )  # fmt: skip
    if cap.max_batch < 1:
        tokens = s.prompt + s.output
        raise AdvisorError(
            "context_does_not_fit",
            f"One sequence of {tokens:,} tokens needs {cap.per_sequence / 1e9:.1f} GB of KV cache per GPU, but only "
            f"{cap.free / 1e9:.1f} GB is left after the weights. Shorten the prompt, use an fp8 KV cache, or add GPUs.",
            f"一条 {tokens:,} token 的序列每卡需要 {cap.per_sequence / 1e9:.1f} GB KV 缓存，而权重之外只剩 {cap.free / 1e9:.1f} GB。"
            "请缩短提示词、使用 fp8 KV 缓存，或增加 GPU。",
            ["prompt_tokens=4096", "kv_precision=fp8", more],
        )  # fmt: skip


def per_user_speed(s: ServingSetup, pf: Prefill, step: Step, batch: float) -> float:
    """Output tokens/s each running request receives: the deployment's output shared by the requests in flight, so the
    pauses for new prompts' prefills are counted. The one per-user definition: per user × users = total."""
    return s.output / (s.output * step.total + batch * pf.amortised(batch))


def _missed(s: ServingSetup, w: Workload, r: Rates, pf: Prefill, batch: int) -> TargetLimit | None:
    """The first target ``batch`` concurrent sequences miss, or None when they meet both."""
    step = decode_step(s, w, r, batch)
    if s.target_tps is not None and per_user_speed(s, pf, step, batch) < s.target_tps:
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
        notes.append(Text(
            en=f"Only {result.effective_batch:,} of the {s.batch:,} requested sequences fit in the KV cache "
            f"({cap.max_batch:,} per replica); the rest wait in the queue. More GPUs, an fp8 KV cache or shorter sequences raise it.",
            zh=f"KV 缓存只能容纳请求的 {s.batch:,} 条序列中的 {result.effective_batch:,} 条（每副本 {cap.max_batch:,} 条），其余需排队。"
            "增加 GPU、使用 fp8 KV 缓存或缩短序列可提高上限。",
        ))  # fmt: skip
    if s.layer_split:
        notes.append(Text(
            en=f"{s.engine.name} splits the layers over {s.chain} GPUs that run one after another: they add memory, not speed.",
            zh=f"{s.engine.name} 将各层切分到 {s.chain} 张 GPU 上依次执行：多卡只增加显存，不提高速度。",
        ))  # fmt: skip
    if w.moe and s.engine.moe_expert_loop_us:
        notes.append(Text(
            en=f"{s.engine.name} runs MoE experts in a Python loop ({w.moe_layers} layers × {w.experts} experts per token): "
            "far slower than the active-parameter roofline. Serve MoE models with vLLM or SGLang.",
            zh=f"{s.engine.name} 以 Python 循环逐个执行 MoE 专家（每个 token {w.moe_layers} 层 × {w.experts} 个专家），"
            "远低于按激活参数估算的速度；MoE 模型建议用 vLLM 或 SGLang 部署。",
        ))  # fmt: skip
    per_replica = -(-result.effective_batch // s.replicas)
    if s.engine.default_max_seqs and per_replica > s.engine.default_max_seqs:
        notes.append(Text(
            en=f"{per_replica:,} sequences per replica exceeds {s.engine.name}'s default cap of {s.engine.default_max_seqs}; "
            "raise it (e.g. vLLM --max-num-seqs) or the engine will queue the rest.",
            zh=f"每副本 {per_replica:,} 条序列超过 {s.engine.name} 默认上限 {s.engine.default_max_seqs}，"
            "需调高该参数（如 vLLM --max-num-seqs），否则多余请求会排队。",
        ))  # fmt: skip
    if result.max_concurrency_at_target == 0:
        notes.append(Text(
            en="Even a single sequence misses the latency targets here: use tensor parallelism, lower-bit weights or a faster GPU.",
            zh="即使只有一条序列也达不到时延目标：请使用张量并行、更低位宽的权重或更快的 GPU。",
        ))  # fmt: skip


def assumptions(s: ServingSetup) -> list[Text]:
    return [
        Text(en=f"Engine {s.engine.name} on {s.gpu.name} ({s.family.label_en}); efficiencies are measured shares from published "
             "benchmarks of 2023–25 engine releases (each listed with its source), so expect ±30% against a specific setup.",
             zh=f"引擎 {s.engine.name}，硬件 {s.gpu.name}（{s.family.label_zh}）；效率取自 2023–25 年各引擎版本的公开实测"
             "（每项都注明来源），具体环境可能有 ±30% 偏差。"),
        Text(en=f"Decode steps read the KV cache at the average context, prompt + output/2 = {s.prompt + s.output / 2:,.0f} tokens; "
             "each sequence reserves KV for prompt + output tokens.",
             zh=f"解码按平均上下文（提示词 + 输出/2 = {s.prompt + s.output / 2:,.0f} token）读取 KV 缓存；每条序列按提示词 + 输出长度预留 KV。"),
        Text(en="Throughput counts the prefill work of every request; TTFT assumes no queueing. Units: GB = 10^9 bytes.",
             zh="总吞吐计入每个请求的预填充开销；首 token 时延不含排队。单位：GB = 10^9 字节。"),
    ]  # fmt: skip
