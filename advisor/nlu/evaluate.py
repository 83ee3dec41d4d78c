"""Measure understanding on a labelled split: intent accuracy, slot F1, multi-turn success, confusion.

Slots are compared as (slot, resolved value) pairs, so "[8 cards](gpu_count)" and a tagger
that marked only "8" agree; a gold span no built-in value covers is compared by its words.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from advisor.language import default_currency
from advisor.name_matcher import normalize_text
from advisor.nlu.corpus import TASKS, Conversation, Corpus, Utterance, read_files, training_corpus
from advisor.nlu.frame import Frame, Money, implicitly_replaced, resolve
from advisor.nlu.model import ROLES_BY_KIND, TaggedValue
from advisor.nlu.reader import COMMITMENT_AFTER, Reading, Understanding
from advisor.nlu.slot_schema import SLOT_SCHEMA
from advisor.nlu.values import find_values
from knowledge.catalog import variant_family

HELDOUT_DIR = Path(__file__).resolve().parents[2] / "tests" / "data" / "heldout"
# Conversation splits written blind later, each from schema.yaml alone, and what has been done with
# them since: a split whose misses were read for causes is tuning data; one whose miss counts per
# kind (never its items) were watched while tuning is partly tuned; the unseen one is the honest number.
# When the unseen split's misses are read, a new blind split must replace it.
BLIND_SPLITS = {
    "heldout2": "misses read", "heldout3": "misses read", "heldout4": "misses read", "heldout5": "misses read",
    "heldout6": "never read (scored about 17 times)", "heldout7": "misses read", "heldout8": "misses read",
    "heldout9": "misses read", "heldout10": "misses read",
    "heldout11": "misses read (unseen: 0.780 / 0.780, then 0.820 / 0.820)", "heldout12": "misses read (unseen: 0.720 / 0.900, then 0.740 / 0.900)",
    "heldout13": "misses read (unseen: 0.720 / 0.660)", "heldout14": "misses read (unseen: 0.700 / 0.840, then 0.680 / 0.840, 0.760 / 0.840 with sentence vectors)",
    "heldout15": "misses read (unseen: 0.880 / 0.840, then 0.900 / 0.860 twice)",
    "heldout16": "misses read (unseen: 0.820 / 0.900, then 0.820 / 0.880)",
    "heldout17": "misses read (unseen: 0.820 / 0.780, then 0.820 / 0.800)",
    "heldout18": "misses read (unseen: 0.880 / 0.820, then 0.880 / 0.860 twice)",
    "heldout19": "misses read (unseen: 0.860 / 0.720, then 0.840 / 0.680, 0.800 / 0.680)",
    "heldout20": "misses read (unseen: 0.920 / 0.840, then 0.940 / 0.820, 0.920 / 0.860)",
    "heldout21": "misses read (unseen: 0.860 / 0.940, then 0.860 / 0.880)",
    "heldout22": "misses read (unseen: 0.880 / 0.900 at its first score and after heldout21's fixes)",
    "heldout23": "misses read (unseen: 0.880 / 0.900 at its first score, then 0.820 / 0.900 after heldout22's first fixes)",
    "heldout24": "misses read (unseen: 0.860 / 0.920 at its first score, then 0.840 / 0.900 after heldout23's fixes)",
    "heldout25": "never read (unseen: 0.980 / 0.980 on 7cbf0ba, before heldout24's fixes; 0.980 / 0.980 after them)",
    "heldout26": "never read (unseen: 0.900 / 0.940 on 7cbf0ba, before heldout24's fixes; 0.920 / 0.960 after them)",
}  # fmt: skip
FRESH_CONVERSATIONS = "heldout26"


@dataclass
class LanguageScore:
    utterances: int = 0
    intent_correct: int = 0
    slot_true_positive: int = 0
    slot_predicted: int = 0
    slot_gold: int = 0
    conversations: int = 0
    conversations_ok: int = 0
    conversations_ok_by_label: int = 0
    confusion: Counter = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)

    @property
    def intent_accuracy(self) -> float:
        return self.intent_correct / self.utterances if self.utterances else 0.0

    @property
    def slot_f1(self) -> float:
        precision = self.slot_true_positive / self.slot_predicted if self.slot_predicted else 0.0
        recall = self.slot_true_positive / self.slot_gold if self.slot_gold else 0.0
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0

    @property
    def multi_turn(self) -> float:
        return self.conversations_ok / self.conversations if self.conversations else 0.0

    @property
    def multi_turn_by_label(self) -> float:
        return self.conversations_ok_by_label / self.conversations if self.conversations else 0.0


def heldout_files() -> list[Path]:
    return sorted(HELDOUT_DIR.glob("understanding_*.yaml"))


def evaluate(understanding: Understanding, data: Corpus) -> dict[str, LanguageScore]:
    scores: dict[str, LanguageScore] = defaultdict(LanguageScore)
    for utterance in data.utterances:
        score = scores[utterance.language]
        reading = understanding.read_one(utterance.text)
        score.utterances += 1
        score.confusion[(utterance.intent, reading.intent)] += 1
        if reading.intent == utterance.intent:
            score.intent_correct += 1
        else:
            score.misses.append(f"intent {utterance.intent} → {reading.intent}: {utterance.text[:90]!r}")
        gold, predicted = gold_slots(utterance, understanding), predicted_slots(reading)
        hits = sum((Counter(gold) & Counter(predicted)).values())
        score.slot_true_positive += hits
        score.slot_gold += len(gold)
        score.slot_predicted += len(predicted)
        if hits < max(len(gold), len(predicted)):
            missing, extra = sorted(set(gold) - set(predicted), key=str), sorted(set(predicted) - set(gold), key=str)
            score.misses.append(f"slots missing {missing} extra {extra}: {utterance.text[:90]!r}")
    for conversation in data.conversations:
        score = scores[conversation.language]
        score.conversations += 1
        ok, ok_by_label, why = conversation_succeeds(understanding, conversation)
        score.conversations_ok += ok
        score.conversations_ok_by_label += ok_by_label
        if not ok:
            score.misses.append(f"conversation {conversation.id}: {why}")
    return dict(scores)


def conversation_succeeds(understanding: Understanding, conversation: Conversation) -> tuple[bool, bool, str]:
    """Every turn gets the answer its label asks for, and every follow-up re-runs the right task with the right slots.

    A slot may hold several values ("H100 in the US or H800 in China"), so slots are compared as
    sets of values: the frame must hold every value the user gave for the task and has not replaced.

    Two labels give the same answer when the open task goes on: a question of the open task that
    keeps its setup ("can I still buy it now?" after a spec table, labelled follow-up or specs) and a further
    detail of a problem thread ("is the card broken, then?", labelled troubleshoot or follow-up). Either reading
    counts if the task and the frame are right. Returns (success, success with every turn read as
    its labelled intent, why not).
    """
    task, state, anchor_gold, relabelled = None, Frame(), {}, False
    for turn in conversation.turns:
        reading = understanding.read_one(turn.utterance.text)
        open_task = task
        task, state = understanding.advance(task, state, reading)
        gold: dict[str, set] = defaultdict(set)
        for slot, value in gold_slots(turn.utterance, understanding):
            gold[slot].add(value)
        if turn.utterance.intent in TASKS:
            anchor_gold = dict(gold)
        elif turn.utterance.intent == "follow_up":
            gold = _commitment_never_shortens(turn.utterance, gold, anchor_gold)
            anchor_gold = {**_without_replaced(anchor_gold, gold), **gold}
        expected_task = turn.expect_task
        if reading.intent != turn.utterance.intent:
            labelled = turn.expect_task if turn.utterance.intent == "follow_up" else turn.utterance.intent
            if not (labelled == open_task == task and "follow_up" in (reading.intent, turn.utterance.intent)):
                return False, False, f"turn {turn.utterance.text[:60]!r} read as {reading.intent}, not {turn.utterance.intent}"
            expected_task, relabelled = labelled, True
        if expected_task:
            if task != expected_task:
                return False, False, f"follow-up {turn.utterance.text[:60]!r} continued {task}, not {expected_task}"
            have: dict[str, set] = defaultdict(set)
            for slot, value in _frame_pairs(state):
                have[slot].add(value)
            have["gpu_count"] |= set(state.all("gpus_per_server"))  # "two servers of 8 cards": the 8 is held, per server, beside the total
            missing = {
                slot: lacking for slot, values in anchor_gold.items()
                if (lacking := {v for v in _lacking(values, have[slot]) if not _named_by_gpu(slot, v, have["gpu"], understanding)})
            }  # fmt: skip
            if missing:
                return False, False, f"after {turn.utterance.text[:60]!r} the frame lacks {missing}"
    return True, not relabelled, ""


def _commitment_never_shortens(utterance: Utterance, gold: dict, anchor: dict) -> dict:
    """The schema's commitment convention: "35% off for a 1-year reservation" after "over 3 years" still compares
    three years, though the one year is marked as a horizon; a commitment only ever lengthens the comparison."""
    said = [v for v in gold.get("horizon", ()) if isinstance(v, (int, float))]
    held = [v for v in anchor.get("horizon", ()) if isinstance(v, (int, float))]
    committed = any(span.slot == "horizon" and COMMITMENT_AFTER.search(normalize_text(utterance.text[span.start : span.end + 16])) for span in utterance.spans)
    return {slot: values for slot, values in gold.items() if slot != "horizon"} if committed and said and held and max(said) < max(held) else gold


def _lacking(gold: set, have: set) -> set:
    """Gold values the frame does not hold. An amount written without its full unit ("the rent fell to 1.5 kuai",
    "$1/hr") is read on its own as a one-off or hourly sum; in the conversation it keeps the unit of
    the amount it restates, so it is held when the frame has that amount in that unit."""
    held = {(v.amount, v.currency): v.per for v in have if isinstance(v, Money)}
    return {v for v in gold - have if not (isinstance(v, Money) and (v.amount, v.currency) in held and _unit_implied(v.per, held[v.amount, v.currency]))}


def _named_by_gpu(slot: str, value: object, gpus: set, understanding: Understanding) -> bool:
    """A variant said apart from its GPU ("the SXM version", "what about the 80G one?") is held when the frame's GPU is
    that variant: the words are in its id, or the memory is its size; and the GPU it was said of is then
    held by its variant."""
    held = [g for g in (understanding.catalog.find_gpu(str(gpu)) for gpu in gpus) if g is not None]
    if slot == "gpu" and understanding.catalog.find_gpu(str(value)) is not None:  # the earlier GPU, now in the variant asked for
        return any(variant_family(g.id) == variant_family(str(value)) for g in held)
    if slot == "gpu" and isinstance(value, str):
        words = re.findall(r"[a-z]+|\d+", value.lower().replace("pci-e", "pcie"))
        return bool(words) and any(all(w in re.findall(r"[a-z]+|\d+", g.id) for w in words) for g in held)
    return slot == "gpu_memory" and isinstance(value, (int, float)) and any(abs(g.memory_gb - value) < 1 for g in held)


def _unit_implied(written: str, held: str) -> bool:
    """"$1/hr" after a price per GPU-hour is per GPU-hour; an amount with no unit takes the unit it restates."""
    return written == "once" or (written, held) == ("hour", "gpu_hour")


def _without_replaced(earlier: dict, newer: dict) -> dict:
    replaced = implicitly_replaced(list(newer))
    return {slot: value for slot, value in earlier.items() if slot not in replaced}


def gold_slots(utterance: Utterance, understanding: Understanding) -> list[tuple[str, object]]:
    """Each annotated span as (slot, value): the built-in value inside it resolved, else its words."""
    text = normalize_text(utterance.text)
    values = find_values(utterance.text, understanding.catalog)
    currency = default_currency(utterance.language)
    pairs = []
    for span in utterance.spans:
        inside = [v for v in values if v.start < span.end and span.start < v.end and span.slot in _playable(v.kind)]
        words = " ".join(text[span.start : span.end].split())
        bare_numbers = [v for v in values if v.kind == "number" and v.surface == words]
        if inside:
            pairs.append((span.slot, _comparable(resolve(TaggedValue(inside[0], span.slot, 1.0), currency))))
        elif bare_numbers:  # "make it 5" labelled as a horizon: the number, in the unit the slot already has
            pairs.append((span.slot, _comparable(float(bare_numbers[0].value))))
        else:
            pairs.append((span.slot, words))
    return pairs


def _playable(kind: str) -> set[str]:
    """The labelled slots a value of ``kind`` can fill: a card the catalog lacks (``other_gpu``) is scored as the
    ``gpu`` a labeller marks (schema.yaml ``scored_as``)."""
    return {SLOT_SCHEMA.scored_as(slot) for slot in ROLES_BY_KIND.get(kind, set())} - {None}


def predicted_slots(reading: Reading) -> list[tuple[str, object]]:
    return _frame_pairs(reading.frame)


def _frame_pairs(frame: Frame) -> list[tuple[str, object]]:
    """Each value under the labelled slot it is scored as (schema.yaml ``scored_as``): a card the catalog lacks is held
    apart (``other_gpu``) so that its name is kept, and scored as ``gpu``; a slot no label marks is left out."""
    return [
        (SLOT_SCHEMA.scored_as(slot), _comparable(value.value))
        for slot, values in frame.slots.items() if SLOT_SCHEMA.scored_as(slot) for value in values
    ]  # fmt: skip


def _comparable(value: object) -> object:
    if isinstance(value, float):
        return round(value, 3)
    return value


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def blind_split(name: str) -> Corpus:
    return read_files(sorted((HELDOUT_DIR.parent / name).glob("understanding_*.yaml")))


def fresh_conversations() -> Corpus:
    return blind_split(FRESH_CONVERSATIONS)


def heldout_corpus() -> Corpus:
    """The held-out split minus the few one-liners that also occur verbatim in training ("hi", "help",
    and follow-up examples both writers were shown): an item seen in training measures nothing."""
    data = read_files(heldout_files())
    seen = _training_keys()
    data.utterances = [u for u in data.utterances if _key(u.text) not in seen]
    return data


def shared_with_training() -> list[str]:
    seen = _training_keys()
    return [u.text for u in read_files(heldout_files()).utterances if _key(u.text) in seen]


def _training_keys() -> set[str]:
    return {_key(u.text) for u in training_corpus().utterances}
