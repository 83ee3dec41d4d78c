"""The rent-or-buy defaults for the region the servers run in: its sourced electricity and colocation prices in
place of the planning defaults, and a record of which prices had no source there (the default then stands, and the
answer says so). A company's own prices (ADVISOR_PRICES) always win over a region's published average."""

from __future__ import annotations

from knowledge.bilingual import Text
from knowledge.region_tariffs import RegionPrice, region_tariffs
from knowledge.sources import DatedQuote
from knowledge.tco_defaults import Default

ELECTRICITY_KEYS = {"USD": "electricity_price_usd", "CNY": "electricity_price_cny"}
COLOCATION_KEY = "colo_price_per_kw_month_usd"


def _in(price: RegionPrice, currency: str, usd_to_cny: float) -> float:
    """The figure in USD or CNY: as published when it was published in that currency, else from its USD value."""
    if price.currency == currency:
        return price.value
    return price.usd * usd_to_cny if currency == "CNY" else price.usd


def _sourced(price: RegionPrice, value: float, unit: str, where: str) -> Default:
    s = price.source
    average = " (global average: no figure of the region's own)" if price.global_average else ""
    return Default(value=value, unit=unit, basis=f"{where}{average}: {s.title}, {s.date}",
                   sources=(DatedQuote(url=s.url, title=s.title, says=s.says, date=s.date),))  # fmt: skip


def _cited(price: RegionPrice | None) -> str:
    """'<date>, [title](url)': where a reader checks a regional price; "" when the region has none."""
    return f"{price.source.date}, [{price.source.title}]({price.source.url})" if price else ""


def _fallback(d: Default, where: str) -> Default:
    return d.model_copy(update={"basis": f"no sourced price for {where}, planning default used: {d.basis}"})


def _us_tariff(defaults: dict[str, Default], currency: str, usd_to_cny: float) -> Default:
    """The planning tariff a region without a sourced one falls back to: the US industrial figure (in yuan for a CNY
    answer), never China's, which is a tariff of its own and not a stand-in for another country's."""
    us = defaults[ELECTRICITY_KEYS["USD"]]
    if currency == "USD":
        return us
    return us.model_copy(update={"value": us.value * usd_to_cny, "unit": "CNY/kWh", "basis": f"{us.basis}; converted at {usd_to_cny:g} CNY/USD"})


def regional_defaults(defaults: dict[str, Default], region: str | None, usd_to_cny: float) -> tuple[dict[str, Default], dict | None]:
    """``defaults`` with the region's electricity and colocation prices, and what the result reports about them
    (``RegionUsed`` fields), or the defaults unchanged and None with no region."""
    found = region_tariffs().get(region) if region else None
    if found is None:
        return defaults, None
    where = found.name.en
    updated = dict(defaults)
    company = {key for key, d in defaults.items() if d.overridden_by}
    for currency, key in ELECTRICITY_KEYS.items():
        if key in company:
            continue
        updated[key] = (_sourced(found.electricity, _in(found.electricity, currency, usd_to_cny), f"{currency}/kWh", where)
                        if found.electricity else _fallback(_us_tariff(defaults, currency, usd_to_cny), where))  # fmt: skip
    if COLOCATION_KEY not in company:
        updated[COLOCATION_KEY] = (_sourced(found.colocation, found.colocation.usd, "USD/kW-month", where)
                                   if found.colocation else _fallback(defaults[COLOCATION_KEY], where))  # fmt: skip
    used = {
        "region": region, "name": Text(en=found.name.en, zh=found.name.zh),
        "electricity_fallback": found.electricity is None, "colocation_fallback": found.colocation is None,
        "colocation_global_average": bool(found.colocation and found.colocation.global_average),
        "electricity_source": _cited(found.electricity), "colocation_source": _cited(found.colocation),
    }
    return updated, used
