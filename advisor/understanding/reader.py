"""Read a message in its conversation: intent with confidence, slots with roles, and the task it continues."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from advisor.language import LanguageInfo, analyze_language, default_currency
from advisor.name_matcher import normalize_text
from advisor.understanding.corpus import TASKS
from advisor.understanding.frame import INTEGER_ROLES, Frame, Money, SlotValue, build_frame
from advisor.understanding.model import TaggedValue, load_or_train, top_probabilities
from advisor.understanding.values import find_values
from knowledge.catalog import Catalog, load_catalog

HISTORY_TURNS = 6  # earlier user turns read to rebuild the dialogue state; the server stays stateless
CARRY_OVER = ("greeting", "injection", "out_of_scope", "concept", "troubleshoot")  # these leave the last task open


@dataclass
class Reading:
    text: str
    language_info: LanguageInfo
    intent: str
    confidence: float
    alternatives: list[tuple[str, float]]
    tagged: list[TaggedValue]
    frame: Frame  # what this message states
    task: str | None = None  # the calculation asked for: this message's task or, for a follow-up, the one it continues
    state: Frame = field(default_factory=Frame)  # the task's slots over the conversation

    @property
    def language(self) -> str:
        return self.language_info.language

    @property
    def follow_up(self) -> bool:
        return self.intent == "follow_up"


class Understanding:
    def __init__(self, catalog: Catalog, cache_dir: Path | None = None):
        self.catalog = catalog
        self.model = load_or_train(catalog, cache_dir)

    def read_one(self, text: str) -> Reading:
        text = text if isinstance(text, str) else ""
        info = analyze_language(text)
        values = [] if "nonsense" in info.flags else find_values(text, self.catalog)
        intent, confidence, probabilities = self.model.intent(text, values)
        tagged = self.model.roles_of(text, values, intent)
        frame = build_frame(tagged, normalize_text(text), default_currency(info.language))
        return Reading(text, info, str(intent), confidence, top_probabilities(probabilities), tagged, frame)

    def read(self, message: str, history: list[str] = ()) -> Reading:
        """``message`` read after the user's earlier messages ``history`` (oldest first)."""
        task, state = None, Frame()
        for earlier in list(history)[-HISTORY_TURNS:]:
            task, state = advance(task, state, self.read_one(earlier))
        reading = self.read_one(message)
        reading.task, reading.state = advance(task, state, reading)
        return reading


SUBJECT = ("model", "size")
RESTATABLE = INTEGER_ROLES | {"horizon", "gpu_memory"}
SHORT = 40  # characters: a follow-up is a short amendment, not a new full question
FOLLOW_UP_EVIDENCE = 0.1  # the classifier's own probability that a short message continues the conversation
CONFIDENT_NEW_TASK = 0.7  # above this, a short question of another task ("租两个月多少钱") is that task, with the slots carried


def advance(task: str | None, state: Frame, reading: Reading) -> tuple[str | None, Frame]:
    """The dialogue state after one more message: a new question starts a frame, a follow-up edits it.

    A message that names no model of its own is read against the open question: a short one the
    classifier also finds follow-up-like, or one asking the same task again ("单张4090够吗" after a
    sizing question), is a follow-up; a different task ("那租两个月多少钱") keeps its own intent
    but carries the slots over.
    """
    own_subject = any(reading.frame.has(slot) for slot in SUBJECT)
    amendable = reading.intent in TASKS or (reading.intent in ("concept", "out_of_scope") and reading.frame.names())
    bare = _only_values(reading)
    if task is not None and state.names() and (bare or not own_subject) and amendable:
        probability = dict(reading.alternatives).get("follow_up", 0.0)
        short_and_unsure = len(reading.text.strip()) <= SHORT and reading.confidence < CONFIDENT_NEW_TASK
        if reading.intent == task or bare or (short_and_unsure and probability >= FOLLOW_UP_EVIDENCE):
            reading.intent = "follow_up"
        elif reading.intent in TASKS:
            return reading.intent, state.updated(reading.frame)
    if reading.intent in TASKS:
        return reading.intent, reading.frame
    if reading.intent == "follow_up":
        if task is None:
            return None, reading.frame
        _bare_number_takes_last_role(reading, state)
        _restated_amounts(reading, state)
        return task, state.updated(reading.frame)
    if reading.intent in CARRY_OVER:
        return task, state
    return None, Frame()


@lru_cache(maxsize=4)
def shared_understanding(cache_dir: Path | None = None) -> Understanding:
    """One trained model per process (and per cache directory) for the shipped catalog."""
    return Understanding(load_catalog(), cache_dir)


# What is left of "5090s?", "H200呢", "and 32k?" once the values are taken out: nothing a question needs.
FILLER = re.compile(r"[\s\W_]+|呢|吗|吧|呀|啊|那|还有|and|or|vs|then|instead|with|what|how|about|ok", re.IGNORECASE)


def _only_values(reading: Reading) -> bool:
    """A message that is only values (and particles) amends the open question, whatever its wording resembles."""
    if not reading.tagged or len(reading.frame.all("gpu")) > 1:  # "L4 or A10?" is a comparison of its own
        return False
    text = normalize_text(reading.text)
    for item in sorted(reading.tagged, key=lambda item: -item.value.start):
        text = text[: item.value.start] + " " + text[item.value.end :]
    return len(FILLER.sub("", text)) <= 1


# Amounts whose shape (currency per unit, a span of time) names the slot they restate.
RESTATABLE_BY_KIND = {"money": ("budget", "server_price", "cloud_price", "electricity_price"), "duration": ("deadline", "horizon")}


def _restated_amounts(reading: Reading, state: Frame) -> None:
    """'what if it's $50k' after a $100k budget: an amount of the same shape as exactly one amount the
    conversation already has restates it, whichever role the tagger guessed for it on its own."""
    for item in reading.tagged:
        role = item.role
        if item.value.kind not in RESTATABLE_BY_KIND or state.has(role) or role not in reading.frame.slots:
            continue
        stated = [v for v in reading.frame.slots[role] if v.start == item.value.start]
        if not stated:
            continue
        same_shape = [
            slot
            for slot in state.order
            if slot in RESTATABLE_BY_KIND[item.value.kind] and slot not in reading.frame.slots and _same_shape(state.get(slot), stated[0].value)
        ]
        if len(same_shape) == 1:
            reading.frame.slots[role].remove(stated[0])
            if not reading.frame.slots[role]:
                del reading.frame.slots[role]
            reading.frame.slots[same_shape[0]] = stated


def _same_shape(earlier: object, newer: object) -> bool:
    if isinstance(earlier, Money) or isinstance(newer, Money):
        return isinstance(earlier, Money) and isinstance(newer, Money) and earlier.per == newer.per
    return True


def _bare_number_takes_last_role(reading: Reading, state: Frame) -> None:
    """'how about 3' / 'make it 5': a lone number with no unit changes the number the user last gave."""
    if reading.frame.names():
        return
    bare = [item for item in reading.tagged if item.value.kind == "number"]
    numeric = [slot for slot in reversed(state.order) if slot in RESTATABLE and state.has(slot)]
    if len(bare) == 1 and numeric:
        slot = numeric[0]
        value = bare[0].value.value
        reading.frame.slots[slot] = [SlotValue(int(value) if slot in INTEGER_ROLES else value, bare[0].value.surface, bare[0].value.start)]
