"""Read a message in its conversation: intent with confidence, slots with roles, and the task it continues."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from advisor.language import default_currency
from advisor.name_matcher import normalize_text
from advisor.nlu.corpus import TASKS
from advisor.nlu.dialogue import CONTINUES, TOPIC, compares_with, on_that_setup, only_values, own_subject
from advisor.nlu.follow_up import asks_to_confirm, follow_up_subject, new_subjects
from advisor.nlu.frame import INTEGER_ROLES, Frame, Money, SlotValue, resolve
from advisor.nlu.model import TaggedValue
from advisor.nlu.pattern_words import pattern
from advisor.nlu.phrases import phrase_table
from advisor.nlu.pipeline import PIPELINE
from advisor.nlu.question_parts import question_parts
from advisor.nlu.reading import Reading, read_message, retagged
from advisor.nlu.slot_schema import SLOT_SCHEMA
from advisor.nlu.training import load_or_train
from knowledge.audience import names_a_period
from knowledge.catalog import Catalog, load_catalog

HISTORY_TURNS = PIPELINE.dialogue_state.history_turns  # the server stays stateless: the state is rebuilt from these
PROBLEM = "troubleshoot"  # a problem report's questions are asked of that one report
CARRY_OVER = ("greeting", "injection", "out_of_scope", "concept")  # these leave the last task open
LENGTHS = ("context", "prompt_tokens", "output_tokens")
# Answers that set a newly named card beside the one in question ("and against four 3090s?" after a speed): both are kept
COMPARABLE = ("specs", "training_time", "serving_speed", TOPIC)
SURE_INJECTION = PIPELINE.dialogue_state.sure_injection
SENTENCE = re.compile(r"(?<=[。！？!?；;\n])")  # where a message splits into sentences (after the mark that ends one)


class Understanding:
    def __init__(self, catalog: Catalog, cache_dir: Path | None = None):
        self.catalog = catalog
        self.model = load_or_train(catalog, cache_dir)

    def read_one(self, text: str) -> Reading:
        return read_message(text, self.model, self.catalog)

    def beside_injection(self, message: str) -> str:
        """The sentences of ``message`` that do not read as an injection, joined as written ("" when none is left)."""
        return "".join(s for s in SENTENCE.split(message) if s.strip() and self.read_one(s).intent != "injection")

    def read(self, message: str, history: list[str] = ()) -> Reading:
        """``message`` read after the user's earlier messages ``history`` (oldest first)."""
        task, state, messages = None, Frame(), []
        earlier = [piece for text in list(history)[-HISTORY_TURNS:] for piece in self._as_answered(text)]
        for text in [*earlier, message]:
            reading = self.read_one(text)
            same_thread = _same_problem(task, reading)
            reading.before = state
            reading.task, reading.state = task, state = self.advance(task, state, reading)
            reading.task_messages = messages = [*messages, reading.text] if same_thread else _task_messages(messages, reading)
        return reading

    def _as_answered(self, text: str) -> list[str]:
        """An earlier message as its answer took it: a message of several questions ("Is the 910B ready for serving, and
        what would moving cost us?") was answered part by part, so the thread after it is what its parts leave, not the
        task the whole message's words lean to (the cost of the second part); a problem report with its questions is one."""
        pieces = question_parts(text)
        if len(pieces) < 2 or self.read_one(text).intent == PROBLEM:
            return [text]
        # a last part that asks a side of the configuration the parts before it set up ("…, and what would they cost?": a
        # new subject of data/follow_up_subjects.yaml) is answered with that configuration and never becomes the thread's
        # calculation, as the same question asked as a follow-up does not: "and for training?" after it re-runs the sizing
        while len(pieces) > 1 and follow_up_subject(pieces[-1]) is not None:
            pieces = pieces[:-1]
        return pieces

    def advance(self, task: str | None, state: Frame, reading: Reading) -> tuple[str | None, Frame]:
        """The dialogue state after one more message: a new question starts a frame, a follow-up edits it.

        Whether the message continues the open question is the continuation model's call; a
        different task that names no model of its own ("then what does renting for two months cost") keeps its intent but
        carries the slots over.
        """
        same_problem = _same_problem(task, reading)
        continues = False
        if (task in TASKS or task == TOPIC) and not (reading.intent == "injection" and reading.confidence >= SURE_INJECTION) and not same_problem:
            _, as_follow_up = retagged(reading, self.model, "follow_up")
            probability = self.model.continuation.probability(reading, as_follow_up, task, state)
            # a request to confirm that names no subject of its own ("so owning wins here, correct?" after a rent-or-buy)
            # can only be about the answer just given: it continues the open calculation, whatever the classifier makes of its words
            confirms = task in TASKS and asks_to_confirm(reading.text) and not reading.frame.names()
            # a subject the open calculation's own answer gives (data/follow_up_subjects.yaml not_after: "what would the electricity
            # cost be?" after a run's time is that run's energy), naming no model or card of its own, continues it whatever the classifier reads
            answered_by_thread = task in TASKS and not own_subject(reading) and _subject_of_thread(reading.text, task)
            continues = probability >= CONTINUES or confirms or answered_by_thread
            if continues:  # how sure it is, is now how sure it continues (a confirmation surely does)
                reading.intent, reading.confidence = "follow_up", 1.0 if confirms or answered_by_thread else probability
                reading.tagged, reading.frame = retagged(reading, self.model, task)  # its values play their roles in that task
        # A follow-up of nothing, or of another question ("ok fine. rtx 5090 tdp?" after small talk): what it asks on its
        # own; its values keep the roles they play in an amendment ("buy it for 310k" is a price)
        if reading.intent == "follow_up" and not continues:
            reading.settle_besides({"follow_up"})
        self._pick_variant(reading, state)
        if reading.intent in TASKS:
            if same_problem:
                return task, state.joined(reading.frame)
            # "then what does renting for two months cost" names no model of its own; "how long would a 13B take on that" names the setup it keeps
            if state.names() and ((task in TASKS and not own_subject(reading)) or (task in (*TASKS, TOPIC) and on_that_setup(reading))):
                return reading.intent, state.updated(reading.frame)
            return reading.intent, reading.frame
        if reading.intent == "follow_up":
            if task == "troubleshoot":  # a thread gathers facts; a number in it ("xid 79", "driver 550") restates nothing
                return task, state.joined(reading.frame)
            if task in TASKS or task == TOPIC:  # "what about for 4?" after "nvlink for tp across 2 4090s?": the 2
                _bare_number_restates(reading, state)
                _restated_length(reading, state)
                _restated_load(reading, state)
                _commitment_keeps_longer_horizon(reading, state)
                _restated_amounts(reading, state)
                self._same_family(reading, state)
            beside: tuple[str, ...] = ()
            if task in COMPARABLE and (compares_with(reading) or _joins_comparison(reading, state, task)):  # "vs l40s" after the A6000's specs, "vs fsdp?" after ZeRO-3, "why slower than the A6000?" after a time: both
                beside = ("gpu",) if task != TOPIC else tuple(reading.frame.slots)
                _keep_beside(reading, state, beside)
            if task != TOPIC:
                _references_change_nothing(reading, state, beside)
            return task, state.updated(reading.frame)
        if reading.intent == "concept" and task in (None, TOPIC):  # "does int4 hurt quality?" then "and fp8?": the question is open
            return TOPIC, reading.frame
        if reading.intent in CARRY_OVER:
            return task, state
        return None, Frame()

    def _same_family(self, reading: Reading, state: Frame) -> None:
        """"what about 32B?" after Qwen2.5-14B: the size names the model of the thread's line at that size (Qwen2.5-32B),
        when the catalog has one; a size the line lacks stays a generic model of that size."""
        if reading.frame.has("model") or not reading.frame.has("size") or not state.has("model"):
            return
        model = self.catalog.find_model(str(state.get("model")))
        if model is None:
            return
        line = " ".join(word for word in model.name.replace("-", " ").split() if not _is_size_word(word))
        size = reading.frame.slots["size"][0]
        sibling = self.catalog.model_of_name_and_size(line.lower(), size.value / 1e9) if line else None
        same_line = sibling is not None and sibling.name.lower().replace("-", " ").startswith(line.lower())  # not a wider family's
        if same_line and sibling.id != model.id:
            reading.frame.slots["model"] = [SlotValue(sibling.id, size.surface, size.start)]
            del reading.frame.slots["size"]

    def _pick_variant(self, reading: Reading, state: Frame) -> None:
        """"the SXM version", "the 80G one?": another form factor or memory size of the GPU in question, the
        message's own or, in a follow-up, the conversation's. Beside other cards (its own, or a comparison
        already open) it is one more card; alone it replaces the conversation's."""
        forms, memory = reading.frame.slots.get("gpu_form", []), reading.frame.slots.get("gpu_memory", [])
        own = reading.frame.slots.get("gpu", [])
        if memory and not forms and self._another_size(reading, own, memory[0]):
            return
        if not forms and not (memory and not own and reading.intent == "follow_up"):
            return
        gpus = own or (state.slots.get("gpu", []) if reading.intent == "follow_up" else [])
        form, size = (forms[0].value if forms else None), (memory[0].value if memory else None)
        variants = {v.id: v for v in (self.catalog.gpu_variant(g.value, form, size) for g in gpus) if v is not None}
        if len(variants) != 1:
            return
        variant = next(iter(variants.values()))
        said = (forms or memory)[0]
        kept = own or (state.slots["gpu"] if len(gpus) > 1 else [])
        reading.frame.slots["gpu"] = [*[g for g in kept if g.value != variant.id], SlotValue(variant.id, said.surface, said.start)]
        reading.frame.slots.pop("gpu_form", None)
        if memory and abs(variant.memory_gb - memory[0].value) < 1:  # the size now named by the GPU itself
            del reading.frame.slots["gpu_memory"]

    def _another_size(self, reading: Reading, own: list[SlotValue], size: SlotValue) -> bool:
        """"A100 40GB or 80GB?": one card named with its size, then another size of it alone; that sibling is a second card
        beside it (the pair asked about), not a change of the first. True when the sibling was added."""
        if len(own) != 1:
            return False
        card = self.catalog.find_gpu(own[0].value)
        written = card is not None and re.search(rf"(?<!\d){card.memory_gb:g}(?!\d)", own[0].surface)
        variant = self.catalog.gpu_variant(own[0].value, None, size.value) if written else None
        if variant is None or variant.id == card.id:
            return False
        reading.frame.slots["gpu"] = [*own, SlotValue(variant.id, size.surface, size.start)]
        del reading.frame.slots["gpu_memory"]
        return True


