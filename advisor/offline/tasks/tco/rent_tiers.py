"""Rent tiers weighed against each other, nothing bought ("is a marketplace like Vast good enough or should we stay on
AWS?", "on-demand, reserved or a GPU cloud like Lambda?"): each tier's rate and its bill at the stated use, the tier
that is cheapest among the reliable ones first, whether a commitment pays at that use, and what decides besides the
price (availability, interruption, egress, SLA: knowledge/rent_tiers.yaml).

plan.rent_tier_use gives the use; rental_prices prices every tier (pay-as-you-go tiers at the hours used, committed
tiers at every hour of the GPUs reserved); reserved_or_on_demand gives the commitment's break-even; the sentences are
render.rent_tiers_lead and render.rent_tiers_table's, from text.yaml."""

from __future__ import annotations

import math

from advisor.offline.tasks.tco import plan, price_dates, render, rent_prices
from advisor.offline.turn import Turn
from tools.cost.tco_model import HOURS_PER_MONTH

COMMITTED = ("hyperscaler_1yr", "hyperscaler_3yr")


def answer(turn: Turn) -> str:
    use = plan.rent_tier_use(turn)
    outcome = turn.call("rental_prices", plan.market_args(turn, use.gpu, use.currency, use.gpus, gpu_hours=use.hours_per_month))
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    tiers = {t["tier"]: t for t in r["tiers"]}
    reserved_gpus = max(1, math.ceil(use.hours_per_month / HOURS_PER_MONTH - 1e-9))
    billed = {}  # a committed tier bills every hour of each GPU reserved, used or not
    if any(t in tiers for t in COMMITTED):
        every_hour = turn.call("rental_prices", plan.market_args(turn, use.gpu, use.currency, reserved_gpus, gpu_hours=reserved_gpus * HOURS_PER_MONTH))
        if every_hour.ok:
            billed = {t["tier"]: t for t in every_hour.result["tiers"] if t["tier"] in COMMITTED}
    commitment = None
    if "hyperscaler_1yr" in tiers and "hyperscaler_on_demand" in tiers:
        weighed = turn.call("reserved_or_on_demand", {"reserved_per_gpu_hour": plan.reference_rate(tiers["hyperscaler_1yr"]),
                                                      "on_demand_per_gpu_hour": plan.reference_rate(tiers["hyperscaler_on_demand"]),
                                                      "gpu_hours_per_month": use.hours_per_month, "peak_gpus": reserved_gpus,
                                                      "currency": r["currency"]})  # fmt: skip
        commitment = weighed.result if weighed.ok else None
    parts = [render.rent_tiers_lead(turn, r, use, commitment, billed, reserved_gpus), render.rent_tiers_table(turn, r, use, billed)]
    parts.append(rent_prices.offer_sources(turn, r))
    if r["missing_tiers"]:
        parts.append(rent_prices.WORDING.say(turn, "missing", what=r["gpu_name"], tiers=turn.t("; ", "、").join(turn.text(t) for t in r["missing_tiers"])))
    if r["stale_count"]:
        parts.append(rent_prices.WORDING.say(turn, "stale", count=r["stale_count"], months=price_dates.STALE_MONTHS))
    return "\n\n".join(parts)
