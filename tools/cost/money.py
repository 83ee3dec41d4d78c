"""Currencies for the cost tools: the two we support, conversion between them, and formatting."""

from __future__ import annotations

from typing import Literal

from knowledge.bilingual import AdvisorError
from knowledge.gpus import Price
from knowledge.tco_defaults import shipped_tco_defaults
from knowledge.wording import shipped
from tools.checks import INPUT_NAMES, check_range

Currency = Literal["USD", "CNY"]

# The default rate and its basis live in knowledge/tco_defaults.yaml (usd_to_cny). Users can override it.
DEFAULT_USD_TO_CNY = shipped_tco_defaults()["usd_to_cny"].value
USD_TO_CNY_NOTE = shipped_tco_defaults()["usd_to_cny"].basis
# The rate's newest source, for an answer that converts a price published in USD and says at what rate and from when.
USD_TO_CNY_SOURCE = max(shipped_tco_defaults()["usd_to_cny"].sources, key=lambda source: source.date)

_ALIASES: dict[str, Currency] = {
    word.casefold(): code for code, words in shipped("currency_names.yaml").data.items() for word in words
}
SYMBOLS: dict[Currency, str] = {"USD": "$", "CNY": "¥"}


def normalize_currency(text: str) -> Currency:
    """'usd', '$' or the Chinese word for dollar → 'USD'; 'rmb', '¥', 'yuan' → 'CNY'; anything else is an error."""
    key = str(text).strip().casefold()
    if key in _ALIASES:
        return _ALIASES[key]
    raise AdvisorError(
        "unknown_currency",
        **shipped("input_errors_text.yaml").text("unknown_currency", text=text).model_dump(),
        suggestions=["USD", "CNY"],
    )


def check_exchange_rate(usd_to_cny: float) -> float:
    # A sanity band, not a forecast: it catches a rate typed the wrong way round (0.14).
    return check_range(usd_to_cny, *INPUT_NAMES.pair("exchange_rate_cny_per_usd"), minimum=1, maximum=20, code="invalid_exchange_rate")


def convert(amount: float, source: Currency, target: Currency, usd_to_cny: float) -> float:
    if source == target:
        return amount
    return amount * usd_to_cny if target == "CNY" else amount / usd_to_cny


def price_in(price: Price, target: Currency, usd_to_cny: float) -> float:
    """A catalog price converted to ``target``."""
    return convert(price.amount, price.currency, target, usd_to_cny)


def money(amount: float, currency: Currency) -> str:
    """'$1,234' or '¥1,234.56' for formula strings; small amounts keep cents."""
    digits = 2 if abs(amount) < 100 else 0
    sign = "-" if amount < 0 else ""
    return f"{sign}{SYMBOLS[currency]}{abs(amount):,.{digits}f}"
