"""Buying servers to rent them out (``Ask.rents_out``): the lessor's question, not buy-against-rent for one's own use.

Revenue = rate × GPUs × hours × occupancy; running costs = power at the region's tariff with PUE + colocation +
maintenance + staff; margin = revenue − running costs; payback = purchase ÷ monthly margin, or "never" with the rate
that would cover the running costs and the rate (or occupancy) that repays the purchase within the horizon. Every figure
is compute_tco's ``lessor`` view or its tier rates."""

from __future__ import annotations

import datetime as dt

from advisor.markdown import money, number, table
from advisor.offline.tasks.tco.tariffs import region_line
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text

WORDING = Wording("tco", "lessor")
COSTS = Wording("tco", "costs")
MULTI_YEAR = 2  # horizons from two years on: long enough for the falling rent to move a lessor's payback
MARKET_TIERS = ("china", "specialist", "hyperscaler_on_demand")  # what a renter compares a lessor's rate with, cheapest kind first


def answer(turn: Turn, r: dict, inputs: str) -> str:
    """The lessor's answer from compute_tco's result ``r`` (called with ``rents_out``); ``inputs`` is the folded list of
    the inputs given and defaulted."""
    v, cur = r["lessor"], r["currency"]
    years = r["horizon_months"] / 12
    values = {"gpus": r["total_gpus"], "gpu": r["gpu_name"] or "GPU", "rate": money(v["rate_per_gpu_hour"], cur), "occupancy": number(v["occupancy_pct"]),
              "revenue": money(v["revenue_per_month"], cur), "running": money(v["running_cost_per_month"], cur), "capex": money(r["capex"], cur),
              "years": number(years)}  # fmt: skip
    if r.get("keep_or_rent") is not None:  # cards already owned: what they cost is spent, only the monthly margin is in play
        key = "lead.owned_margin" if v["margin_per_month"] > 0 else "lead.owned_loss"
        lead = WORDING.say(turn, key, margin=money(abs(v["margin_per_month"]), cur), resale=money(r["keep_or_rent"]["resale_now"], cur), **values)
        reach = WORDING.say(turn, "owned_needs", rate_cover=money(v["rate_to_cover_running"], cur), **values)
    elif v["payback_months"] is None:
        lead = WORDING.say(turn, "lead.never", loss=money(-v["margin_per_month"], cur), **values)
        reach = WORDING.say(turn, "never_needs", rate_cover=money(v["rate_to_cover_running"], cur), rate_needed=money(v["rate_to_pay_back_in_horizon"], cur), **values)
    else:
        lead = WORDING.say(turn, "lead.payback", months=number(v["payback_months"]), margin=money(v["margin_per_month"], cur), **values)
        reach = _reach(turn, v, values, cur)
    parts = [lead]
    if v["rate_from_market"] and r.get("rent_tier_name"):
        parts.append(WORDING.say(turn, "rate_from_market", tier=Text.model_validate(r["rent_tier_name"]), rate=values["rate"]))
    parts += [reach, *filter(None, [_market(turn, r), region_line(turn, r)]), WORDING.say(turn, "occupancy_note")]
    if r.get("keep_or_rent") is None:  # the trend line speaks of a payback: cards already owned have none to stretch
        parts += filter(None, [_trend(turn, r, years)])
    parts += [_table(turn, v, cur), inputs]
    turn.cite("rent-vs-buy", COSTS.say(turn, "costs_phrases.tco.rent_vs_buy"))
    return "\n\n".join(parts)


def _reach(turn: Turn, v: dict, values: dict, cur: str) -> str:
    """Whether the purchase is repaid within the horizon, the profit or loss over it, and what would repay it in time."""
    result = WORDING.say(turn, "makes" if v["profit_over_horizon"] >= 0 else "loses")
    shared = {**values, "profit": money(abs(v["profit_over_horizon"]), cur), "rate_needed": money(v["rate_to_pay_back_in_horizon"], cur),
              "occupancy_needed": number(v["occupancy_to_pay_back_in_horizon_pct"]), "result": result}  # fmt: skip
    if v["payback_months"] <= v["horizon_months"]:
        return WORDING.say(turn, "within", **shared)
    return WORDING.say(turn, "beyond" if v["occupancy_to_pay_back_in_horizon_pct"] <= 100 else "beyond_unreachable", **shared)


def _market(turn: Turn, r: dict) -> str:
    """What a renter pays elsewhere for the card: the lessor's competition, one rate per kind of cloud."""
    rows = []
    for tier in MARKET_TIERS:
        row = next((t for t in r["tier_paybacks"] if t["tier"] == tier), None)
        if row is not None:
            rows.append(WORDING.say(turn, "market_row", tier=Text.model_validate(row["tier_name"]), rate=money(row["price_per_gpu_hour"], r["currency"])))
    return WORDING.say(turn, "market", rows=turn.t("; ", "；").join(rows)) if rows else ""


def _trend(turn: Turn, r: dict, years: float) -> str:
    """Over several years a lessor's rate is today's only if rents hold; they have been falling (rental_prices' trend)."""
    if years < MULTI_YEAR or r["cloud_billing"] == "monthly_bill" or not r.get("gpu_id"):
        return ""
    market = turn.call("rental_prices", {"gpu": r["gpu_id"], "currency": r["currency"], "today": dt.date.today().isoformat()})
    trend = market.result.get("trend") if market.ok else None
    if not trend:
        return ""
    return trend_words(turn, WORDING, "trend", trend)


def trend_words(turn: Turn, wording: Wording, key: str, trend: dict, **extra: object) -> str:
    """The falling-rent sentence under ``key`` of ``wording``, filled from rental_prices' ``trend``."""
    cur = trend["currency"]
    return wording.say(turn, key, gpu=trend["gpu"], then=money(trend["then_price"], cur), then_date=trend["then_date"], now=money(trend["now_price"], cur),
                       now_date=trend["now_date"], fall=number(trend["fall_pct"], 0), swing=number(trend["swing_pct"], 0), url=trend["source_url"],
                       source_date=trend["source_date"], **extra)  # fmt: skip


def _table(turn: Turn, v: dict, cur: str) -> str:
    rows = [[WORDING.say(turn, "table.revenue", hours=number(v["rented_gpu_hours"]), rate=money(v["rate_per_gpu_hour"], cur)), money(v["revenue_per_month"], cur)]]
    for key in ("energy", "colocation", "maintenance", "staff"):
        amount = v[f"{key}_per_month"]
        if amount:
            rows.append([WORDING.say(turn, f"table.{key}"), "−" + money(amount, cur)])
    margin = v["margin_per_month"]
    shown = money(margin, cur) if margin >= 0 else "−" + money(-margin, cur)
    rows.append([f"**{WORDING.say(turn, 'table.margin')}**", f"**{shown}**"])
    return table([WORDING.say(turn, "table.item"), WORDING.say(turn, "table.amount")], rows)
