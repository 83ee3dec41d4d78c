"""What a generated token costs on one deployment ("cost per million tokens for X on 4× H100", asked in either language).

The serving estimator gives the deployment's tokens per hour at full load; every rental tier with a sourced price
for the card gives a band of rates, so each tier's cost per million tokens is a band too (tools/cost/token_cost.py).
A card no tier prices is never refused: its hour is priced at what owning it costs, labelled as an estimate.
"""

from __future__ import annotations

from advisor.markdown import money, number, table
from advisor.offline.tasks.tco import plan
from advisor.offline.tasks.tco.spans import span
from advisor.offline.tasks.tco.rent_prices import band, other_market_line
from advisor.offline.wording import Wording
from advisor.offline.turn import Turn
from knowledge.tco_defaults import own_machine_defaults
from tools.cost.tco_model import HOURS_PER_MONTH
from tools.cost.token_cost import TokenCostRangeRequest, token_cost_range

WORDING = Wording("tco", "token_price")
JOINERS = Wording("tco", "joiners")
COUNTS_TRIED = (1, 2, 4, 8)  # the deployments sold: one card, then whole boards
ON_DEMAND = "hyperscaler_on_demand"


def load_of(turn: Turn) -> int | None:
    """The requests in flight the cost is priced at: the load said (or the peak share of a headcount), one at a time on
    the user's own desktop (knowledge/own_machine.yaml), None for a deployment priced kept full."""
    said = turn.slots.concurrency
    if said:
        return said
    return int(own_machine_defaults().concurrency.value) if turn.ask.personal_machine else None


def _serving(turn: Turn, model: str, gpu: str, gpus: int) -> dict | None:
    """The deployment's speed at the load it carries: the load said or assumed (``load_of``), else kept full (as many
    requests at once as its KV cache holds)."""
    args = plan.serving_args(turn, model, gpu, gpus)
    first = turn.call("estimate_throughput", args)
    if not first.ok or first.result["max_batch_fits"] < 1:
        return None
    load = load_of(turn)
    batch = min(load, first.result["max_batch_fits"]) if load else first.result["max_batch_fits"]
    full = turn.call("estimate_throughput", {**args, "batch": batch})
    return full.result if full.ok else None


def deployment(turn: Turn, model: str, gpu: str) -> tuple[int, dict | None]:
    """The count stated, or the fewest cards (as sold) that serve the model, with its speed at full load."""
    stated = turn.slots.gpu_count
    if stated:
        return stated, _serving(turn, model, gpu, stated)
    for count in COUNTS_TRIED:
        speed = _serving(turn, model, gpu, count)
        if speed is not None:
            turn.slots.mark("gpu_count")
            return count, speed
    return COUNTS_TRIED[-1], None


