"""Prices an answer leans on that are older than the stale threshold (knowledge/price_age.yaml), said once in the answer
with each one's age (wording: the recommend task's text.yaml, section market; the age: the tco task's, section price_age).

Answers built on a tool that reports stale prices itself (recommendations, rent-or-buy, the rental market) use
that; the rest (GPU specs, training cost, cost per token) pass the dated prices they show here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from advisor.markdown import number
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from knowledge.catalog import load_catalog
from tools.cost.price_age import STALE_AFTER_MONTHS, age_in_years, age_months, stale_among

STALE_MONTHS = number(STALE_AFTER_MONTHS, 0)  # the threshold as the notes say it ("older than 6 months")
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


def age(turn: Turn, months: float, years: int | None) -> str:
    """How old a price is in words: in months, or in whole years from knowledge/price_age.yaml years_after_months on
    (``years`` is the tool's ``StalePrice.age_years``)."""
    return AGES.say(turn, "age.years", age=years) if years is not None else AGES.say(turn, "age.months", age=number(months, 0))


def age_of(turn: Turn, date: str) -> str:
    """The age of a price dated ``date`` today, in words ("" for an undated price): for a price shown where no stale note
    follows (a launch price said on its own line)."""
    if not str(date)[:4].isdigit():
        return ""
    months = age_months(str(date), today())
    return age(turn, months, age_in_years(months))


def stale_note(turn: Turn, dated: Iterable[tuple[Text, str]]) -> list[str]:
    """One line naming each price older than the stale threshold, with its date and age; nothing when all are recent."""
    items = [turn.text(PRICES.text("stale_price", what=row.what, date=row.date, age=age(turn, row.age_months, row.age_years)))
             for row in stale_among(dated, today())]  # fmt: skip
    return [turn.text(PRICES.text("stale_prices", items=turn.t("; ", "；").join(items)))] if items else []