def _is_size_word(word: str) -> bool:
    """"14B", "0.5b", "70b": the size part of a model's name."""
    return word.lower().endswith("b") and word[:-1].replace(".", "", 1).isdigit()


def _keep_beside(reading: Reading, state: Frame, slots: tuple[str, ...]) -> None:
    """The conversation's values of ``slots`` go before the ones this message names, and a card's count goes
    with it; they are marked as carried (start -1), so a count pairs with its own card, not by position."""
    carried = {slot: [replace(v, start=-1) for v in state.slots.get(slot, []) if v.value not in reading.frame.all(slot)] for slot in slots}
    if carried.get("gpu") and state.has("gpu_count"):
        carried["gpu_count"] = [replace(v, start=-1) for v in state.slots["gpu_count"]]
    for slot, held in carried.items():
        reading.frame.slots[slot] = [*held, *reading.frame.slots.get(slot, [])]


def _joins_comparison(reading: Reading, state: Frame, task: str) -> bool:
    """"and two used 3090s?" after "4090 or 5090 for a 32B, which is better value": one more option for the workload the cards were compared on."""
    return task == "specs" and len(state.all("gpu")) > 1 and reading.frame.has("gpu") and (state.has("model") or state.has("size"))


def _references_change_nothing(reading: Reading, state: Frame, beside: tuple[str, ...]) -> None:
    """"why is it so much more than inference" after a training question: a value the message measures the
    answer against is not a change to the question, so the conversation keeps its own."""
    text = normalize_text(reading.text)
    for slot, values in list(reading.frame.slots.items()):
        if slot in beside or (slot == "gpu_count" and "gpu" in beside) or not state.has(slot):  # a card set beside keeps its count
            continue
        own = [v for v in values if not phrase_table("reference_before").ending_at(text, v.start)]
        if own:
            reading.frame.slots[slot] = own
        else:
            del reading.frame.slots[slot]