def answer(turn: Turn, gpu: str, currency: str) -> str:
    model = turn.model_reference()
    if model is None:
        return WORDING.say(turn, "no_model")
    gpus, speed = deployment(turn, model, gpu)
    name = turn.catalog.gpu(gpu).name
    if speed is None:
        failed = next((c for c in reversed(turn.calls) if c.name == "estimate_throughput"), None)
        if failed is not None and not failed.ok:
            return turn.error(failed)
        return WORDING.say(turn, "does_not_run", model=model, gpus=gpus, gpu=name, why="")
    model_name = turn.text(speed["model_label"])
    if not turn.slots.gpu_count:
        line = WORDING.text("count_default", gpus=gpus, gpu=name, model=model_name)
        turn.assume(line.en, line.zh)
    tps = speed["output_tokens_per_s_total"]
    market = turn.call("rental_prices", plan.market_args(turn, gpu, currency, gpus))
    tiers = market.result["tiers"] if market.ok else []
    rows, costs = [], {}
    for tier in tiers:
        cost = token_cost_range(TokenCostRangeRequest(low_per_gpu_hour=tier["low"], high_per_gpu_hour=tier["high"], gpus=gpus, output_tokens_per_s=tps))
        costs[tier["tier"]] = cost
        offer = tier["offers"][0]
        title = offer["source_title"] or JOINERS.say(turn, "no_title")
        source = JOINERS.say(turn, "source_link" if offer["source_url"] else "source_plain", date=offer["date"], title=title, url=offer["source_url"])
        rows.append([turn.text(tier["name"]), band(tier["low"], tier["high"], currency), band(cost.low, cost.high, currency), source])
    load = load_of(turn)
    speed_line = WORDING.say(turn, "speed_at_load" if load else "speed", speed=number(tps), batch=speed["effective_batch"], prompt=speed.get("prompt_tokens", 1024),
                             output=speed.get("output_tokens", 256), tokens_per_hour=number(tps * 3600), gpus=gpus)  # fmt: skip
    kept = WORDING.say(turn, "at_load", batch=speed["effective_batch"]) if load else WORDING.say(turn, "kept_full")
    if turn.ask.personal_machine:  # the user's own desktop: what it runs and draws leads, a cloud rate only beside it
        lead = _own_box(turn, model_name, gpu, name, gpus, speed, currency)
        return "\n\n".join(filter(None, [lead, speed_line, _rent_beside(turn, tiers, costs, currency) if tiers else ""]))
    if not tiers or turn.ask.owns_hardware or plan.asks_token_line(turn):  # no rent, cards owned, or a rent-or-buy thread: owning's hour
        lead = _estimated(turn, model_name, gpu, name, gpus, tps, currency, kept)
        rented = _rent_beside(turn, tiers, costs, currency) if tiers else ""
        floor = "" if turn.ask.owns_hardware or plan.asks_token_line(turn) or load else _load_line(turn)  # owned or bought: the use is in the lead
        return "\n\n".join(filter(None, [lead, speed_line, floor, rented]))
    chosen = market.result["fair_tier"] or min(tiers, key=lambda t: t["low"])["tier"]
    tier = next(t for t in tiers if t["tier"] == chosen)
    ceiling = costs.get(ON_DEMAND)
    stated = plan.stated_rate(turn, currency)
    if stated is not None:  # "we rent at $2.5/GPU-hour": the user's own rate prices the token, the market stands beside it
        own = token_cost_range(TokenCostRangeRequest(low_per_gpu_hour=stated, high_per_gpu_hour=stated, gpus=gpus, output_tokens_per_s=tps))
        use = turn.slots.utilisation
        lead = WORDING.say(turn, "lead_yours", cost=money(own.low, currency), model=model_name, gpus=gpus, gpu=name, rate=money(stated, currency), kept=kept,
                           tier=turn.text(tier["name"]), market=band(costs[chosen].low, costs[chosen].high, currency))  # fmt: skip
        if use:
            lead += JOINERS.say(turn, "sentence_separator") + WORDING.say(turn, "at_use", use=number(use * 100), cost=money(own.low / use, currency))
    else:
        lead = ""
    lead = lead or WORDING.say(turn, "lead", cost=band(costs[chosen].low, costs[chosen].high, currency), model=model_name, gpus=gpus, gpu=name, kept=kept,
                       tier=turn.text(tier["name"]), rate=band(tier["low"], tier["high"], currency),
                       ceiling=WORDING.say(turn, "ceiling", cost=money(ceiling.high, currency)) if ceiling and chosen != ON_DEMAND else "")  # fmt: skip
    use = turn.slots.utilisation
    if use and stated is None:  # "at 50% utilisation": the cards are rented for every hour, so each token carries the idle hours too
        lead += JOINERS.say(turn, "sentence_separator") + WORDING.say(turn, "at_use", use=number(use * 100), cost=band(costs[chosen].low / use, costs[chosen].high / use, currency))
    elsewhere = other_market_line(turn, market.result)
    if elsewhere:  # the hour is another market's price: said right under the figure it makes
        lead += "\n\n" + elsewhere
    headers = [WORDING.say(turn, f"table.{key}") for key in ("tier", "rate", "cost", "source")]
    tier_table = "**" + WORDING.say(turn, "table.title") + "**\n\n" + table(headers, rows)
    turn.cite("rent-vs-buy", turn.t(*WORDING.pair("citation.rent_vs_buy")))
    return "\n\n".join(filter(None, [lead, speed_line, "" if load else _load_line(turn), tier_table]))


def _load_line(turn: Turn) -> str:
    """Why the figure is a floor; said only when no utilisation was given (a stated one is already in the lead)."""
    return "" if turn.slots.utilisation else WORDING.say(turn, "load")


def rented_beside(turn: Turn, tiers: list[dict], gpus: int, tps: float, currency: str) -> str:
    """Owned cards: the same deployment's cost per million tokens rented at each tier and kept full (api_bill's owned side)."""
    costs = {t["tier"]: token_cost_range(TokenCostRangeRequest(low_per_gpu_hour=t["low"], high_per_gpu_hour=t["high"], gpus=gpus, output_tokens_per_s=tps))
             for t in tiers}  # fmt: skip
    return _rent_beside(turn, tiers, costs, currency)


