"""How old a dated price is, against a `today` the caller passes (tools never read the clock)."""

from __future__ import annotations

import datetime as dt

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