def _same_problem(task: str | None, reading: Reading) -> bool:
    """A report in a problem thread (a pasted log, "do I need the vendor to swap the card?") is read with the thread so far."""
    return task == "troubleshoot" and reading.intent == "troubleshoot"


def _task_messages(messages: list[str], reading: Reading) -> list[str]:
    if reading.intent == "follow_up":
        return [*messages, reading.text]
    opens = reading.intent in TASKS or (reading.intent == TOPIC and reading.task == TOPIC)
    return [reading.text] if opens else messages


@lru_cache(maxsize=4)
def shared_understanding(cache_dir: Path | None = None) -> Understanding:
    """One trained model per process (and per cache directory) for the shipped catalog."""
    return Understanding(load_catalog(), cache_dir)


# value kind → the slots a follow-up's lone value of that kind restates (each slot's ``restated_by`` in data/schema.yaml):
# a bare number ("and 64?"), or an amount whose shape (currency per unit, a span of time) names the slot it restates.
RESTATABLE_BY_KIND = SLOT_SCHEMA.restated_by
BARE = "number"  # the kind of a number without a unit, restated by magnitude (_bare_number_restates), not by its shape


def _restated_amounts(reading: Reading, state: Frame) -> None:
    """An amount in a follow-up restates the amount of the same shape the conversation already has,
    whichever role the tagger guessed for it on its own: "what if it's $50k" after a $100k budget,
    "what about $2.8" after a $2.2/GPU-hour rate and a $280k server (the nearer magnitude, per hour),
    "relax the deadline to a month" after a two-week deadline."""
    currency = default_currency(reading.language)
    for item in reading.tagged:
        kind, role = item.value.kind, item.role
        stated = [v for v in reading.frame.slots.get(role, []) if v.start == item.value.start]
        if kind == BARE or kind not in RESTATABLE_BY_KIND or not stated:
            continue
        if not state.has(role) and item.confidence >= SURE_OF_ROLE:  # "the vendor quotes 2.8M for two servers" after a monthly rent: a new price, not the rent again
            continue
        if kind == "money":
            target = _restated_money(stated[0].value, state, reading.frame)
        else:
            durations = [slot for slot in state.order if slot in RESTATABLE_BY_KIND[kind] and slot not in reading.frame.slots]
            target = durations[0] if not state.has(role) and len(durations) == 1 else None
        if target is None:
            continue
        reading.frame.slots[role].remove(stated[0])
        if not reading.frame.slots[role]:
            del reading.frame.slots[role]
        value = resolve(TaggedValue(item.value, target, item.confidence), currency)
        if isinstance(value, Money) and (value.per in ("once", "all") or (value.per, state.get(target).per) == ("hour", "gpu_hour")):
            value = Money(value.amount, value.currency, state.get(target).per)  # "1.3 bucks per card" after "2.5 bucks per card-hour"
        reading.frame.slots[target] = [SlotValue(value, stated[0].surface, stated[0].start)]


