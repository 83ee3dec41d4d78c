""" "What can I run on my GPUs?": the largest current model per precision, from the runnable_models tool."""

from __future__ import annotations

from advisor.markdown import number, table
from advisor.offline.wording import Wording
from advisor.offline.turn import Turn
from tools.precision import weight_format

WORDING = Wording("memory", "runnable")
ENGINE_NAMES = {"vllm": "vLLM", "llamacpp": "llama.cpp"}


def _say(turn: Turn, key: str, **values) -> str:
    return WORDING.say(turn, key, **values)


def _format_label(turn: Turn, fmt: str) -> str:
    found = weight_format(fmt)
    return (found.label_zh or found.label) if turn.language == "zh" else found.label


def _speed(turn: Turn, pick: dict) -> str:
    return _say(turn, "speed", value=number(pick["decode_tokens_per_s"])) if pick.get("decode_tokens_per_s") else ""


def answer(turn: Turn) -> str | None:
    """None when the message names no hardware: the caller answers as before."""
    s = turn.slots
    if not s.gpus and not s.gpu_memory_gb:
        return None
    args = {"gpu": s.gpus[0] if s.gpus else None, "gpu_memory_gb": s.gpu_memory_gb,
            "num_gpus": s.gpu_count or 1, "context": s.context_length}  # fmt: skip
    turn.slots.mark("gpu", "gpu_memory", "gpu_count", "context")
    outcome = turn.call("runnable_models", args)
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    hardware, memory = turn.text(r["gpu_label"]), number(r["memory_gb"])
    picks = r["picks"]
    if not picks:
        return _say(turn, "nothing", hardware=hardware, memory=memory, context=f"{r['context']:,}")
    top = max(picks, key=lambda p: p["params_b"])
    how = _say(turn, "lead_how", format=_format_label(turn, top["precision"]), per_gpu=number(top["per_gpu_gb"]), speed=_speed(turn, top))
    lead = _say(turn, "lead", hardware=hardware, memory=memory, largest=turn.text(top["model_label"]), how=how)
    if top["tight"]:
        lead = lead.rstrip("。.") + _say(turn, "tight") + ("。" if turn.language == "zh" else ".")
    others = [p for p in picks if p is not top]
    parts = [lead]
    if others:
        shown = [_say(turn, "wider_pick", model=turn.text(p["model_label"]), format=_format_label(turn, p["precision"]),
                      per_gpu=number(p["per_gpu_gb"]), speed=_speed(turn, p)) for p in others]  # fmt: skip
        parts.append(_say(turn, "wider", picks=_say(turn, "joiner").join(shown)))
    engine = ENGINE_NAMES.get(next((p["engine"] for p in picks if p.get("engine")), "vllm"), "vLLM")
    split = _say(turn, "split", tp=r["tp"]) if r["tp"] > 1 else ""
    if r["num_gpus"] > r["tp"]:
        split += _say(turn, "replicas", rest=r["num_gpus"] - r["tp"])
    parts.append(_say(turn, "assumptions", context=f"{r['context']:,}", split=split, engine=engine))
    rows = [[_format_label(turn, p["precision"]), turn.text(p["model_label"]), f"{number(p['params_b'])}B", f"{number(p['per_gpu_gb'])} GB",
             f"{number(p['headroom_pct'])}%", f"{number(p['decode_tokens_per_s'])} tok/s" if p.get("decode_tokens_per_s") else "—"] for p in picks]  # fmt: skip
    parts.append(table(turn.t(*(WORDING.data["table_header"][lang] for lang in ("en", "zh"))), rows))
    return "\n\n".join(parts)
