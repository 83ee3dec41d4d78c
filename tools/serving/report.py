"""Line items with number-substituted formulas in both languages, and the efficiencies an estimate used.

Each formula is written twice from the same numbers: the numbers and symbols are identical, only
the words differ.
"""

from __future__ import annotations

from knowledge.bilingual import Text
from tools.common import LineItem
from tools.serving.physics import Capacity, Prefill, Rates, Step
from tools.serving.schema import EfficiencyUsed
from tools.serving.setup import ServingSetup
from tools.serving.workload import Workload

GB = 1e9


def line(key: str, en: str, zh: str, value: float, unit: str, formula: str, formula_zh: str) -> LineItem:
    # model_construct: built from checked numbers; skipping validation keeps a call well under a millisecond
    return LineItem.model_construct(key=key, label=Text.model_construct(en=en, zh=zh), value=round(value, 6), unit=unit,
                                    formula=formula, formula_zh=formula_zh)  # fmt: skip


def g(value: float) -> str:
    """A number with 3–4 significant digits, thousands separated."""
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}" if abs(value) < 100 else f"{value:.1f}"


def sci(value: float) -> str:
    """Large counts as '4.63e13'."""
    return g(value) if abs(value) < 1e5 else f"{value:.3g}".replace("e+", "e")


def ms(seconds: float) -> str:
    return f"{g(seconds * 1e3)} ms"


def per_gpu(s: ServingSetup) -> str:
    return f" / {s.tp} (tp)" if s.tp > 1 else ""


def _weights_read(s: ServingSetup, w: Workload, step: Step, batch: float) -> tuple[str, str]:
    tp, total = per_gpu(s), f"{g(step.weight_bytes / GB)} GB"
    split_en = f" (layer split over {s.chain} GPUs: one GPU's bandwidth at a time)" if s.layer_split else ""
    split_zh = f"（按层切分到 {s.chain} 张 GPU：同一时刻只用一张卡的带宽）" if s.layer_split else ""
    if w.moe:
        touched, shared, each = g(w.experts_touched(batch)), g(w.dense_read_bytes / GB), g(w.expert_bytes / 1e6)
        return (f"({shared} GB shared + {w.moe_layers} layers × {touched} of {w.experts} experts × {each} MB){tp} = {total}{split_en}",
                f"({shared} GB 共享权重 + {w.moe_layers} 层 × {w.experts} 个专家中的 {touched} 个 × {each} MB){tp} = {total}{split_zh}")  # fmt: skip
    if w.input_embedding_bytes:
        stored, table = g(w.stored_bytes / GB), g(w.input_embedding_bytes / GB)
        return (f"({stored} GB stored − {table} GB input embedding, only looked up){tp} = {total}{split_en}",
                f"({stored} GB 权重 − {table} GB 输入嵌入表（只按行查找）){tp} = {total}{split_zh}")  # fmt: skip
    dense = g(w.dense_read_bytes / GB)
    return (f"{dense} GB (tied embedding read as the LM head){tp} = {total}{split_en}",
            f"{dense} GB（共享的嵌入表作为输出层被完整读取）{tp} = {total}{split_zh}")  # fmt: skip


