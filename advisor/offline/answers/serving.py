"""“How fast will it serve?” answers, from the throughput estimator."""

from __future__ import annotations

from advisor.markdown import number, table
from advisor.offline.answers import compare, sizing
from advisor.offline.answers.engines import engine_of
from advisor.offline.answers.knowledge import related
from advisor.offline.turn import Turn

DEFAULT_GPU = "h100-sxm"


def answer(turn: Turn) -> str:
    if "estimate_throughput" not in turn.registry.names():
        return sizing.memory(turn)
    model = turn.model_reference()
    if model is None:
        return sizing.memory(turn)  # asks for the model, with what the knowledge base says
    if len(compare.options(turn)) > 1:  # "4090 x2 or A6000 for 16 users?": each option, side by side
        return compare.answer(turn, compare.options(turn), model)
    s = turn.slots
    gpu = s.gpus[0] if s.gpus else None
    if gpu is None:
        gpu = DEFAULT_GPU
        turn.assume("GPU: H100 (none named)", "显卡：未指定，按 H100 计算")
    target = s.frame.get("speed_target")
    args = {
        "model": model,
        "gpu": gpu,
        "num_gpus": s.gpu_count,
        "tp": s.tp,
        "precision": s.precision,
        "kv_precision": s.kv_precision,
        "engine": engine_of(turn),
        "batch": s.concurrency or s.batch_size,
        "prompt_tokens": s.frame.get("prompt_tokens"),
        "output_tokens": s.frame.get("output_tokens"),
    }
    if isinstance(target, float):
        key = "target_ttft_ms" if target >= 50 and "ms" in s.frame.surface("speed_target") else "target_tokens_per_s_per_user"
        args[key] = target
        s.mark("speed_target")
    s.mark("prompt_tokens", "output_tokens")
    outcome = turn.call("estimate_throughput", args)
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    lead = turn.t(
        f"**≈ {number(r['decode_tokens_per_s_per_seq'])} tokens/s per user while generating, {number(r['output_tokens_per_s_total'])} tokens/s in total with prefill counted**; "
        f"time to first token ≈ {number(r['ttft_ms'])} ms (limited by {r['bound']}).",
        f"**生成时每个用户约 {number(r['decode_tokens_per_s_per_seq'])} token/s，计入预填充后总计约 {number(r['output_tokens_per_s_total'])} token/s**；"
        f"首 token 延迟约 {number(r['ttft_ms'])} 毫秒（瓶颈：{ {'bandwidth': '显存带宽', 'compute': '算力', 'overhead': '引擎开销', 'capacity': '显存容量'}.get(r['bound'], r['bound'])}）。",
    )
    parts = [lead]
    if r.get("max_concurrency_at_target"):
        parts.append(turn.t(f"Concurrency that still meets the target: about {number(r['max_concurrency_at_target'])}.", f"满足目标的最大并发：约 {number(r['max_concurrency_at_target'])}。"))
    parts += [f"ℹ️ {turn.text(note)}" for note in r.get("notes", [])]  # queueing, layers run in turn, the weights' file, a generic model
    rows = turn.item_rows(r.get("lines", []))
    if rows:
        parts.append(table([turn.t("Item", "项目"), turn.t("Value", "数值"), turn.t("Formula", "公式")], rows))
    turn.assumptions += [turn.text(a) for a in r.get("assumptions", [])[:5]]
    related(turn, f"serving throughput {turn.message}")
    return "\n\n".join(parts)
