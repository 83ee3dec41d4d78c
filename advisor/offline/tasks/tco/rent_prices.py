"""What renting a GPU costs, or whether a quoted rate is fair ("what's a reasonable price to rent an H100?",
"is $4.50 an hour for one H100 expensive?"): the verdict first, then each cloud tier's range with dates and sources.

Nothing is bought and nothing is trained, so neither the rent-or-buy model (it needs a server price) nor a
spec sheet (one catalog figure) answers it: the rental_prices tool gives the market tier by tier.
"""

from __future__ import annotations

from advisor.markdown import money, number, table
from advisor.nlu.frame import Money
from advisor.offline.wording import Wording
from advisor.offline.slots import CALCULATED_CURRENCIES
from advisor.offline.tasks.tco import plan, price_dates
from advisor.offline.tasks.tco.spans import span
from advisor.offline.turn import Turn
from knowledge.bilingual import Text
from tools.cost.money import DEFAULT_USD_TO_CNY, USD_TO_CNY_SOURCE, convert
from tools.cost.tco_model import HOURS_PER_MONTH

WORDING = Wording("tco", "rent_prices")
JOINERS = Wording("tco", "joiners")
PER_HOUR = ("gpu_hour", "hour", "once")  # a rate said without a period ("$4.50 a card") is per GPU-hour, as in rent-or-buy
PERIOD_HOURS = {"month": HOURS_PER_MONTH, "year": 12 * HOURS_PER_MONTH}


def _quote(turn: Turn, currency: str) -> tuple[float | None, str]:
    """The rate to judge per GPU-hour in ``currency``, and the currency it was said in; a monthly rent per card
    ("8000 a month per card") is spread over the month's hours."""
    price = turn.slots.hourly_price
    if not isinstance(price, Money) or price.currency not in CALCULATED_CURRENCIES:
        return None, currency
    amount = convert(price.amount, price.currency, currency, DEFAULT_USD_TO_CNY)
    if price.per in PERIOD_HOURS:
        hourly = amount / PERIOD_HOURS[price.per]
        turn.assume(*WORDING.both("lines.monthly_per_gpu_hour" if price.per == "month" else "lines.yearly_per_gpu_hour",
                                  amount=money(amount, currency), hourly=money(hourly, currency), hours=PERIOD_HOURS[price.per]))
        return hourly, price.currency
    return (amount if price.per in PER_HOUR else None), price.currency


def band(low: float | None, high: float | None, currency: str) -> str:
    if low is None or high is None:
        return "—"
    return money(low, currency) if abs(high - low) < 0.005 else f"{money(low, currency)}–{money(high, currency)}"


def answer(turn: Turn) -> str:
    s = turn.slots
    quoted_money = s.hourly_price
    currency = (
        quoted_money.currency
        if isinstance(quoted_money, Money) and quoted_money.currency in CALCULATED_CURRENCIES
        else turn.currency
    )
    quoted, _ = _quote(turn, currency)
    gpus = s.gpu_count or 1
    months = plan.rented_months(turn)
    share = s.utilisation if s.utilisation is not None else 1.0
    if months is not None:
        hours = gpus * HOURS_PER_MONTH * months * share
    else:
        hours = gpus * HOURS_PER_MONTH if gpus > 1 else None
    outcome = turn.call("rental_prices", plan.market_args(turn, s.gpus[0], currency, gpus, quoted_price_per_gpu_hour=quoted, gpu_hours=hours))
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    s.mark("cloud_price", "gpu_count", "region", "horizon", "utilisation")
    cur = r["currency"]
    what = r["gpu_name"]
    fair = band(r["fair_low"], r["fair_high"], cur)
    ceiling = band(r["ceiling_low"], r["ceiling"], cur)
    bill = _bill(turn, r, what, gpus, months, s.utilisation) if months is not None else ""
    parts = [bill] if bill else [(_from_owning(turn, r, gpus) if not (r["tiers"] or r.get("catalog_rent")) else "") or _lead(turn, r, what, fair, ceiling)]
    if r["gpu_hours"] and not bill:
        fair_tier = next((t for t in r["tiers"] if t["tier"] == r["fair_tier"]), None)
        top = next((t for t in r["tiers"] if t["tier"] == "hyperscaler_on_demand"), None)
        if fair_tier is not None:  # a whole box asked for ("8x H100 a month"): its month leads, the per-card rate follows
            parts.insert(0, WORDING.say(turn, "fleet", gpus=gpus, what=what, hours=number(r["gpu_hours"]),
                                        fair_cost=band(fair_tier["cost_low"], fair_tier["cost_high"], cur),
                                        ceiling_cost=money(top["cost_high"], cur) if top else "—"))  # fmt: skip
    if other_market_line(turn, r):  # the buyer's market has no rent for the card: whose the figures are, right under them
        parts.insert(1, other_market_line(turn, r))
    if r["large"]:
        parts.append(WORDING.say(turn, "large", gpus=gpus))
    if r["tiers"]:
        parts.append(WORDING.say(turn, "why"))
        parts.append(_table(turn, r, what))
        parts.append(offer_sources(turn, r))
    if r["missing_tiers"] and r["tiers"]:
        parts.append(WORDING.say(turn, "missing", what=what, tiers=JOINERS.say(turn, "tiers_joiner").join(turn.text(t) for t in r["missing_tiers"])))
    if r["stale_count"]:
        parts.append(WORDING.say(turn, "stale", count=r["stale_count"], months=price_dates.STALE_MONTHS))
    turn.cite("rent-vs-buy", WORDING.say(turn, "rent_prices_phrases.answer.rent_vs_buy"))
    return "\n\n".join(parts)


