"""Where a rent is heading ("will H100 rental prices drop next year?"): the trend judgement leads (the
direction the market's own prices imply, the range to plan in and what drives it, from knowledge/rent_trend.yaml), a
commitment being weighed gets the rule for its term, and today's price follows as the baseline with its dates (the
rental-market answer, rent_prices.py). Figures of the trend come from rental_prices' dated trend."""

from __future__ import annotations

from advisor.markdown import money, number
from advisor.offline.tasks.tco import plan, rent_prices
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.rent_trend import rent_trend

WORDING = Wording("tco", "price_trend")


def answer(turn: Turn) -> str:
    gpu = plan.gpu_of(turn)
    outcome = turn.call("rental_prices", plan.market_args(turn, gpu, "USD", 1))
    trend = outcome.result.get("trend") if outcome.ok else None
    outlook = rent_trend().outlook
    if trend is None or outlook is None:  # no dated trend on record: today's market, said to be no forecast
        return WORDING.say(turn, "no_trend") + "\n\n" + (rent_prices.answer(turn) if turn.slots.gpus else "")
    cur = trend["currency"]
    lead = WORDING.say(turn, "lead", outlook=turn.t(outlook.en, outlook.zh), gpu=trend["gpu"], then=money(trend["then_price"], cur),
                       then_date=trend["then_date"], now=money(trend["now_price"], cur), now_date=trend["now_date"],
                       fall=number(trend["fall_pct"], 0), swing=number(trend["swing_pct"], 0))  # fmt: skip
    parts = [lead, "**" + WORDING.say(turn, "drivers") + "**\n" + "\n".join(f"- {turn.t(d.en, d.zh)}" for d in outlook.drivers)]
    if "committed" in turn.ask.rent_tiers_named:  # "should we sign a 1-year contract now?": the rule for the term
        parts.append(WORDING.say(turn, "commitment", fall=number(outlook.forward_fall_pct, 0)))
    if turn.slots.gpus:  # today's price as the baseline, tier by tier with dates
        parts.append(WORDING.say(turn, "baseline") + "\n\n" + rent_prices.answer(turn))
    for source in outlook.sources:
        turn.cite(f"rent-outlook:{source.url}", source.cited, urls=[source.url])
    turn.cite(f"rent-trend:{trend['source_url']}", f"{trend['source_title']} ({trend['source_date']})", urls=[trend["source_url"]])
    return "\n\n".join(parts)
