"""How old a dated price is, against a `today` the caller passes (tools never read the clock)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from pydantic import BaseModel

from knowledge.bilingual import Text
from knowledge.gpus import GPU
from knowledge.wording import shipped

COST_TEXT = shipped("cost_text.yaml")

STALE_AFTER_MONTHS = 6


def price_date(text: str) -> dt.date:
    """'2026-11-09' → that day; '2026-11' → the 1st; '2026' → 1 January: a partial date is read at its
    earliest, so the age shown is never younger than the price may be."""
    parts = [int(p) for p in str(text).split("-")]
    year, month, day = (parts + [1, 1])[:3]
    return dt.date(year, month, day)


def age_months(text: str, today: dt.date) -> float:
    return (today - price_date(text)).days / 30.44


def is_stale(text: str, today: dt.date | None, months: float = STALE_AFTER_MONTHS) -> bool:
    """True when the price is older than ``months`` on ``today``; False when no day was given."""
    return today is not None and age_months(text, today) > months


class StalePrice(BaseModel):
    what: Text
    date: str
    age_months: float


def stale_purchase_prices(gpus: Iterable[GPU], today: dt.date | None) -> list[StalePrice]:
    """The purchase prices of ``gpus`` (each once, in order) older than 6 months on ``today``."""
    seen: set[str] = set()
    stale = []
    for gpu in gpus:
        price = gpu.purchase_price
        if gpu.id in seen or price is None or not is_stale(price.date, today):
            continue
        seen.add(gpu.id)
        stale.append(StalePrice(what=COST_TEXT.text("prices.purchase", gpu=gpu.name), date=price.date,
                                age_months=round(age_months(price.date, today), 1)))  # fmt: skip
    return stale
