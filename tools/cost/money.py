"""Currencies for the cost tools: the two we support, conversion between them, and formatting."""

from __future__ import annotations

from typing import Literal

from knowledge.bilingual import AdvisorError
from knowledge.gpus import Price
from knowledge.tco_defaults import shipped_tco_defaults
from tools.checks import check_range

Currency = Literal["USD", "CNY"]

# The default rate and its basis live in knowledge/tco_defaults.yaml (usd_to_cny). Users can override it.
DEFAULT_USD_TO_CNY = shipped_tco_defaults()["usd_to_cny"].value
USD_TO_CNY_NOTE = shipped_tco_defaults()["usd_to_cny"].basis

_ALIASES: dict[str, Currency] = {
    "usd": "USD", "us$": "USD", "$": "USD", "dollar": "USD", "dollars": "USD", "美元": "USD", "美金": "USD",
    "cny": "CNY", "rmb": "CNY", "¥": "CNY", "￥": "CNY", "yuan": "CNY", "元": "CNY", "人民币": "CNY", "rmb¥": "CNY",
}  # fmt: skip
SYMBOLS: dict[Currency, str] = {"USD": "$", "CNY": "¥"}


def normalize_currency(text: str) -> Currency:
    """'usd', '$', '美元' → 'USD'; 'rmb', '¥', '人民币' → 'CNY'; anything else is an error."""
    key = str(text).strip().casefold()
    if key in _ALIASES:
        return _ALIASES[key]
    raise AdvisorError(
        "unknown_currency",
        f"Unknown currency '{text}'. Costs can be shown in USD or CNY.",
        f"不支持的币种“{text}”。费用只能用美元（USD）或人民币（CNY）表示。",
        ["USD", "CNY"],
    )


def check_exchange_rate(usd_to_cny: float) -> float:
    # A sanity band, not a forecast: it catches a rate typed the wrong way round (0.14).
    return check_range(usd_to_cny, "Exchange rate (CNY per USD)", "汇率（每美元兑人民币）", minimum=1, maximum=20, code="invalid_exchange_rate")


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