SURE_OF_ROLE = PIPELINE.dialogue_state.sure_of_role
MAGNITUDE_SPREAD = PIPELINE.dialogue_state.magnitude_spread


def _restated_money(newer: Money, state: Frame, stated: Frame) -> str | None:
    """The money slot a follow-up's amount restates: one with the same unit, or, for an amount written
    without a unit, the one nearest in magnitude."""
    candidates = [
        slot
        for slot in state.order
        if slot in RESTATABLE_BY_KIND["money"] and isinstance(state.get(slot), Money) and (slot not in stated.slots or stated.get(slot) is newer)
        and (not newer.currency or state.get(slot).currency == newer.currency)
    ]  # fmt: skip
    if newer.per == "all":  # a total for everything bought is a purchase, never a rent again
        candidates = [slot for slot in candidates if state.get(slot).per in ("once", "all")]
    if newer.per not in ("once", "all"):
        same_unit = [slot for slot in candidates if state.get(slot).per == newer.per or (newer.per, state.get(slot).per) == ("hour", "gpu_hour")]
        return same_unit[0] if len(same_unit) == 1 else None
    near = [
        slot
        for slot in candidates
        if newer.amount > 0 and 1 / MAGNITUDE_SPREAD <= newer.amount / state.get(slot).amount <= MAGNITUDE_SPREAD
    ]
    return min(near, key=lambda slot: abs(math.log(newer.amount / state.get(slot).amount)), default=None)


