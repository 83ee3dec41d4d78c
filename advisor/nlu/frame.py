"""Slots: tagged values resolved into what the tools take, and the conversation's slot frame.

A ``Frame`` maps a slot name to the values the user gave for it, in order, each with the words
it came from (so an answer can say "you said 8 cards"). The dialogue state is a frame too: a
follow-up copies the last question's frame and overrides only what it states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from advisor.nlu.cues import says
from advisor.nlu.model import INTEGER_ROLES, MONEY_ROLES, NONE, TaggedValue
from advisor.nlu.number_values import token_count
from advisor.nlu.pattern_words import alternatives, pattern
from advisor.nlu.phrases import words_in
from advisor.nlu.slot_schema import SLOT_SCHEMA
from advisor.nlu.speed_scope import scope_at
from knowledge.audience import names_a_period

HOURS_PER_YEAR = 8760.0
SUFFIX_COUNT = re.compile(r"\s*[x×*]\s*\d")  # "4090 x2": the count follows its GPU
PER_SERVER = re.compile(rf"^\s*(?:,|，|:|：)?\s*(?:{alternatives('per_server')})?\s*$")
PER_SERVER_BEFORE = pattern("per_server_before")


@dataclass(frozen=True)
class SlotValue:
    value: Any
    surface: str
    start: int = -1
    lead: str = ""  # the words before it in its clause, other values left out ("monthly rent per card" before "10k yuan")

    @property
    def said_per_card(self) -> bool:
        """A price whose words make it the price of one card ("$2 per GPU-hour", "monthly rent per card 10k yuan"), not of the
        machine ("whole-server monthly rent 80k yuan")."""
        return says("price_per_card", self.lead + " " + self.surface)

    @property
    def follows_its_card(self) -> bool:
        """A count written after its card as a multiplier ("4090 x2"), so it belongs to the card before it."""
        return bool(SUFFIX_COUNT.match(self.surface))


@dataclass
class Frame:
    slots: dict[str, list[SlotValue]] = field(default_factory=dict)

    @property
    def order(self) -> list[str]:
        """Slot names in the order the user gave them (dicts keep insertion order; updates move to the end)."""
        return list(self.slots)

    def get(self, slot: str, default: Any = None) -> Any:
        values = self.slots.get(slot)
        return values[0].value if values else default

    def all(self, slot: str) -> list[Any]:
        return [v.value for v in self.slots.get(slot, [])]

    def surface(self, slot: str) -> str:
        values = self.slots.get(slot)
        return values[0].surface if values else ""

    def has(self, slot: str) -> bool:
        return bool(self.slots.get(slot))

    def names(self) -> list[str]:
        return [name for name, values in self.slots.items() if values]

    def updated(self, newer: Frame) -> Frame:
        """This frame with every slot ``newer`` states replaced (a follow-up changes one thing)."""
        merged = {name: list(values) for name, values in self.slots.items()}
        for name, values in newer.slots.items():
            if values and all(v.value in ADDS_TO_SLOT for v in values):
                merged[name] = [*(v for v in merged.pop(name, []) if v.value != values[0].value), *values]
            elif values and not _only_more_general(values, merged.get(name, [])):
                said = {v.value for v in values}
                kept = [v for v in merged.pop(name, []) if v.value in ADDS_TO_SLOT and v.value not in said]
                merged[name] = [*kept, *values]  # re-inserted last: the most recently stated slot
        for name in implicitly_replaced([name for name, values in newer.slots.items() if values]):
            merged.pop(name, None)
        return Frame(merged)

    def joined(self, newer: Frame) -> Frame:
        """This frame with ``newer``'s values before its own: a problem thread gathers facts ("it runs fine on one node"
        after a two-node report adds the single node, it does not move the job onto it), the latest first
        ("lowered max-model-len to 16384" is the setting now)."""
        merged = {name: list(values) for name, values in self.slots.items()}
        for name, values in newer.slots.items():
            said = {v.value for v in values}
            merged[name] = [*values, *(v for v in merged.pop(name, []) if v.value not in said)]
        return Frame(merged)


# "and with fp8 training?" after a full fine-tune question keeps the fine-tune: a general word does
# not replace a value it covers.
MORE_GENERAL = {"train": {"full_finetune", "lora", "qlora", "pretrain", "finetune"}, "finetune": {"full_finetune", "lora", "qlora"}}


# "and with offload?" after ZeRO-3 adds to the sharding, and "has to be buyable in China" after "cheapest" to the
# objective: a condition is kept beside the value it qualifies, and a new value of the slot does not drop it (each
# slot's ``adds`` in data/schema.yaml).
CONDITIONS = SLOT_SCHEMA.adds("objective")  # objective values that limit the options, not rank them
ADDS_TO_SLOT = SLOT_SCHEMA.adding_values


def _only_more_general(newer: list[SlotValue], earlier: list[SlotValue]) -> bool:
    return bool(earlier) and all(isinstance(v.value, str) and earlier[0].value in MORE_GENERAL.get(v.value, ()) for v in newer)


def implicitly_replaced(stated: list[str]) -> set[str]:
    """Slots a follow-up replaces without naming them: "same but 70b" drops the named model, and back; "switch to a Hygon K100?"
    drops the catalog's card for one it lacks, and back."""
    return {other for slot in stated for other in SLOT_SCHEMA.replaces(slot) if other not in stated}


