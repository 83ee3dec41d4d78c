"""The serving engine a question names, when the speed estimates can use it."""

from __future__ import annotations

from advisor.offline.turn import Turn

# the serving engines the speed estimates model (ollama, mlc, exllamav2, autoawq with borrowed figures)
ENGINES = ("hf", "vllm", "sglang", "trtllm", "lmdeploy", "llamacpp", "ollama", "mlc", "exllamav2", "autoawq")


def engine_of(turn: Turn) -> str | None:
    """The serving engine named, when our data has speeds for it; another one ("MindIE", "KTransformers") is said to be unused."""
    if turn.slots.frame.get("engine") in (None, *ENGINES):
        return turn.slots.engine  # marked as used
    turn.slots.unusable["engine"] = (
        "our data has no measured speeds for this engine, so the estimate uses the usual engine for the card",
        "我们的数据里没有这个引擎的实测速度，按该卡常用的引擎估算",
    )
    return None
