"""Buying servers to rent them out (``Ask.rents_out``): the lessor's question, not buy-against-rent for one's own use.

Revenue = rate × GPUs × hours × occupancy; running costs = power at the region's tariff with PUE + colocation +
maintenance + staff; margin = revenue − running costs; payback = purchase ÷ monthly margin, or "never" with the rate
that would cover the running costs and the rate (or occupancy) that repays the purchase within the horizon. Every figure
is compute_tco's ``lessor`` view (costs.tco runs it with plan.rent_or_buy's arguments) or its tier rates; this module runs
the falling-rent look-up (plan.trend_args → rental_prices) and render.lessor words the answer."""

from __future__ import annotations

from advisor.offline.tasks.tco import plan, render
from advisor.offline.turn import Turn


def answer(turn: Turn, r: dict, inputs: str) -> str:
    """The lessor's answer from compute_tco's result ``r``; ``inputs`` is the folded list of the inputs given and defaulted.
    Cards already owned have no payback to stretch: no trend is looked up for them."""
    trend = rent_trend(turn, r) if r.get("keep_or_rent") is None else None
    return render.lessor(turn, r, inputs, trend)


def rent_trend(turn: Turn, r: dict) -> dict | None:
    """rental_prices' falling-rent trend for the card of compute_tco's result ``r``, when its horizon is long enough for it
    to move a payback (plan.trend_args); None otherwise or when no trend is sourced."""
    args = plan.trend_args(r)
    if args is None:
        return None
    market = turn.call("rental_prices", args)
    return market.result.get("trend") if market.ok else None