def decode_lines(s: ServingSetup, w: Workload, r: Rates, step: Step, batch: float) -> list[LineItem]:
    bw, b = g(r.bandwidth / GB), g(batch)
    context = g(s.prompt + s.output / 2)
    per_token = g(step.kv_bytes / max(batch * (s.prompt + s.output / 2), 1) / 1e3)
    moe = s.engine.moe_bandwidth_factor if w.moe and s.engine.moe_bandwidth_factor != 1 else None
    moe_en, moe_zh = (f", experts at × {moe:g} (MoE)", f"，专家权重再 × {moe:g}（MoE）") if moe else ("", "")
    flops = f"2 × {sci(w.flops_per_token() / 2)}"
    fp8 = f" × {r.fp8_gain:g} FP8" if r.fp8_gain > 1 else ""
    peak = f"{s.efficiency.mfu:g} MFU × {g(r.peak_flops / 1e12)} TFLOPS{fp8}"
    kv_gb, weights_gb = g(step.kv_bytes / GB), g(step.weight_bytes / GB)
    read_en, read_zh = _weights_read(s, w, step, batch)
    lines = [
        line("weights_read", "Weights read per step, per GPU", "每步读取的权重（每卡）", step.weight_bytes / GB, "GB", read_en, read_zh),
        line("kv_read", "KV cache read per step, per GPU", "每步读取的 KV 缓存（每卡）", step.kv_bytes / GB, "GB",
             f"{b} seq × {context} tokens (prompt + output/2) × {per_token} kB/token per GPU = {kv_gb} GB",
             f"{b} 条序列 × {context} token（提示词 + 输出/2）× 每卡 {per_token} kB/token = {kv_gb} GB"),
        line("weights_time", "Weight streaming", "权重读取时间", step.weights * 1e3, "ms",
             f"{weights_gb} GB / ({r.e_weights:g} × {bw} GB/s){moe_en} = {ms(step.weights)}",
             f"{weights_gb} GB / ({r.e_weights:g} × {bw} GB/s){moe_zh} = {ms(step.weights)}"),
        line("compute_time", "GEMM compute", "矩阵计算时间", step.compute * 1e3, "ms",
             f"{flops} active params × {b} tokens{per_gpu(s)} = {sci(step.flops)} FLOP / ({peak}) = {ms(step.compute)}",
             f"{flops} 激活参数 × {b} token{per_gpu(s)} = {sci(step.flops)} FLOP / ({peak}) = {ms(step.compute)}"),
        line("kv_time", "Attention (KV read)", "注意力（读取 KV）时间", step.kv * 1e3, "ms",
             f"{kv_gb} GB / ({r.e_kv:g} × {bw} GB/s) = {ms(step.kv)}", f"{kv_gb} GB / ({r.e_kv:g} × {bw} GB/s) = {ms(step.kv)}"),
    ]  # fmt: skip
    if s.tp > 1:
        terms = f"{g(r.link_latency * 1e6)} µs + {b} × {s.spec.hidden} × 2 B × 2·({s.tp}−1)/{s.tp} / {r.link_name}"
        terms_zh = terms.replace("NVLink-class", "NVLink 级互联").replace(" GB/s per direction", " GB/s（单向）")
        lines.append(line("allreduce_time", "Tensor-parallel all-reduces", "张量并行 all-reduce", step.comm * 1e3, "ms",
                          f"2 × {s.spec.layers} layers × ({terms}) = {ms(step.comm)}",
                          f"2 × {s.spec.layers} 层 × ({terms_zh}) = {ms(step.comm)}"))  # fmt: skip
    loop_en, loop_zh = _loop(s, w)
    launches = f"{s.engine.launch_ms_per_layer:g} ms × {s.spec.layers}"
    overlap_en = f"; launches {launches} layers = {ms(step.launches)} overlap the GPU" if step.launches else ""
    overlap_zh = f"；内核启动 {launches} 层 = {ms(step.launches)}，与 GPU 计算重叠" if step.launches else ""
    inner = f"max({ms(step.launches)}, max({ms(step.weights)}, {ms(step.compute)}) + {ms(step.kv)} + {ms(step.comm)})"
    speed = f"1 / {ms(step.total)} = {g(1 / step.total)} tokens/s"
    lines += [
        line("overhead_time", "Engine overhead per step", "引擎每步固定开销", step.host * 1e3, "ms",
             f"{s.engine.name} {s.engine.step_overhead_ms:g} ms per step{loop_en} = {ms(step.host)}{overlap_en}",
             f"{s.engine.name} 每步 {s.engine.step_overhead_ms:g} ms{loop_zh} = {ms(step.host)}{overlap_zh}"),
        line("decode_step", "Decode step", "解码一步耗时", step.total * 1e3, "ms",
             f"{ms(step.host)} + {inner} = {ms(step.total)}", f"{ms(step.host)} + {inner} = {ms(step.total)}"),
        line("decode_speed", "Decode speed per sequence", "单序列生成速度", 1 / step.total, "tokens/s", speed, speed.replace("tokens", "token")),
    ]  # fmt: skip
    return lines


def _loop(s: ServingSetup, w: Workload) -> tuple[str, str]:
    if not (w.moe and s.engine.moe_expert_loop_us):
        return "", ""
    each = f"{s.engine.moe_expert_loop_us:g} µs × {w.moe_layers}"
    loop = g(s.engine.moe_expert_loop_us * w.moe_layers * w.experts / 1e3)
    return (f" + expert loop {each} layers × {w.experts} experts = {loop} ms",
            f" + 专家循环 {each} 层 × {w.experts} 个专家 = {loop} ms")  # fmt: skip


def prefill_lines(s: ServingSetup, w: Workload, pf: Prefill, ttft: float, step: Step, batch: float) -> list[LineItem]:
    attention = sci(pf.flops * s.tp - w.flops_per_token() * s.prompt)
    flops, tflop = f"2 × {sci(w.flops_per_token() / 2)} × {s.prompt:,}", g(pf.flops / 1e12)
    chunks = pf.chunks
    main = f"max({ms(pf.compute)}, {ms(pf.weights)})"
    speed = f"{s.prompt:,} tokens / {ms(pf.total)} = {g(s.prompt / pf.total)} tokens/s"
    wait_en, wait_zh = (f" + one step in flight {ms(step.total)}", f" + 正在进行的一个解码步 {ms(step.total)}") if batch > 1 else ("", "")
    return [
        line("prefill_flops", "Prefill FLOPs per GPU", "预填充计算量（每卡）", pf.flops / 1e12, "TFLOP",
             f"({flops} tokens + {attention} causal attention){per_gpu(s)} = {tflop} TFLOP",
             f"({flops} token + {attention} 因果注意力){per_gpu(s)} = {tflop} TFLOP"),
        line("prefill_time", "Prefill of one prompt", "单条提示词预填充", pf.total * 1e3, "ms",
             f"{main} (compute, weight reads) + {ms(pf.comm)} all-reduce transfer + {ms(pf.fixed)} step overhead and "
             f"all-reduce latency ({chunks} chunk{'s' if chunks > 1 else ''}) = {ms(pf.total)}",
             f"{main}（计算、读权重取较大者）+ {ms(pf.comm)} all-reduce 传输 + {ms(pf.fixed)} 固定开销与 all-reduce 延迟"
             f"（{chunks} 个分块）= {ms(pf.total)}"),
        line("prefill_speed", "Prefill speed", "预填充速度", s.prompt / pf.total, "tokens/s", speed, speed.replace("tokens", "token")),
        line("ttft", "Time to first token", "首 token 时延", ttft * 1e3, "ms",
             f"{ms(pf.total)}{wait_en} = {ms(ttft)}", f"{ms(pf.total)}{wait_zh} = {ms(ttft)}"),
    ]  # fmt: skip