def _rent_beside(turn: Turn, tiers: list[dict], costs: dict, currency: str) -> str:
    """Owned cards: what the same tokens would cost rented, one line per tier, so the reader sees whether renting
    out or moving to the cloud would be cheaper."""
    rows = [WORDING.say(turn, "owned_rent_row", tier=turn.text(t["name"]), cost=band(costs[t["tier"]].low, costs[t["tier"]].high, currency),
                        rate=band(t["low"], t["high"], currency)) for t in tiers]  # fmt: skip
    return WORDING.say(turn, "owned_rent_title") + "\n" + "\n".join(f"- {row}" for row in rows)


def _own_box(turn: Turn, model_name: str, gpu: str, name: str, gpus: int, speed: dict, currency: str) -> str:
    """The user's own desktop or workstation: its speed at the load it carries, the power per million tokens (the card is
    bought: power is what each token costs now), then the purchase spread over its years at the stated or default use;
    the desktop's site (no facility overhead, rack rent or service contract) from knowledge/own_machine.yaml, said."""
    s = turn.slots
    machine = own_machine_defaults()
    busy = machine.utilisation_pct
    if not s.utilisation:  # no use said: the box's busy share is an assumption (own_machine.yaml), said in the details
        turn.assume(busy.assumption.en, busy.assumption.zh)
    owned = plan.owning_hour(turn, gpu, gpus, currency, servers=1, **machine.tco_args(gpus), owned=True,
                              utilisation_pct=s.utilisation * 100 if s.utilisation else busy.value, region=s.region,
                              site_region=turn.ask.site_region or ("cn" if turn.china_buyer else None),
                              lifetime_years=s.horizon_years, electricity_price=plan.electricity_price(turn, currency))  # fmt: skip
    if not owned.ok:
        return turn.error(owned)
    r = owned.result
    tps = speed["output_tokens_per_s_total"]
    batch = speed["effective_batch"]
    assumed = {a["key"]: a["value"] for a in r["assumptions"]}
    per_million = 1_000_000 / (tps * 3600)
    power_hour = r["own_monthly_opex"] / HOURS_PER_MONTH  # the box's draw under load, priced at the tariff, per hour it runs
    load = WORDING.say(turn, "own_box_one") if batch <= 1 else WORDING.say(turn, "own_box_many", batch=batch)
    if not turn.slots.concurrency:
        turn.assume(*WORDING.both("own_box_assumption"))
    return WORDING.say(turn, "own_box_lead", gpus=gpus, gpu=name, model=model_name, speed=number(speed["tokens_per_s_per_user_streaming"]), load=load,
                       power_cost=money(power_hour * per_million, currency), watts=number(assumed["server_max_kw"] * assumed["load_factor_pct"] * 10),
                       tariff=money(assumed["electricity_price"], currency), capex=money(r["capex"], currency),
                       span=span(r["horizon_months"]), use=number(assumed["utilisation_pct"]),
                       cost=money(r["own_cost_per_used_gpu_hour"] * gpus * per_million, currency))  # fmt: skip


def _estimated(turn: Turn, model_name: str, gpu: str, name: str, gpus: int, tps: float, currency: str, kept: str) -> str:
    """No tier prices the card: the hour at what owning it costs (purchase, power, upkeep), said as an estimate."""
    s = turn.slots
    owned = plan.owning_hour(turn, gpu, gpus, currency, utilisation_pct=s.utilisation * 100 if s.utilisation else None,
                              region=s.region, site_region=turn.ask.site_region or ("cn" if turn.china_buyer else None),
                              lifetime_years=s.horizon_years, electricity_price=plan.electricity_price(turn, currency))  # fmt: skip
    if not owned.ok:
        return turn.error(owned)
    r = owned.result
    rate = r["own_cost_per_used_gpu_hour"]
    use = next(a["value"] for a in r["assumptions"] if a["key"] == "utilisation_pct")
    cost = token_cost_range(TokenCostRangeRequest(low_per_gpu_hour=rate, high_per_gpu_hour=rate, gpus=gpus, output_tokens_per_s=tps))
    basis = WORDING.say(turn, "estimated_basis", span=span(r["horizon_months"]), utilisation=number(use))
    key = "owned_lead" if turn.ask.owns_hardware else "bought_lead" if plan.asks_token_line(turn) else "estimated_lead"
    return WORDING.say(turn, key, cost=money(cost.low, currency), model=model_name, gpus=gpus, gpu=name, kept=kept,
                       rate=money(rate, currency), basis=basis, use=number(use))  # fmt: skip

