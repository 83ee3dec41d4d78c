"""Line items with number-substituted formulas in both languages, and the efficiencies an estimate used.

Each formula is written twice from the same numbers: the numbers and symbols are identical, only
the words differ.
"""

from __future__ import annotations

from knowledge.bilingual import Text
from knowledge.wording import shipped
from tools.common import LineItem
from tools.serving.physics import Capacity, Prefill, Rates, Step
from tools.serving.schema import EfficiencyUsed
from tools.serving.setup import ServingSetup
from tools.serving.workload import Workload

TEXT = shipped("serving_text.yaml")

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


NONE = Text.model_construct(en="", zh="")


def _said(key: str, **values: object) -> Text:
    """A phrase of ``report.<key>`` filled in each language (no validation: built many times per estimate)."""
    return Text.model_construct(en=TEXT.pick(f"report.{key}", "en", **values), zh=TEXT.pick(f"report.{key}", "zh", **values))


def worded(key: str, value: float, unit: str, formula: Text | str) -> LineItem:
    """A figure labelled ``report.<key>.label``; a formula of numbers and symbols only reads the same in both languages."""
    both = formula if isinstance(formula, Text) else Text.model_construct(en=formula, zh=formula)
    label = _said(f"{key}.label")
    return line(key, label.en, label.zh, value, unit, both.en, both.zh)


def _weights_read(s: ServingSetup, w: Workload, step: Step, batch: float) -> Text:
    tp, total = per_gpu(s), f"{g(step.weight_bytes / GB)} GB"
    split = _said("layer_split", chain=s.chain) if s.layer_split else NONE
    if w.moe:
        touched, shared, each = g(w.experts_touched(batch)), g(w.dense_read_bytes / GB), g(w.expert_bytes / 1e6)
        return _said("moe_read", shared=shared, layers=w.moe_layers, touched=touched, experts=w.experts, each=each, tp=tp, total=total, split=split)
    if w.input_embedding_bytes:
        stored, table = g(w.stored_bytes / GB), g(w.input_embedding_bytes / GB)
        return _said("embedding_read", stored=stored, table=table, tp=tp, total=total, split=split)
    return _said("tied_read", dense=g(w.dense_read_bytes / GB), tp=tp, total=total, split=split)


def decode_lines(s: ServingSetup, w: Workload, r: Rates, step: Step, batch: float) -> list[LineItem]:
    bw, b = g(r.bandwidth / GB), g(batch)
    context = g(s.prompt + s.output / 2)
    per_token = g(step.kv_bytes / max(batch * (s.prompt + s.output / 2), 1) / 1e3)
    moe = s.engine.moe_bandwidth_factor if w.moe and s.engine.moe_bandwidth_factor != 1 else None
    moe_factor = _said("moe_factor", moe=moe) if moe else NONE
    flops = f"2 × {sci(w.flops_per_token() / 2)}"
    fp8 = f" × {r.fp8_gain:g} FP8" if r.fp8_gain > 1 else ""
    peak = f"{s.efficiency.mfu:g} MFU × {g(r.peak_flops / 1e12)} TFLOPS{fp8}"
    kv_gb, weights_gb = g(step.kv_bytes / GB), g(step.weight_bytes / GB)
    lines = [
        worded("weights_read", step.weight_bytes / GB, "GB", _weights_read(s, w, step, batch)),
        worded("kv_read", step.kv_bytes / GB, "GB", _said("kv_read.formula", batch=b, context=context, per_token=per_token, size=kv_gb)),
        worded("weights_time", step.weights * 1e3, "ms",
               _said("weights_time.formula", size=weights_gb, efficiency=r.e_weights, bandwidth=bw, moe=moe_factor, time=ms(step.weights))),
        worded("compute_time", step.compute * 1e3, "ms",
               _said("compute_time.formula", flops=flops, batch=b, per_gpu=per_gpu(s), total=sci(step.flops), peak=peak, time=ms(step.compute))),
        worded("kv_time", step.kv * 1e3, "ms", _said("kv_time.formula", size=kv_gb, efficiency=r.e_kv, bandwidth=bw, time=ms(step.kv))),
    ]  # fmt: skip
    if s.tp > 1:
        terms = f"{g(r.link_latency * 1e6)} µs + {b} × {s.spec.hidden} × 2 B × 2·({s.tp}−1)/{s.tp} / {r.link_name}"
        terms_zh = terms
        for english, chinese in TEXT.entry("report.link_words_zh"):
            terms_zh = terms_zh.replace(english, chinese)
        lines.append(worded("allreduce_time", step.comm * 1e3, "ms",
                            _said("allreduce_time.formula", layers=s.spec.layers, terms=Text.model_construct(en=terms, zh=terms_zh), time=ms(step.comm))))
    launches = f"{s.engine.launch_ms_per_layer:g} ms × {s.spec.layers}"
    overlap = _said("launches", launches=launches, time=ms(step.launches)) if step.launches else NONE
    inner = f"max({ms(step.launches)}, max({ms(step.weights)}, {ms(step.compute)}) + {ms(step.kv)} + {ms(step.comm)})"
    speed = f"1 / {ms(step.total)} = {g(1 / step.total)} tokens/s"
    lines += [
        worded("overhead_time", step.host * 1e3, "ms", _said("overhead_time.formula", engine=s.engine.name, overhead=s.engine.step_overhead_ms,
                                                              loop=_loop(s, w), time=ms(step.host), overlap=overlap)),
        worded("decode_step", step.total * 1e3, "ms", f"{ms(step.host)} + {inner} = {ms(step.total)}"),
        worded("decode_speed", 1 / step.total, "tokens/s", Text.model_construct(en=speed, zh=speed.replace("tokens", "token"))),
    ]  # fmt: skip
    return lines