def throughput_line(s: ServingSetup, step: Step, pf: Prefill, batch: float, replicas: int, total: float) -> LineItem:
    b, out, per_prompt = g(batch), f"{s.output:,}", ms(pf.amortised(batch))
    tail = f"({out} × {ms(step.total)} + {b} × {per_prompt}"
    return line(
        "output_throughput", "Output tokens/s, whole deployment", "总输出吞吐", total, "tokens/s",
        f"{replicas} replica(s) × {b} seq × {out} tokens / {tail} prefill per prompt) = {g(total)} tokens/s",
        f"{replicas} 个副本 × {b} 条序列 × {out} token / {tail} 每条预填充) = {g(total)} token/s",
    )  # fmt: skip


def capacity_line(s: ServingSetup, cap: Capacity) -> LineItem:
    fraction, budget = f"{s.engine.memory_fraction:g}", g(cap.budget / GB)
    weights, runtime = g(cap.weights / GB), g(cap.overhead / GB)
    if s.engine.memory_basis == "total":
        basis_en = f"{fraction} × {budget} GB − {weights} GB weights − {runtime} GB runtime"
        basis_zh = f"{fraction} × {budget} GB − {weights} GB 权重 − {runtime} GB 运行时"
    else:
        basis_en = f"{fraction} × ({budget} GB − {weights} GB weights − {runtime} GB runtime)"
        basis_zh = f"{fraction} × ({budget} GB − {weights} GB 权重 − {runtime} GB 运行时)"
    free, per, tokens = g(cap.free / GB), g(cap.per_sequence / 1e6), f"{s.prompt + s.output:,}"
    return line(
        "kv_capacity", "Sequences whose KV cache fits (per replica)", "KV 缓存可容纳的序列数（每副本）", cap.max_batch, "sequences",
        f"({basis_en}) = {free} GB free / {per} MB per {tokens}-token sequence = {cap.max_batch:,}",
        f"({basis_zh}) = 剩余 {free} GB / 每条 {tokens} token 序列 {per} MB = {cap.max_batch:,}",
    )  # fmt: skip


def efficiencies(s: ServingSetup, w: Workload, r: Rates) -> list[EfficiencyUsed]:
    eff, engine = s.efficiency, s.engine
    source = eff.source + (f" (fitted on {', '.join(eff.fitted_on)})" if eff.fitted_on else "")
    used = [
        EfficiencyUsed(key="bandwidth_weights", value=r.e_weights, unit="share of peak", source=source),
        EfficiencyUsed(key="bandwidth_kv", value=r.e_kv, unit="share of peak", source=source),
        EfficiencyUsed(key="mfu", value=eff.mfu, unit="share of dense BF16 peak", source=source),
        EfficiencyUsed(key="step_overhead", value=engine.step_overhead_ms, unit="ms", source=engine.overhead_source),
    ]
    if engine.launch_ms_per_layer:
        used.append(EfficiencyUsed(key="launch_per_layer", value=engine.launch_ms_per_layer, unit="ms", source=engine.overhead_source))
    if w.moe:
        used += [
            EfficiencyUsed(key="moe_bandwidth_factor", value=engine.moe_bandwidth_factor, unit="factor", source=engine.moe_source),
            EfficiencyUsed(key="moe_mfu_factor", value=engine.moe_mfu_factor, unit="factor", source=engine.moe_source),
        ]
        if engine.moe_expert_loop_us:
            used.append(EfficiencyUsed(key="moe_expert_loop", value=engine.moe_expert_loop_us, unit="µs", source=engine.moe_source))
    kernel = s.data.format_kernel(engine.runtime, s.family.id, s.weights.id)
    if kernel:
        source = kernel.source + (f" (fitted on {', '.join(kernel.fitted_on)})" if kernel.fitted_on else "")
        used.append(EfficiencyUsed(key="format_kernel_factor", value=kernel.bandwidth_factor, unit="× weight streaming", source=source))
    if r.fp8_gain > 1:
        used.append(EfficiencyUsed(key="fp8_compute_gain", value=r.fp8_gain, unit="× BF16", source=s.data.fp8_source))
    if s.tp > 1:
        used.append(EfficiencyUsed(key="allreduce_latency", value=r.link_latency * 1e6, unit="µs", source=s.data.interconnect.source))
    used.append(EfficiencyUsed(key="memory_fraction", value=engine.memory_fraction, unit="share", source=engine.memory_source))
    return used