def other_market_line(turn: Turn, r: dict) -> str:
    """rental_prices' result ``r`` priced the card in another market (the buyer's has no rent for it): whose figures they
    are and the rate they were converted at, for every answer that prices an hour from it; "" otherwise."""
    if not r.get("other_market") or not (r["tiers"] or r.get("catalog_rent")):
        return ""
    return WORDING.say(turn, f"other_market.{r['other_market']}", what=r["gpu_name"], fx=number(r["usd_to_cny"], 2), fx_date=USD_TO_CNY_SOURCE.date)


def _bill(turn: Turn, r: dict, what: str, gpus: int, months: float, utilisation: float | None) -> str:
    """The bill for renting the GPUs for the months said, at the fair tier's range, on-demand as the ceiling."""
    if months is not None and utilisation is None:
        turn.assume(*WORDING.pair("rent_prices_phrases.bill.rented_around_the_clock_no"))  # fmt: skip
    fair = next((t for t in r["tiers"] if t["tier"] == r["fair_tier"]), None)
    top = next((t for t in r["tiers"] if t["tier"] == "hyperscaler_on_demand"), None)
    if fair is None or top is None:
        return ""
    use = WORDING.say(turn, "bill_use", utilisation=number(utilisation * 100)) if utilisation is not None else ""
    if turn.ask.names_hyperscaler:  # "on AWS": their list price first
        committed = next((t for t in r["tiers"] if t["tier"] == "hyperscaler_1yr"), None)
        return WORDING.say(turn, "bill_hyperscaler", gpus=gpus, what=what, months=number(months), hours=number(r["gpu_hours"]), use=use,
                           ceiling_cost=band(top["cost_low"], top["cost_high"], r["currency"]), ceiling=band(top["low"], top["high"], r["currency"]),
                           fair_cost=band(fair["cost_low"], fair["cost_high"], r["currency"]), fair_tier=WORDING.say(turn, f"fair_tier.{r['fair_tier']}"),
                           fair=band(fair["low"], fair["high"], r["currency"]),
                           committed=WORDING.say(turn, "bill_committed", cost=money(committed["cost_low"], r["currency"])) if committed else "")  # fmt: skip
    return WORDING.say(turn, "bill", gpus=gpus, what=what, months=number(months), hours=number(r["gpu_hours"]), use=use,
                       fair_cost=band(fair["cost_low"], fair["cost_high"], r["currency"]), fair_tier=WORDING.say(turn, f"fair_tier.{r['fair_tier']}"),
                       fair=band(fair["low"], fair["high"], r["currency"]), ceiling_cost=money(top["cost_high"], r["currency"]))  # fmt: skip


def _from_owning(turn: Turn, r: dict, gpus: int) -> str:
    """No tier prices the card: a first estimate of its rent from what owning it costs a lessor whose cards are always
    let (purchase, power and upkeep per GPU-hour at full use); "" when the card has no purchase price either."""
    cur = r["currency"]
    owned = plan.owning_hour(turn, turn.slots.gpus[0], gpus, cur, utilisation_pct=100)
    if not owned.ok:
        return ""
    rate = owned.result["own_cost_per_used_gpu_hour"]
    basis = WORDING.say(turn, "owning_basis", span=span(owned.result["horizon_months"]))
    missing = JOINERS.say(turn, "tiers_joiner").join(turn.text(t) for t in r["missing_tiers"])
    return WORDING.say(turn, "lead.from_owning", rate=money(rate, cur), monthly=money(rate * gpus * HOURS_PER_MONTH, cur), gpus=gpus,
                       what=r["gpu_name"], missing=missing, basis=basis)  # fmt: skip