def _loop(s: ServingSetup, w: Workload) -> Text:
    if not (w.moe and s.engine.moe_expert_loop_us):
        return NONE
    each = f"{s.engine.moe_expert_loop_us:g} µs × {w.moe_layers}"
    loop = g(s.engine.moe_expert_loop_us * w.moe_layers * w.experts / 1e3)
    return _said("expert_loop", each=each, experts=w.experts, loop=loop)


def prefill_lines(s: ServingSetup, w: Workload, pf: Prefill, ttft: float, step: Step, batch: float) -> list[LineItem]:
    attention = sci(pf.flops * s.tp - w.flops_per_token() * s.prompt)
    flops, tflop = f"2 × {sci(w.flops_per_token() / 2)} × {s.prompt:,}", g(pf.flops / 1e12)
    chunks = pf.chunks
    main = f"max({ms(pf.compute)}, {ms(pf.weights)})"
    speed = f"{s.prompt:,} tokens / {ms(pf.total)} = {g(s.prompt / pf.total)} tokens/s"
    wait = _said("step_in_flight", time=ms(step.total)) if batch > 1 else NONE
    prefill = "prefill_time.chunks" if chunks > 1 else "prefill_time.one_chunk"
    return [
        worded("prefill_flops", pf.flops / 1e12, "TFLOP",
               _said("prefill_flops.formula", flops=flops, attention=attention, per_gpu=per_gpu(s), tflop=tflop)),
        worded("prefill_time", pf.total * 1e3, "ms",
               _said(prefill, main=main, comm=ms(pf.comm), fixed=ms(pf.fixed), chunks=chunks, total=ms(pf.total))),
        worded("prefill_speed", s.prompt / pf.total, "tokens/s", Text.model_construct(en=speed, zh=speed.replace("tokens", "token"))),
        worded("ttft", ttft * 1e3, "ms", _said("ttft.formula", prefill=ms(pf.total), wait=wait, total=ms(ttft))),
    ]  # fmt: skip


def streaming_line(s: ServingSetup, step: Step, pf: Prefill, batch: float, streaming: float) -> LineItem:
    """The speed each user sees after the first token: own prefill left out (it is the TTFT), the others' stalls in."""
    others, out, per_prompt = g(max(batch - 1, 0)), f"{s.output:,}", ms(pf.amortised(batch))
    return worded("streaming_speed", streaming, "tokens/s",
                  _said("streaming_speed.formula", out=out, step=ms(step.total), others=others, per_prompt=per_prompt, speed=g(streaming)))


def throughput_line(s: ServingSetup, step: Step, pf: Prefill, batch: float, replicas: int, total: float) -> LineItem:
    b, out, per_prompt = g(batch), f"{s.output:,}", ms(pf.amortised(batch))
    tail = f"({out} × {ms(step.total)} + {b} × {per_prompt}"
    return worded("output_throughput", total, "tokens/s",
                  _said("output_throughput.formula", replicas=replicas, batch=b, out=out, tail=tail, total=g(total)))


def capacity_line(s: ServingSetup, cap: Capacity) -> LineItem:
    fraction, budget = f"{s.engine.memory_fraction:g}", g(cap.budget / GB)
    weights, runtime = g(cap.weights / GB), g(cap.overhead / GB)
    of = "kv_capacity.of_total" if s.engine.memory_basis == "total" else "kv_capacity.of_free"
    basis = _said(of, fraction=fraction, budget=budget, weights=weights, runtime=runtime)
    free, per, tokens = g(cap.free / GB), g(cap.per_sequence / 1e6), f"{s.prompt + s.output:,}"
    return worded("kv_capacity", cap.max_batch, "sequences",
                  _said("kv_capacity.formula", basis=basis, free=free, per=per, tokens=tokens, fit=cap.max_batch))


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
        row = r.link_row
        source = row.source + (f" (fitted on {', '.join(row.fitted_on)})" if row.fitted_on else "") if row else s.data.interconnect.source
        used.append(EfficiencyUsed(key="allreduce_latency", value=r.link_latency * 1e6, unit="µs", source=source))
    used.append(EfficiencyUsed(key="memory_fraction", value=engine.memory_fraction, unit="share", source=engine.memory_source))
    return used
