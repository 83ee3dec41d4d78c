"""Whether a speed in tokens/s is what each user sees or what the whole deployment produces.

"20 tok/s each for 50 users" asks a per-user speed: those users stream at once. "2000 tok/s total for 500 users" asks a
throughput of the deployment: its output tokens per second, spread over whoever is generating. The words beside the speed
decide (cue lists ``per_user_speed`` and ``total_speed`` in ``data/ask_cues.yaml``); a speed with neither is per user up to
``per_user_speed_ceiling`` of knowledge/traffic.yaml (no interactive target asks more of one stream) and a total above it.
The frame reads it to know whether users beside a speed stream at once; the Ask carries it as ``throughput_scope``.
"""

from __future__ import annotations

from typing import Literal

from advisor.name_matcher import normalize_text
from advisor.nlu.cues import says
from knowledge.traffic import traffic_data

Scope = Literal["per_user", "total"]
CLAUSE_MARKS = ",，;；。!?！？\n"
BEFORE_REACH = 24  # characters before the speed that still qualify it ("a total throughput of 2000 tok/s")
AFTER_REACH = 20  # characters after it ("2000 tok/s in total", "20 tok/s for each user")


def _before(text: str, start: int) -> str:
    window = text[max(0, start - BEFORE_REACH) : start]
    cut = max(window.rfind(mark) for mark in CLAUSE_MARKS)
    return window[cut + 1 :]


def _after(text: str, end: int) -> str:
    window = text[end : end + AFTER_REACH]
    cuts = [at for mark in CLAUSE_MARKS if (at := window.find(mark)) >= 0]
    return window[: min(cuts)] if cuts else window


def per_user_ceiling() -> float:
    return float(traffic_data()["per_user_speed_ceiling"]["value"])


def scope_at(text: str, start: int, end: int, value: float | None) -> Scope:
    """The scope of the speed written at ``text[start:end]`` (``text`` normalised), worth ``value`` tokens/s."""
    before, after = _before(text, start), _after(text, end)
    each, total = says("per_user_speed", before, after), says("total_speed", before, after)
    if each != total:
        return "per_user" if each else "total"
    if each:  # both said: the words after the speed are its own ("for 500 users, 20 tok/s each")
        return "total" if says("total_speed", after) and not says("per_user_speed", after) else "per_user"
    return "total" if value is not None and value > per_user_ceiling() else "per_user"


def scope_of(texts: list[str], surface: str, value: float | None) -> Scope | None:
    """The scope of the speed stated as ``surface`` in the newest of ``texts`` that holds it; None when none states it."""
    if not surface:
        return None
    for text in reversed(texts):
        folded = normalize_text(text)
        at = folded.find(normalize_text(surface))
        if at >= 0:
            return scope_at(folded, at, at + len(normalize_text(surface)), value)
    return None