@dataclass(frozen=True)
class RequestRate:
    """A load stated as requests arriving per unit of time ("50 QPS", "3k RPM", "200 requests each second"), kept per second;
    ``unit`` is how the user wrote it. The concurrency slot holds it: the answers turn it into requests in flight."""

    per_second: float
    unit: str = "requests/second"


@dataclass(frozen=True)
class Money:
    amount: float
    currency: str
    per: str = "once"


CLAUSE_END = "，。,;；!?！？\n"


def _lead(text: str, start: int, others: list[tuple[int, int]]) -> str:
    """The words before a value in its clause, without the other values said there ("8 A100s, monthly rent per card" → "monthly rent per card",
    "one 8-card A100 server, whole-server monthly rent" → "whole-server monthly rent"): what the value is said of, not what was counted."""
    clause_start = max(text.rfind(mark, 0, start) for mark in CLAUSE_END) + 1
    words, position = [], clause_start
    for a, b in sorted((a, b) for a, b in others if a < start and b > clause_start):  # a pasted log holds hundreds
        words.append(text[position : max(position, a)])
        position = max(position, b)
    return "".join(words) + text[position:start]


def build_frame(tagged: list[TaggedValue], text: str, default_currency: str) -> Frame:
    frame = Frame()
    spans = [(item.value.start, item.value.end) for item in tagged]
    for item in tagged:
        if item.role == NONE:
            continue
        value = resolve(item, default_currency)
        if value is not None:
            lead = _lead(text, item.value.start, [span for span in spans if span != (item.value.start, item.value.end)])
            frame.slots.setdefault(item.role, []).append(SlotValue(value, item.value.surface, item.value.start, lead))
    _total_gpus(frame, text)
    # "32 users and each sees about 14 tokens/s" (measured), "50 users at 20 tokens/s each" (asked for): the users a speed is said
    # of each stream at once. A measured speed plays no role of its own in the frame (the Ask reads it), so the kind decides.
    # Only a speed each user sees makes them stream at once: "2000 tok/s total for 500 users" is the deployment's output.
    each_streams = any(item.value.kind == "rate" and item.role != "concurrency" and _rate_scope(text, item.value) == "per_user" for item in tagged)
    _group_sizes(frame, tagged, text)
    _headcounts(frame, text, each_streams)
    _most_specific_values(frame)
    _corpus_size(frame)
    _shared_period(frame)
    _token_prices(frame)
    return frame


def _token_prices(frame: Frame) -> None:
    """"$0.5 per million tokens", "2 yuan per million tokens": an amount per million tokens is an API's price whatever role the
    tagger gave it; it is never a rent, a budget or a purchase (a count of tokens beside it is a volume)."""
    for slot in MONEY_ROLES:
        priced = [v for v in frame.slots.get(slot, []) if isinstance(v.value, Money) and v.value.per == "mtok"]
        _move(frame, priced, slot, "api_price")


def _rate_scope(text: str, value) -> str:
    number = value.value if isinstance(value.value, int | float) else None
    return scope_at(text, value.start, value.end, number)


PER_SAMPLE_TOKENS = 1_000_000  # a length in tokens this short is one sample's, not a corpus


def _corpus_size(frame: Frame) -> None:
    """"200k samples of about 1.5k tokens", "50k samples × 4k tokens": a count of samples and one sample's length in tokens
    are two training_tokens values whose product is the data; the tokens the run reads are that product."""
    values = frame.slots.get("training_tokens", [])
    lengths = [v for v in values if "tok" in v.surface.lower() and v.value <= PER_SAMPLE_TOKENS]
    counts = [v for v in values if "tok" not in v.surface.lower()]
    if len(values) == 1 and len(counts) == 1:  # the sample's length may have been read as the sequence length it is
        lengths = [v for v in frame.slots.get("context", []) if "tok" in v.surface.lower()]
    if len(counts) == 1 and len(lengths) == 1 and all(v in counts or v in lengths for v in values):
        count, length = counts[0], lengths[0]
        first = min(count, length, key=lambda v: v.start)
        frame.slots["training_tokens"] = [SlotValue(count.value * length.value, f"{count.surface} × {length.surface}", first.start)]


