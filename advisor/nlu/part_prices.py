"""The price a message quotes for one named part: "the 4090 sells for 16k yuan, the 5090 for 20k", "the H100 is $30k each, the H200 $38k each".
A purchase price in a clause that names exactly one part and counts neither cards nor servers is that part's card price
(a count or a server word makes it a machine's or a cluster's, which ``quote_per_card`` and the price trap read). The
premium answer sets these against each other instead of the catalog's prices."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from advisor.nlu.cues import says
from advisor.nlu.frame import CLAUSE_END, Money, SlotValue
from advisor.nlu.reading import Reading

COUNT_SLOTS = ("gpu_count", "gpus_per_server", "server_count")


class PartPrice(BaseModel):
    model_config = ConfigDict(frozen=True)

    gpu: str  # the part's catalog id as the frame holds it
    amount: float
    currency: str


def _clause(text: str, at: int) -> tuple[int, int]:
    """The bounds of the clause holding position ``at``."""
    begin = max((i + 1 for i in range(at) if text[i] in CLAUSE_END), default=0)
    end = next((i for i in range(at, len(text)) if text[i] in CLAUSE_END), len(text))
    return begin, end


def _within(values: list[SlotValue], bounds: tuple[int, int]) -> list[SlotValue]:
    return [v for v in values if v.start >= 0 and bounds[0] <= v.start < bounds[1]]


def part_prices(reading: Reading) -> tuple[PartPrice, ...]:
    text, slots = reading.text, reading.frame.slots
    found: dict[str, PartPrice] = {}
    for value in slots.get("server_price", []):
        money = value.value
        if not isinstance(money, Money) or money.per != "once" or money.amount <= 0 or value.start < 0:
            continue
        bounds = _clause(text, value.start)
        parts = {v.value for v in _within(slots.get("gpu", []), bounds)}
        servers = any(_within(slots.get("server_count", []), bounds)) or says("whole_server", text[bounds[0] : bounds[1]])
        cards_counted = any(_within(slots.get(slot, []), bounds) for slot in COUNT_SLOTS if slot != "server_count")
        # "three 8-GPU servers at $270k each": "each" is per server there, so a clause naming servers never quotes a card;
        # counted cards quote one only with a per-card word ("8 H100s at $30k each")
        if len(parts) != 1 or servers or (cards_counted and not value.said_per_card):
            continue
        gpu = next(iter(parts))
        found.setdefault(gpu, PartPrice(gpu=gpu, amount=money.amount, currency=money.currency))
    return tuple(found.values())
