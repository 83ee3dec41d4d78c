"""Which named values a message mentions beside its question rather than asks about.

"We used to run Llama 2 13B on 8 A100s, now we want Qwen2.5 32B on two 4090s": the model, cards and count of the
first clause are the earlier setup; the question is about the Qwen on the 4090s. "Serve our fine-tuned model", said in
Chinese with the method word and an ending (``described_by_method``), names a method that describes the model, not
the job. The words are data (``data/aside_cues.yaml``); the decision is made once, while the tagger gives each value
its role (``model.UnderstandingModel.roles_of``): a value set aside plays no role, so no answer sizes it, and the Ask
names the models set aside (``Ask.aside_models``) for the answer to say so.

A value is set aside only when its group (models, cards, counts, methods) has another value outside the aside
words: the one model of "we used to run Llama 70B, what card for it now?" is still the subject."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from advisor.nlu.facets import cue_pattern
from advisor.nlu.number_values import Value
from knowledge.bilingual import Phrases

CUES_FILE = Path(__file__).parent / "data" / "aside_cues.yaml"
GROUP = {"model": "model", "params": "model", "gpu": "gpu", "gpu_family": "gpu", "other_gpu": "gpu",
         "count_gpu": "count", "count_server": "count", "method": "method"}  # fmt: skip
CLAUSE_ENDS = set(",;。!?\n")  # after normalize_text full-width marks are ASCII; "." ends a clause only before a space
LIKENED_REACH = 16  # "similar to the Llama 70B": the likening words stand right before the model
TROUBLESHOOT = "troubleshoot"


class AsideCues(BaseModel):
    model_config = ConfigDict(extra="forbid")
    past_setup: Phrases
    set_aside_before: Phrases
    likened_model_before: Phrases
    described_by_method: list[str] = Field(min_length=1)


@lru_cache(maxsize=1)
def _cues() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], tuple[str, ...]]:
    table = AsideCues.model_validate(yaml.safe_load(CUES_FILE.read_text(encoding="utf-8")))
    cues = (table.past_setup, table.set_aside_before, table.likened_model_before)
    return (*(cue_pattern(c) for c in cues), tuple(table.described_by_method))


def _clauses(text: str) -> list[tuple[int, int]]:
    """Where each clause of ``text`` starts and ends: commas, semicolons and sentence ends part them."""
    spans, start = [], 0
    for i, char in enumerate(text):
        if char in CLAUSE_ENDS or (char == "." and text[i + 1 : i + 2].isspace()):
            spans.append((start, i))
            start = i + 1
    return [*spans, (start, len(text))]


class Message:
    """A normalized message with its clauses, found once: set_aside asks for the clause of every value (and of pairs of
    values), so the spans are computed when the message is read, not once per question about them."""

    __slots__ = ("text", "clauses", "starts")

    def __init__(self, text: str):
        self.text = text
        self.clauses = _clauses(text)
        self.starts = [a for a, _ in self.clauses]  # rising: a pasted log has thousands of clauses, found by bisection

    def clause_start(self, at: int) -> int:
        """Where the clause holding position ``at`` starts (the last start at or before it)."""
        return self.starts[bisect_right(self.starts, at) - 1] if at >= 0 else 0

    def same_clause(self, one: Value, other: Value) -> bool:
        return any(a <= one.start <= b and a <= other.start <= b for a, b in self.clauses)


def _led_aside(message: Message, value: Value, lead: re.Pattern[str]) -> bool:
    """Words earlier in ``value``'s clause put what follows them beside the question ("on two 4090s instead of Llama
    70B on 4 A100s": the Llama and the A100s)."""
    return lead.search(message.text, message.clause_start(value.start), value.start) is not None


def set_aside(text: str, values: list[Value], intent: str) -> set[int]:
    """The indices of ``values`` (found in normalized ``text``) that the message mentions beside its question."""
    past = _cues()[0]
    message = Message(text)
    past_clauses = [(a, b) for a, b in message.clauses if past.search(text, a, b)]
    aside = set()
    for i, value in enumerate(values):
        if value.kind in GROUP and _beside(message, value, intent, past_clauses):
            aside.add(i)
    # Replacing words before cards alone weigh two cards ("train on B200 rather than H100: how much faster?"); they
    # put cards aside only with the model they ran ("Qwen 7B on one 4090 instead of Llama 70B on 8 A100s").
    replaced_models = [values[i] for i in aside if GROUP[values[i].kind] == "model"]
    aside = {i for i in aside if GROUP[values[i].kind] not in ("gpu", "count") or _in_past(values[i], past_clauses)
             or any(message.same_clause(values[i], model) for model in replaced_models)}
    for i in sorted(aside):  # "trained with LoRA" said in Chinese: the method that leads into a described one describes the model with it
        if values[i].kind == "method" and i > 0 and values[i - 1].kind == "method" and message.same_clause(values[i - 1], values[i]):
            aside.add(i - 1)
    kept_groups = {GROUP[v.kind] for i, v in enumerate(values) if v.kind in GROUP and i not in aside}
    # a count set aside with its card ("on 8 A100s") goes with it even when the question counts no cards of its own
    aside_cards = [values[i] for i in aside if GROUP[values[i].kind] == "gpu" and "gpu" in kept_groups]
    return {i for i in aside if GROUP[values[i].kind] in kept_groups
            or (GROUP[values[i].kind] == "count" and any(message.same_clause(values[i], card) for card in aside_cards))}


def _beside(message: Message, value: Value, intent: str, past_clauses: list[tuple[int, int]]) -> bool:
    """Whether words around ``value`` put it beside the question: an earlier-setup clause, a describing ending of a
    method word, replacing words earlier in its clause, likening words right before a model."""
    _, lead, likened, described = _cues()
    text = message.text
    if value.kind == "method" and intent == TROUBLESHOOT:  # in a problem report the method done is the setup that failed
        return False
    if _in_past(value, past_clauses) or _led_aside(message, value, lead):
        return True
    if value.kind == "method":
        return text.startswith(described, value.end)
    return value.kind in ("model", "params") and likened.search(text, max(0, value.start - LIKENED_REACH), value.start) is not None


def _in_past(value: Value, past_clauses: list[tuple[int, int]]) -> bool:
    return any(a <= value.start and value.end <= b for a, b in past_clauses)
