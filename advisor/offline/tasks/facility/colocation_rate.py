"""A colocation rate asked on its own for a region ("colo cost per kW in Virginia?", "... in Shanghai?"): the region's own
sourced rate with its page and date when knowledge/region_tariffs.yaml has one; else the recorded gap first
(knowledge/fact_gaps.yaml), then the sourced fallback, the US rate with its page and date and its conversion. Every rate
from plan_facility's colocation (never a rent-or-buy of a default machine). plan.colocation_region is the router's
condition; wording from the package text.yaml (section colocation_rate)."""

from __future__ import annotations

from urllib.parse import urlparse

from advisor.contract import Source
from advisor.markdown import money, number
from advisor.offline.tasks.facility import plan
from advisor.offline.tasks.tco import price_dates
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.region_tariffs import region_tariffs

WORDING = Wording("facility", "colocation_rate")


def answer(turn: Turn, region: str) -> str:
    turn.entities.mark("region")  # the region named is what the answer is about
    turn.slots.mark("region")
    rates = {}
    for currency in ("USD", "CNY"):  # the rate as published and in yuan, each computed by the tool
        outcome = turn.call("plan_facility", plan.colocation_rate_args(turn, currency))
        if not outcome.ok:
            return turn.error(outcome)
        rates[currency] = outcome.result["colocation"]
    usd, cny = rates["USD"], rates["CNY"]
    url = usd["urls"][0]
    found = region_tariffs().get(region)
    kind = "sourced" if found.colocation is not None else "gap"
    turn.sources.append(Source(doc_id=f"facility:colocation:{url}", title=WORDING.say(turn, f"{kind}.source_title"), urls=usd["urls"]))
    average = WORDING.say(turn, "sourced.global_average") if found.colocation is not None and found.colocation.global_average else ""
    lead = WORDING.say(turn, f"{kind}.lead", region=turn.text(found.name), usd=money(usd["per_kw_month"], "USD"),
                       cny=money(cny["per_kw_month"], "CNY"), fx=number(cny["usd_to_cny"], 2), date=usd["date"],
                       site=urlparse(url).netloc.removeprefix("www."), url=url, average=average, age=price_dates.age_of(turn, usd["date"]))  # fmt: skip
    return f"{lead}\n\n{WORDING.say(turn, f'{kind}.ask')}"