def _most_specific_values(frame: Frame) -> None:
    """"fine-tune 13B with QLoRA" states the method twice, once in general words: the specific value is the one meant."""
    for slot, values in frame.slots.items():
        specific = {v.value for v in values if isinstance(v.value, str)}
        kept = [v for v in values if not (isinstance(v.value, str) and specific & MORE_GENERAL.get(v.value, set()))]
        if kept:
            frame.slots[slot] = kept


PHRASE_REACH = 40  # characters after a value read as its own phrase ("150 agents will be using it at the same time")


def _rest_of_phrase(text: str, value: SlotValue) -> str:
    """The words after a value up to the next number or punctuation: "15 people at the same time"."""
    return re.split(r"[,，;；。.!?？\d]", text[value.start + len(value.surface) : value.start + len(value.surface) + PHRASE_REACH])[0]


PREFIX_REACH = 6  # characters before a value that still qualify it (a two-character Chinese "at the same time" word before "50 people")


def _phrase_before(text: str, value: SlotValue) -> str:
    """The few characters before a value, back to the previous number or punctuation (at_once_word written before the count)."""
    return re.split(r"[,，;；。.!?？\d]", text[max(0, value.start - PREFIX_REACH) : value.start])[-1]


# "a team of twenty-odd", "our team of 20 people": a count right after a group is how many the group has.
GROUP_THEN_COUNT = pattern("group_then_count", r"\s*{}?\s*$")


def _counts_group(text: str, count: SlotValue, groups: list[SlotValue]) -> bool:
    return any(
        0 <= count.start - (group.start + len(group.surface)) <= 8 and GROUP_THEN_COUNT.fullmatch(text[group.start + len(group.surface) : count.start])
        for group in groups
    )  # fmt: skip


def _group_sizes(frame: Frame, tagged: list[TaggedValue], text: str) -> None:
    """"our team of 30 will use it": a bare count right after a group is the group's size even when the tagger gave it
    no role (the load answers take a peak share of it, never one user nor all 30 at once)."""
    groups = frame.slots.get("audience", [])
    if not groups:
        return
    for item in tagged:
        value = item.value.value
        if item.role != NONE or item.value.kind != "number" or not isinstance(value, int | float) or isinstance(value, bool):
            continue
        found = SlotValue(value, item.value.surface, item.value.start, "")
        group = next((g for g in groups if _counts_group(text, found, [g])), None)
        if group is not None:  # said as the whole phrase ("our team of 30"), the way the answer quotes it
            frame.slots["audience"].append(SlotValue(value, text[group.start : item.value.end], item.value.start, ""))


def _headcounts(frame: Frame, text: str, each_streams: bool = False) -> None:
    """"20 people on the team", "for twenty-odd developers", "500 daily users": the people served are the audience, not a load;
    the answer takes a peak share of them (knowledge/audience.yaml) unless a load is stated beside them ("~200 employees, 40 concurrent")
    or a speed per user is ("32 users and each sees 14 tokens/s": users who each see a speed are streaming at once). Period users
    ("500 daily users") and a group's headcount ("my team of 10") stay an audience even then."""
    loads = frame.slots.get("concurrency", [])
    groups = frame.slots.get("audience", [])
    people = [
        v for v in loads
        if not isinstance(v.value, RequestRate) and (words_in(v.surface, "headcount_word") or _counts_group(text, v, groups) or names_a_period(v.surface + _rest_of_phrase(text, v)))
        and not words_in(_phrase_before(text, v) + " " + v.surface + _rest_of_phrase(text, v), "at_once_word")
        and not (each_streams and words_in(v.surface, "headcount_word") and not _counts_group(text, v, groups) and not names_a_period(v.surface + _rest_of_phrase(text, v)))
    ]  # fmt: skip
    _move(frame, people, "concurrency", "audience")
    # "for my team of 10": a count right after a group is its headcount, whichever count the tagger took it for
    members = [v for v in frame.slots.get("gpu_count", []) if _counts_group(text, v, groups) and not words_in(v.surface + _rest_of_phrase(text, v), "gpu_word")]
    _move(frame, members, "gpu_count", "audience")
    at_once = [
        v for v in frame.slots.get("audience", [])
        if v not in people and not isinstance(v.value, RequestRate) and words_in(v.surface + _rest_of_phrase(text, v), "simultaneous_word")
    ]  # fmt: skip
    # "320 simultaneous chats", "200 agents at the same time": the people said to use it at once are a load
    _move(frame, at_once, "audience", "concurrency")
    if at_once:  # a load in flight is a whole count of sequences, as the concurrency role resolves it
        frame.slots["concurrency"] = [replace(v, value=int(round(v.value))) if v in at_once and isinstance(v.value, float) else v
                                      for v in frame.slots["concurrency"]]  # fmt: skip


