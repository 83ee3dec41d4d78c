"""How old a dated price is, against a `today` the caller passes (tools never read the clock)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from pydantic import BaseModel, Field

from knowledge.bilingual import Text
from knowledge.gpus import GPU
from knowledge.price_age import price_age
from knowledge.servers import ServerClass, ServerQuote
from knowledge.wording import shipped

COST_TEXT = shipped("cost_text.yaml")

STALE_AFTER_MONTHS = price_age().stale_after_months.value  # knowledge/price_age.yaml, with the reference line it stands on
YEARS_AFTER_MONTHS = price_age().years_after_months.value  # from this age on the age is said in years (an assumption there)
MONTHS_PER_YEAR = 12


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


class DatedPrice(BaseModel):
    """One figure a price stands on and the day it applied (a card's price, the host machine's, a published quote)."""

    what: Text
    date: str


class StalePrice(DatedPrice):
    age_months: float
    age_years: int | None = Field(None, description="Whole years, when the price is old enough to be said in years "
                                  "(knowledge/price_age.yaml years_after_months); else None and the months are said.")


def age_in_years(months: float) -> int | None:
    """Whole years of a price ``months`` old when that age is said in years; None when it is said in months."""
    return int(months // MONTHS_PER_YEAR) if months >= YEARS_AFTER_MONTHS else None


def stale_among(dated: Iterable[tuple[Text, str]], today: dt.date | None) -> list[StalePrice]:
    """Each (what, date) once, in order, that is older than the stale threshold on ``today``: the one comparison every price an
    answer leans on goes through (card, whole machine, cloud rate, tariff), so none of them can age unsaid."""
    seen: set[tuple[str, str]] = set()
    stale = []
    for what, date in dated:
        key = (what.en, str(date))
        if key in seen or not str(date)[:4].isdigit() or not is_stale(str(date), today):
            continue
        seen.add(key)
        months = age_months(str(date), today)
        stale.append(StalePrice(what=what, date=str(date), age_months=round(months, 1), age_years=age_in_years(months)))
    return stale


def machine_dates(server: ServerClass | None, quote: ServerQuote | None, machines: int = 1) -> list[tuple[Text, str]]:
    """The dated figure a whole machine's price adds to its cards: the published quote of the whole server when one is
    used, else the host of its server class (chassis, CPUs, RAM, NICs, storage); nothing for a part sold without one."""
    if machines < 1:
        return []
    if quote is not None:
        return [(COST_TEXT.text("prices.server_quote", what=quote.what), quote.date)]
    return [(COST_TEXT.text("prices.host", server=server.name), server.date)] if server is not None else []


def gpu_dates(gpu: GPU, purchase_date: str | None, cloud: bool) -> list[tuple[Text, str]]:
    """A part's card price (the catalog's, or an estimate's newest anchor, passed as ``purchase_date``) and, when the
    answer shows one, its cloud rate."""
    dated = [(COST_TEXT.text("prices.purchase", gpu=gpu.name), purchase_date)] if purchase_date else []
    if cloud and gpu.cloud_price is not None:
        dated.append((COST_TEXT.text("prices.cloud", gpu=gpu.name), gpu.cloud_price.date))
    return dated
