"""What a serving question asks for (a speed, a concurrency, a GPU count, a latency), and whether the
precision it names is a choice to be answered. The words live in data/serving_asks.yaml."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml

from advisor.name_matcher import normalize_text
from advisor.nlu.cues import says
from advisor.nlu.speed_scope import Scope, scope_at
from advisor.nlu.values import find_values
from knowledge.answer_text import focus_words
from knowledge.catalog import Catalog

ASKS_FILE = Path(__file__).parent / "data" / "serving_asks.yaml"
Asked = Literal["speed", "concurrency", "gpu_count", "latency"]


@lru_cache(maxsize=1)
def _words() -> dict[str, tuple[str, ...]]:
    raw = yaml.safe_load(ASKS_FILE.read_text(encoding="utf-8")) or {}
    return {kind: tuple(normalize_text(word) for word in words) for kind, words in raw.items()}


def _says(kind: str, text: str) -> bool:
    folded = normalize_text(text)
    return any(word in folded for word in _words()[kind])


def asked_of(text: str) -> Asked | None:
    """What this one message asks for, or None when it asks none of them in words. Concurrency is checked
    first: "how many chats can 4 A100s hold" is read by the ``asks_count`` cues as a count, but asks how many chats."""
    if _says("concurrency", text):
        return "concurrency"
    if says("asks_count", text):
        return "gpu_count"
    return "latency" if _says("latency", text) else None


def serving_asks(messages: list[str]) -> Asked:
    """What a conversation's serving question asks for: the newest message that says it, else a speed.

    "and on 4 of them?" after "how many concurrent chats fit…" still asks for the concurrency."""
    return next((kind for text in reversed(messages) if (kind := asked_of(text))), "speed")


def serving_asks_earlier(messages: list[str]) -> Asked | None:
    """What the newest of the user's earlier messages that asks a serving question asks for; None when none does.
    "what's the TTFT for this?" after "how many L20 for 2,000 users?" is asked of the setup that count sized."""
    return next((kind for text in reversed(messages) if (kind := asked_of(text))), None)


def asks_precision_choice(text: str) -> bool:
    """ "should we use FP8?": the precision named is a choice to weigh, not a given."""
    return _says("precision_choice", text)


def asks_if_observed_is_normal(text: str) -> bool:
    """ "we see 15 tok/s with 32 users, is that normal?": the speed stated is a measurement to judge."""
    return _says("observed_check", text)


def claims_rate(text: str) -> bool:
    """ "the vendor says we'll get 30k tok/s, realistic?": a rate is stated by someone to be believed, and checked."""
    return _says("rate_claim", text)


def observed_speed(text: str, catalog: Catalog) -> float | None:
    """The tokens/s a "is this normal?" question reports having measured, or a claim puts to the check (its first
    speed), else None."""
    if not (asks_if_observed_is_normal(text) or claims_rate(text)):
        return None
    return next((float(value.value) for value in find_values(normalize_text(text), catalog) if value.kind == "rate"), None)


def observed_scope(text: str, catalog: Catalog) -> Scope | None:
    """Whom the measured speed of a "is this normal?" question is of: "total" for "our batch job does 2k tok/s in total",
    "per_user" for "12 tok/s per user" (by the words beside it, else by its size: advisor/nlu/speed_scope.py); None when none."""
    if not (asks_if_observed_is_normal(text) or claims_rate(text)):
        return None
    folded = normalize_text(text)
    found = next((value for value in find_values(folded, catalog) if value.kind == "rate"), None)
    return None if found is None else scope_at(folded, found.start, found.end, float(found.value))


def job_joins(text: str) -> tuple[int, ...]:
    """Where the message joins one job to the next ("and", "plus", and their Chinese forms in knowledge/answer_text.yaml
    ``focus.job_joiners``): a task word across such a word belongs to the other job (in "70B quantised inference and a
    LoRA of a 30B" the inference goes with the 70B, even where Chinese word order puts it right before the 30B)."""
    lowered = text.casefold()
    found = []
    for word in focus_words("job_joiners")["joins"]:
        at = lowered.find(word)
        while at >= 0:
            end = at + len(word)
            ascii_word = word.isascii() and word[:1].isalnum()
            whole = not ascii_word or ((at == 0 or not lowered[at - 1].isalnum()) and (end == len(lowered) or not lowered[end].isalnum()))
            if whole:
                found.append(at)
            at = lowered.find(word, end)
    return tuple(found)


def reports_serving(text: str) -> bool:
    """A slowdown report about serving (an engine, requests, inference) rather than a training run."""
    return _says("serving_report", text)


def reports_slowdown(text: str) -> bool:
    """ "it crawls", "only a few requests run", "inference is very slow": a slowdown or a stall is reported."""
    return _says("slowdown_report", text)


def names_reasoning_model(text: str) -> bool:
    """The message names a reasoning model (R1, QwQ, a "thinking" model): long outputs per request."""
    return _says("reasoning_model", text)


def reports_latency(text: str) -> bool:
    """ "the first reply takes 8 s", "p99 TTFT blows up under load": a late first token or a latency tail is described."""
    return _says("latency_report", text)


def states_latency_budget(text: str) -> bool:
    """ "first token under 2 s", "TTFT within 1.5 s": a time stated as a requirement to meet, not a delay being seen."""
    return _says("latency_budget", text)


def names_tail_latency(text: str) -> bool:
    """ "p99", "under load", "at peak": the latency complained of is the tail under load, where requests queue for prefill."""
    return _says("tail_latency", text)


def weighs_parallelism(text: str) -> bool:
    """ "expert parallel or two TP=2 replicas?": how the cards split the model is weighed."""
    return _says("parallelism_choice", text)


def shares_prefix(text: str) -> bool | None:
    """True when a prompt part shared by many requests is described, False when the user says none is, else None."""
    if _says("no_shared_prefix", text):
        return False
    return True if _says("shared_prefix", text) else None


def is_latency_target(surface: str, catalog: Catalog) -> bool:
    """"first token under 1 second", "500 milliseconds": a time (kept in ms), not a speed per user ("20 tokens/s")."""
    return any(value.kind == "latency" for value in find_values(normalize_text(surface), catalog))
