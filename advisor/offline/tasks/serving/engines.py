"""The serving engine a question names, when the speed estimates can use it."""

from __future__ import annotations

from advisor.offline.wording import Wording
from advisor.offline.turn import Turn

WORDING = Wording("serving", "engines")

# the serving engines the speed estimates model (ollama, mlc, exllamav2, autoawq with borrowed figures)
ENGINES = ("hf", "vllm", "sglang", "trtllm", "lmdeploy", "llamacpp", "ollama", "mlc", "exllamav2", "autoawq")


def engine_of(turn: Turn) -> str | None:
    """The serving engine named, when our data has speeds for it; another one ("MindIE", "KTransformers") is said to be unused."""
    if turn.slots.frame.get("engine") in (None, *ENGINES):
        return turn.slots.engine  # marked as used
    turn.slots.unusable["engine"] = WORDING.pair("engines_phrases.engine_of.our_data_has_no_measured")
    return None