HOURLY = ("hour", "gpu_hour")
SHARED_PERIOD_RATIO = 10  # no machine costs less than ten hours of renting one: an amount this close to a rent is one too


def _shared_period(frame: Frame) -> None:
    """"$2.10/hr reserved vs $3.50 on demand", "$2.1/GPU-hr on demand, reserve at $1.4": an amount without its own period
    (tagged a rent or a price), beside a rent per hour in the same currency and of its size, shares that period; it is
    the other rent, not a purchase price."""
    rents = [v.value for slot in ("cloud_price", "server_price") for v in frame.slots.get(slot, [])
             if isinstance(v.value, Money) and v.value.per in HOURLY]  # fmt: skip
    if not rents:
        return
    bare = [v for slot in ("cloud_price", "server_price") for v in frame.slots.get(slot, []) if isinstance(v.value, Money)
            and v.value.per == "once" and any(r.currency == v.value.currency and v.value.amount <= SHARED_PERIOD_RATIO * r.amount for r in rents)]  # fmt: skip
    if not bare:
        return
    _move(frame, [v for v in bare if v in frame.slots.get("server_price", [])], "server_price", "cloud_price")
    per = rents[0].per
    frame.slots["cloud_price"] = [replace(v, value=Money(v.value.amount, v.value.currency, per)) if v in bare else v
                                  for v in frame.slots["cloud_price"]]  # fmt: skip


def _move(frame: Frame, values: list[SlotValue], source: str, target: str) -> None:
    """Give ``values`` of slot ``source`` to slot ``target`` (a slot left empty is dropped)."""
    if not values:
        return
    frame.slots[source] = [v for v in frame.slots[source] if v not in values]
    if not frame.slots[source]:
        del frame.slots[source]
    frame.slots.setdefault(target, []).extend(values)


def resolve(item: TaggedValue, default_currency: str) -> Any:
    """The tool-ready value of one tagged mention."""
    value, kind, role = item.value.value, item.value.kind, item.role
    if kind == "money":
        amount, currency, per = value
        return Money(amount, currency or default_currency, per)
    if kind == "request_rate":
        return RequestRate(value, item.value.unit)
    if kind == "thousands":
        return Money(value, default_currency, "once") if role in MONEY_ROLES else round(token_count(item.value.surface, value))
    if role == "utilisation":
        if kind == "percent":
            return min(value / 100, 1.0) if value > 1 else value
        if kind == "daily":
            return min(value / 24, 1.0)
        if kind == "duration":
            return min(value / 24, 1.0) if value <= 24 else None
        if kind == "always_on":
            return 1.0
        return value / 100 if isinstance(value, float) and 1 < value <= 100 else value
    if role == "horizon":
        return value / HOURS_PER_YEAR if kind == "duration" else value
    if role in INTEGER_ROLES and isinstance(value, float):
        return int(round(value))
    return value


def _total_gpus(frame: Frame, text: str) -> None:
    """'two servers of 8 cards' / '2 nodes of 8': the card count is per server, so the total is the product."""
    servers, cards = frame.slots.get("server_count"), frame.slots.get("gpu_count")
    if not servers or not cards or cards[0].start < 0 or servers[0].start < 0:
        return
    server, card = servers[0], cards[0]
    gap = text[server.start + len(server.surface) : card.start] if card.start > server.start else ""
    before = text[max(0, card.start - 8) : card.start]
    if card.start > server.start and (PER_SERVER.match(gap) or PER_SERVER_BEFORE.search(before)):
        per_server = card.value
        frame.slots["gpus_per_server"] = [card]
        frame.slots["gpu_count"] = [SlotValue(per_server * server.value, card.surface, card.start)]


def counts_of(cards: list[SlotValue], counts: list[SlotValue]) -> list[int | None]:
    """The count said with each card (``cards`` in the order written), or None. Cards and counts carried from
    earlier messages (start -1) pair with each other in order; of the message's own, one count per card pairs
    in order, otherwise a count goes to the card right after it, or right before it when written as a suffix ("x2")."""
    carried = [i for i, card in enumerate(cards) if card.start < 0]
    paired = dict(zip(carried, (c.value for c in counts if c.start < 0)))
    own = [i for i in range(len(cards)) if i not in carried]
    said = sorted((c for c in counts if c.start >= 0), key=lambda v: v.start)
    if len(said) == len(own):
        paired |= {i: c.value for i, c in zip(own, said)}
    else:
        for c in said:
            after = [i for i in own if 0 <= cards[i].start - (c.start + len(c.surface)) <= 12 and i not in paired]
            before = [i for i in own if 0 <= c.start - (cards[i].start + len(cards[i].surface)) <= 3 and i not in paired][::-1]
            ordered = before + after if c.follows_its_card else after + before
            if ordered:
                paired[ordered[0]] = c.value
    return [paired.get(i) for i in range(len(cards))]