def _lead(turn: Turn, r: dict, what: str, fair: str, ceiling: str) -> str:
    cur = r["currency"]
    missing = JOINERS.say(turn, "tiers_joiner").join(turn.text(t) for t in r["missing_tiers"])
    if not r["tiers"] and r.get("catalog_rent"):  # one cloud's dated list price, said as that and not as a market range
        rent = r["catalog_rent"]
        published = WORDING.say(turn, "published", price=money(rent["quoted_price"], rent["quoted_currency"])) if rent["quoted_currency"] != cur else ""
        return WORDING.say(turn, "lead.catalog", what=what, rate=money(rent["price"], cur), offer=turn.text(Text.model_validate(rent["offer"])) + published,
                           date=rent["date"], title=rent["source_title"] or "", url=rent["source_url"] or "", missing=missing)  # fmt: skip
    if not r["tiers"]:
        return WORDING.say(turn, "lead.none", what=what, missing=missing)
    if r["fair_tier"] is None:
        return WORDING.say(turn, "lead.ceiling_only", what=what, ceiling=ceiling)
    china = r["fair_tier"] == "china"
    if r["verdict"] is None:
        key = "lead.fair" if r["ceiling"] is not None else "lead.fair_no_ceiling"
        return WORDING.say(turn, key, what=what, fair=fair, ceiling=ceiling, fair_tier=WORDING.text(f"fair_tier.{r['fair_tier']}"))
    ceiling_words = WORDING.say(turn, "ceiling_words", ceiling=ceiling) if r["ceiling"] is not None else ""
    key = {"fair": "verdict.fair_china" if china else "verdict.fair", "above_fair": "verdict.above_fair_china" if china else "verdict.above_fair",
           "below_market": "verdict.below_market", "on_demand_or_more": "verdict.on_demand_or_more"}[r["verdict"]]  # fmt: skip
    if r["verdict"] == "above_fair" and r["ceiling"] is None and not china:
        key = "verdict.above_fair_china"  # no on-demand figure to set it against: the range alone
    return WORDING.say(turn, key, what=what, quoted=money(r["quoted"], cur), fair=fair, ceiling=ceiling, ceiling_words=ceiling_words,
                       over=number(r["quoted_saving_pct"] or 0, 0))  # fmt: skip


def _table(turn: Turn, r: dict, what: str) -> str:
    cur = r["currency"]
    header = [WORDING.say(turn, "table.tier"), WORDING.say(turn, "table.range"), WORDING.say(turn, "table.offers")]
    if r["gpu_hours"]:
        header.insert(2, WORDING.say(turn, "table.cost", hours=number(r["gpu_hours"])))
    rows = []
    for tier in r["tiers"]:
        row = [turn.text(tier["name"]), band(tier["low"], tier["high"], cur), str(len(tier["offers"]))]
        if r["gpu_hours"]:
            row.insert(2, band(tier["cost_low"], tier["cost_high"], cur))
        rows.append(row)
    return WORDING.say(turn, "table.title", what=what, currency=cur) + "\n\n" + table(header, rows)


def offer_sources(turn: Turn, r: dict) -> str:
    cur = r["currency"]
    lines = []
    for tier in r["tiers"]:
        for offer in tier["offers"]:
            marks = [WORDING.say(turn, "marks.derived")] if offer["derived"] else []
            if offer["stale"]:
                marks.append(WORDING.say(turn, "marks.stale", months=price_dates.STALE_MONTHS))
            if offer["quoted_currency"] != cur:
                original = band(offer["quoted_low"], offer["quoted_high"], offer["quoted_currency"])
                marks.append(WORDING.say(turn, "marks.converted", original=original))
            price = band(offer["low"], offer["high"], cur) + (JOINERS.say(turn, "marks", marks=JOINERS.say(turn, "mark_joiner").join(marks)) if marks else "")
            key = "company_line" if offer["company"] else "source_line"
            lines.append(WORDING.say(turn, key, tier=turn.text(tier["name"]), offer=turn.text(Text.model_validate(offer["offer"])), price=price,
                                     date=offer["date"], title=offer["source_title"] or "", url=offer["source_url"] or ""))  # fmt: skip
    return "**" + WORDING.say(turn, "sources_title") + "**\n" + "\n".join(f"- {line}" for line in lines)