def _bare_number_restates(reading: Reading, state: Frame) -> None:
    """'8192 then?' / 'make it 5': a lone number with no unit restates a number of the conversation, the
    nearest in magnitude (8192 after a 4096 context and one GPU is a context), and of those about as
    near, the one the user gave last."""
    if len(reading.tagged) != 1 or reading.tagged[0].value.kind != BARE:
        return
    if not only_values(reading):  # "and at concurrency 64?", "exchange rate at 7.2" say what their number is
        return
    number = reading.tagged[0].value
    value = float(number.value)
    amount = {slot: _magnitude(state.get(slot)) for slot in reversed(state.order) if slot in RESTATABLE_BY_KIND[BARE]}
    # "exchange rate at 7.2" restates no count: a fraction only restates a slot that holds fractions
    numeric = [slot for slot, held in amount.items() if held and (value.is_integer() or slot not in INTEGER_ROLES)]
    distance = {slot: abs(math.log(value / amount[slot])) for slot in numeric} if value > 0 else {}
    near = [slot for slot in numeric if distance.get(slot, math.inf) <= math.log(MAGNITUDE_SPREAD)]
    if not near:
        return
    closest = min(distance[slot] for slot in near)
    slot = next(slot for slot in near if distance[slot] - closest < math.log(1.5))
    if slot in RESTATABLE_BY_KIND["money"]:  # "utility just raised it to 0.19": the amount, in the unit it had
        held = state.get(slot)
        restated: object = Money(value, held.currency, held.per)
    else:
        restated = int(value) if slot in INTEGER_ROLES else value
    reading.frame.slots = {name: [v for v in values if v.start != number.start] for name, values in reading.frame.slots.items()}
    reading.frame.slots = {name: values for name, values in reading.frame.slots.items() if values}
    reading.frame.slots[slot] = [SlotValue(restated, number.surface, number.start)]


def _restated_load(reading: Reading, state: Frame) -> None:
    """"and for 400 users?" after "80 concurrent users", "and with 32 people?" after "8 people at once": people said
    in a follow-up restate the load the question had in flight, so they are at once as it was. After an audience ("a
    team of 30") they stay an audience, and daily or monthly users ("and 10k daily users?") are traffic, not a load."""
    held = state.get("concurrency")
    if reading.frame.has("concurrency") or _headcounts_of(state) or not isinstance(held, int) or isinstance(held, bool):
        return
    said = [v for v in _headcounts_of(reading.frame) if not names_a_period(v.surface)]
    if not said:
        return
    rest = [v for v in reading.frame.slots["audience"] if v not in said]
    reading.frame.slots = {name: values for name, values in reading.frame.slots.items() if name != "audience"}
    if rest:
        reading.frame.slots["audience"] = rest
    reading.frame.slots["concurrency"] = [replace(v, value=int(round(v.value))) for v in said]


def _headcounts_of(frame: Frame) -> list[SlotValue]:
    return [v for v in frame.slots.get("audience", []) if isinstance(v.value, int | float) and not isinstance(v.value, bool)]


def _restated_length(reading: Reading, state: Frame) -> None:
    """"and for 32k?" after a 10k-token prompt: a bare length restates the one length the question had."""
    if len(reading.tagged) != 1 or reading.tagged[0].value.kind != "tokens" or not only_values(reading):
        return
    read_as, held = reading.tagged[0].role, [slot for slot in LENGTHS if state.has(slot)]
    if read_as in LENGTHS and read_as not in held and len(held) == 1 and reading.frame.has(read_as):
        reading.frame.slots[held[0]] = reading.frame.slots.pop(read_as)


def _magnitude(held: object) -> float | None:
    amount = held.amount if isinstance(held, Money) else held
    return float(amount) if isinstance(amount, (int, float)) and not isinstance(amount, bool) and amount > 0 else None


# "a 3-year commitment", "sign a three-year contract": the span a commitment runs for, not the span the costs are compared over
COMMITMENT_AFTER = pattern("commitment_after", r"[\s-]*{}")


def _commitment_keeps_longer_horizon(reading: Reading, state: Frame) -> None:
    """"40% off for a 3-year commitment" after "over 2 years" compares three years; "35% off for a 1-year
    reservation" after "over 3 years" still compares three: a commitment never shortens the comparison."""
    said, held = reading.frame.slots.get("horizon", []), state.get("horizon")
    text = normalize_text(reading.text)
    if said and held and said[0].value < held and COMMITMENT_AFTER.match(text, said[0].start + len(said[0].surface)):
        del reading.frame.slots["horizon"]


def _subject_of_thread(text: str, task: str) -> bool:
    """``text`` asks a subject (data/follow_up_subjects.yaml new_subjects) that the open ``task``'s own answer gives: its
    ``not_after`` lists that task."""
    name = follow_up_subject(text)
    return name is not None and task in new_subjects()[name].not_after
