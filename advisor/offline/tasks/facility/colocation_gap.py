"""A colocation rate asked for a region with no sourced figure ("colo cost per kW in Shanghai?"): the gap said first
(knowledge/fact_gaps.yaml), then the sourced fallback, the US rate with its page and date and its conversion, from
plan_facility's colocation (never a rent-or-buy of a default machine). plan.colocation_gap is the router's condition;
wording from the package text.yaml (section colocation_gap)."""

from __future__ import annotations

from urllib.parse import urlparse

from advisor.contract import Source
from advisor.markdown import money, number
from advisor.offline.tasks.facility import plan
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.region_tariffs import region_tariffs

WORDING = Wording("facility", "colocation_gap")


def answer(turn: Turn, region: str) -> str:
    turn.entities.mark("region")  # the region named is what the answer is about
    turn.slots.mark("region")
    rates = {}
    for currency in ("USD", "CNY"):  # the fallback as published and in yuan, each computed by the tool
        outcome = turn.call("plan_facility", plan.colocation_rate_args(turn, currency))
        if not outcome.ok:
            return turn.error(outcome)
        rates[currency] = outcome.result["colocation"]
    usd, cny = rates["USD"], rates["CNY"]
    url = usd["urls"][0]
    turn.sources.append(Source(doc_id=f"facility:colocation:{url}", title=WORDING.say(turn, "source_title"), urls=usd["urls"]))
    lead = WORDING.say(turn, "lead", region=turn.text(region_tariffs().get(region).name), usd=money(usd["per_kw_month"], "USD"),
                       cny=money(cny["per_kw_month"], "CNY"), fx=number(cny["usd_to_cny"], 2), date=usd["date"],
                       site=urlparse(url).netloc.removeprefix("www."), url=url)  # fmt: skip
    return f"{lead}\n\n{WORDING.say(turn, 'ask')}"
