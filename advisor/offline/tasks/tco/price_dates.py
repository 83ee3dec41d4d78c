"""Prices an answer leans on that are over 6 months old, said once in the answer (wording: the recommend task's text.yaml, section market).

Answers built on a tool that reports stale prices itself (recommendations, rent-or-buy, the rental market) use
that; the rest (GPU specs, training cost, cost per token) pass the dated prices they show here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from knowledge.catalog import load_catalog
from tools.cost.price_age import stale_among

PRICES = Wording("recommend", "market")  # the stale-price note, worded once for every answer that shows dated prices
AGES = Wording("tco", "price_age")  # what each dated price is


def today() -> dt.date:
    """The day prices are aged against (tests move it)."""
    return dt.date.today()


def gpu_prices(gpu: dict, kinds: Iterable[str] = ("purchase_price", "cloud_price")) -> list[tuple[Text, str]]:
    """(what, date) of a catalog GPU's dated prices, as a tool returned the GPU."""
    words = {"purchase_price": "purchase", "cloud_price": "cloud"}
    return [(AGES.text(words[kind], gpu=gpu["name"]), gpu[kind]["date"]) for kind in kinds if gpu.get(kind)]


def catalog_prices(gpu_id: str, kinds: Iterable[str] = ("purchase_price", "cloud_price")) -> list[tuple[Text, str]]:
    """(what, date) of the prices in force for a GPU (the loader's: a session's own prices included)."""
    gpu = load_catalog().find_gpu(gpu_id)
    return gpu_prices(gpu.model_dump(), kinds) if gpu else []


def stale_note(turn: Turn, dated: Iterable[tuple[Text, str]]) -> list[str]:
    """One line naming each price older than 6 months, with its date; nothing when all are recent."""
    # the date says the age: no figure no tool gave
    items = [turn.text(PRICES.text("stale_price", what=row.what, date=row.date)) for row in stale_among(dated, today())]
    return [turn.text(PRICES.text("stale_prices", items=turn.t("; ", "；").join(items)))] if items else []
