"""The rent-vs-buy (TCO) answer. The rent-or-buy answer runs the package's plan.py (compute_tco's
arguments), the tool and render.py (its sentences), after the take-overs that answer another way (an API bill, the
rental market, the cost of a training run (training/run_time.py), a cost per token): routes.yaml take_overs.tco orders them,
the router runs them before ``rent_or_buy``, this module gives their conditions and writers by name (also
take_overs.serving_speed: a token's cost before a speed)."""

from __future__ import annotations

import datetime as dt

from advisor.markdown import money, number, table
from advisor.offline.tasks.dialogue import plan as dialogue_plan
from advisor.offline.tasks.recommend import price_view
from advisor.offline.tasks.specs import compare
from advisor.offline.tasks.tco import api_bill, lessor, payback, plan, render, rent_prices, rentals, token_price
from advisor.offline.tasks.tco.spans import span
from advisor.offline.tasks.tco.tariffs import region_line
from advisor.offline.tasks.training import run_time
from advisor.offline.wording import Wording
from advisor.offline.turn import Turn
from tools.cost.tco_model import HOURS_PER_MONTH

WORDING = Wording("tco", "costs")


def _price_in_unknown_currency(turn: Turn) -> str:
    """The user's own price in a currency with no rate ("£9k each"), as they wrote it; "" when there is none."""
    return next((turn.slots.frame.surface(slot) for slot in ("server_price", "budget") if slot in turn.slots.unusable), "")


def _token_price(turn: Turn) -> str:
    return token_price.answer(turn, plan.gpu_of(turn), plan.currency_of(turn))


# The words routes.yaml take_overs (tco, serving_speed) may use; the order and the pairing are the table's.
TAKE_OVER_CONDITIONS = {
    "weighs_api_bill": plan.weighs_api_bill,
    "owns_cards": lambda turn: plan.owns_cards(turn, turn.slots.server_price),
    "rentals_apply": plan.rentals_apply,
    "asks_rent_price": plan.asks_rent_price,
    "cost_of_a_run": plan.cost_of_a_run,
    "asks_cost_per_token": compare.asks_cost_per_token,
    "asks_token_price": plan.asks_token_price,
    "price_in_unknown_currency": lambda turn: bool(_price_in_unknown_currency(turn)),
    "refers_to_model": lambda turn: turn.model_reference() is not None,
}
TAKE_OVER_WRITERS = {
    "api_bill": lambda turn: api_bill.answer(turn, plan.gpu_of(turn), plan.currency_of(turn)),
    "rentals": rentals.answer,
    "rent_prices": rent_prices.answer,
    "training_run": run_time.training_time,
    "sized_comparison": compare.route,
    "token_price": _token_price,
    "price_unconverted": lambda turn: WORDING.say(turn, "costs_phrases.tco.the_price_is_in_a", stated=_price_in_unknown_currency(turn)),
}


def rent_or_buy(turn: Turn) -> str:
    """Rent or buy: the tco task's own answer (the router runs routes.yaml take_overs.tco before it)."""
    planned = plan.rent_or_buy(turn)
    s, currency, count, servers, yours = turn.slots, planned.currency, planned.count, planned.servers, planned.yours
    horizon_years, owned = planned.horizon_years, planned.owned
    outcome = turn.call("compute_tco", planned.args)
    missing_rent = not outcome.ok and "cloud_price_per_gpu_hour" in ((outcome.error or {}).get("suggestions") or [])
    if missing_rent and plan.asked_for_line(turn):  # "and the electricity?" needs no rent: that line is answered all the same
        outcome = turn.call("compute_tco", {**outcome.args, "rent_needed": False})
    if not outcome.ok and (outcome.error or {}).get("code") == "tco_missing_price":
        return _missing_price(turn, outcome.error, outcome.args, currency, count, horizon_years)
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    total = next((a for a in r["assumptions"] if a["key"] == "server_price_is_total"), None)
    if total is not None:  # the tool read the price as all servers' (nearer the catalog's price for one): said in the lead
        yours.append(plan.Echo("price_total", {"amount": plan.Amount(total["value"]), "servers": servers, "each": plan.Amount(total["value"] / servers)}))
    asked_line = plan.asked_for_line(turn)
    if asked_line:  # "what's the electricity?", "and the maintenance?" after the comparison: that line, not the whole table again
        answered = payback.line(turn, r, asked_line, render.inputs)
        whose = region_line(turn, r) if asked_line in ("energy", "colocation") else ""  # whose tariff, or that none was sourced
        return answered + ("\n\n" + whose if whose else "")
    if r.get("lessor"):  # cards bought, or already owned, to be let out: the lessor's margin, not keep-or-rent for one's own use
        return lessor.answer(turn, r, render.inputs(turn, r["assumptions"], r["currency"]))
    if owned:
        return render.keep_or_rent(turn, r)
    cur = r["currency"]
    reasons = turn.text(render.lead(r)) + turn.t(" ", "") + turn.text(render.flip(r)) + turn.t(" ", "") + turn.text(render.totals(r))
    recount = turn.reading.follow_up and dialogue_plan.counts_only(turn)  # "and with 32 of them?": the verdict for 32, then what changed
    first = ""
    if r["payback_months"] is not None and not turn.ask.speaks_of_payback and (not turn.reading.follow_up or recount):
        # "rent or buy?": the verdict and its monthly figure first, one sentence alone, its reasons (payback, what turns it, the monthly
        # totals) the block below; a payback asked for ("how long to pay back?") leads with the months
        first = render.verdict_first(turn, r)
    elif turn.ask.confirms_side is not None and r["payback_months"] is not None:  # "so buying is cheaper, right?": yes or no, then the verdict
        winner = "rent" if r["verdict"] == "rent" else "buy"
        confirmed = WORDING.say(turn, "confirm.confirmed" if winner == turn.ask.confirms_side else "confirm.contradicted")
        first = confirmed + " " + render.verdict_first(turn, r)
    block = plan.china_block(turn, outcome.args["gpu"], cur, owned)
    # a card not sold new in mainland China: said right under the verdict sentence, before the reasons, so it stays on the
    # first screen however long the reasons run (the purchase weighed is no new card there)
    china = render.china_block(turn, block) if block else ""
    flips = payback.tier_flip(turn, r)  # "against on-demand it pays back, against a GPU cloud it does not": right under the verdict,
    # each a block of its own, so no block runs long; with no verdict sentence (a payback asked) the months lead and the
    # mainland note follows the reasons, as before
    verdict = "\n\n".join(filter(None, [first, china, reasons, flips] if first else [reasons, flips]))
    china_below = "" if first else china
    said = turn.text(WORDING.text("yours.title")) + turn.t(": ", "：") + turn.t("; ", "；").join(
        turn.text(line) for line in ([render.echo(e, r["currency"]) for e in yours] or [WORDING.text("yours.none")])
    )
    rows = [
        [WORDING.say(turn, "costs_phrases.tco.own_amortised"), money(r["own_monthly_cost"], cur), money(r["own_total"], cur)],
        [WORDING.say(turn, "costs_phrases.tco.rent_cloud"), money(r["cloud_monthly_cost"], cur), money(r["cloud_total"], cur)],
    ]
    claim = payback.claim_check(turn, r) + [line for line in [payback.ratio_verdict(turn, r)] if line]
    parts = [
        *filter(None, [render.renting_side(turn, r)]),
        *filter(None, [_against_earlier(turn, outcome.args, r)]),
        *claim,
        verdict,
        *filter(None, [render.used_hours_only(turn, r, outcome.args.get("utilisation_pct") if s.utilisation is not None or turn.ask.gpu_hours else None,
                                               plan.china_market(turn, cur))]),
        *filter(None, [china_below]),  # right under the verdict when no sentence leads it
        said,  # the figures the user gave stay on the first screen, before the assumptions about the market and the site
        *filter(None, [payback.tier_summary(turn, r)]),
        *filter(None, [_estimated_price(turn, r)]),
        *filter(None, [_rent_trend(turn, r), region_line(turn, r)]),
        table([WORDING.say(turn, "costs_phrases.tco.path"), WORDING.say(turn, "costs_phrases.tco.per_month"), WORDING.say(turn, "costs_phrases.tco.total_over_y", span=span(r["horizon_months"]))], rows),
        WORDING.say(turn, "capex_line", capex=money(r["capex"], cur), per_hour=money(r["own_cost_per_used_gpu_hour"], cur)),
        *payback.tier_paybacks(turn, r),
        *payback.stale_note(turn, r),
        "**" + WORDING.say(turn, "costs_phrases.tco.what_moves_the_answer_most") + "**\n" + "\n".join(f"- {turn.text(x)}" for x in r["sensitivities"]),
        f"⚡ {turn.text(r['power_reminder'])}",
    ]
    parts.append(render.inputs(turn, r["assumptions"], r["currency"]))
    turn.verdict_leads = bool(recount) and parts[0] == verdict  # the verdict sentence for the new count is the first line
    turn.cite("rent-vs-buy", WORDING.say(turn, "costs_phrases.tco.rent_vs_buy"))
    return "\n\n".join(parts)


def _against_earlier(turn: Turn, args: dict, r: dict) -> str:
    """A follow-up that changed an input ("and at 40%?", "3-year reserved?"): the new payback and verdict against the
    ones before, first, so the reader need not compare two answers."""
    if not turn.reading.follow_up:
        return ""
    earlier = plan.earlier_args(turn, args)
    if earlier is None:
        return ""
    then = turn.call("compute_tco", earlier)
    if not then.ok:
        return ""
    return render.against_earlier(turn, then.result, r)


def _missing_price(turn: Turn, error: dict, args: dict, currency: str, gpus: int, horizon_years: float | None) -> str:
    """The card lacks a server price or a rent: say which figure is missing and still answer the side that is known
    (the rent at market tiers for the GPUs, period and utilisation asked)."""
    gpu_id = args["gpu"]
    name = plan.gpu_name(turn, gpu_id)
    examples = WORDING.entry("missing.examples")
    if "server_price" not in (error.get("suggestions") or []):  # the rent is what is missing
        if plan.china_market(turn, currency):  # no mainland price: no US rate stands in for it, and what can be rented there instead
            return _china_rent_missing(turn, args, name, currency, examples["rent"][currency])
        said = WORDING.say(turn, "missing.rent", gpu=name, example=examples["rent"][currency])
        return "\n\n".join(filter(None, [_rent_to_beat(turn, args, name, currency), said]))  # the rent to beat first, then what is missing
    months = (horizon_years or 1) * 12
    share = turn.slots.utilisation if turn.slots.utilisation is not None else 1.0
    outcome = turn.call("rental_prices", {"gpu": gpu_id, "currency": currency, "china": turn.slots.region == "cn" or currency == "CNY",
                                          "gpus": gpus, "gpu_hours": gpus * HOURS_PER_MONTH * months * share, "today": dt.date.today().isoformat()})  # fmt: skip
    m = outcome.result if outcome.ok else None
    fair = next((t for t in m["tiers"] if t["tier"] == m["fair_tier"]), None) if m else None
    top = next((t for t in m["tiers"] if t["tier"] == "hyperscaler_on_demand"), None) if m else None
    if m and plan.china_market(turn, currency) and not any(t["tier"] == "china" for t in m["tiers"]):
        fair = None  # a US cloud's rate is no China rent: a China buyer lacks both prices, and is told what China rents instead
    if fair is None:
        said = WORDING.say(turn, "missing.server_and_rent", gpu=name, example=examples["server"][currency])
        return "\n\n".join(filter(None, [said, _china_rentable(turn, m["china_alternatives"] if m else [], currency)]))
    use = rent_prices.WORDING.say(turn, "bill_use", utilisation=number(share * 100)) if turn.slots.utilisation is not None else ""
    bill = rent_prices.WORDING.say(turn, "bill", gpus=gpus, what=name, months=number(months), hours=number(m["gpu_hours"]), use=use,
                                   fair_cost=rent_prices.band(fair["cost_low"], fair["cost_high"], currency),
                                   fair_tier=rent_prices.WORDING.say(turn, f"fair_tier.{m['fair_tier']}"),
                                   fair=rent_prices.band(fair["low"], fair["high"], currency),
                                   ceiling_cost=money(top["cost_high"], currency) if top else "—")  # fmt: skip
    return WORDING.say(turn, "missing.server_price", gpu=name, example=examples["server"][currency]) + "\n\n" + bill


def _estimated_price(turn: Turn, r: dict) -> str:
    """The purchase priced from dated anchors (no catalog card price): the range, its basis and date, and to get a quote."""
    e = r.get("server_price_estimate")
    if not e:
        return ""
    cur = r["currency"]
    return WORDING.say(turn, "estimated_price", range=price_view.range_text(e["low"], e["high"], cur), mid=money((e["low"] + e["high"]) / 2, cur),
                       derivation=turn.text(e["derivation"]), date=e["date"])  # fmt: skip


def _china_rent_missing(turn: Turn, args: dict, name: str, currency: str, example: str) -> str:
    """A China buyer's rent-or-buy of a card with no mainland rental price: say so, price the purchase side (the price
    the user gave, else the catalog's), and list the cards that can be rented in China at dated prices."""
    gpu_id = args["gpu"]
    parts = [_rent_to_beat(turn, args, name, currency), WORDING.say(turn, "missing.china_rent", gpu=name, example=example)]  # the answer first
    bought = price_view.price_lines(turn, [gpu_id]) if args.get("server_price") is None else ""
    if args.get("server_price") is not None:  # the user's own price is the purchase side
        servers = args.get("servers") or 1
        parts.append(WORDING.say(turn, "missing.china_buy_yours", each=money(args["server_price"], currency), servers=servers,
                                 total=money(args["server_price"] * servers, currency)))  # fmt: skip
    if bought:
        parts.append(WORDING.say(turn, "missing.china_buy") + " " + bought)
    outcome = turn.call("rental_prices", {"gpu": gpu_id, "currency": currency, "china": True, "today": dt.date.today().isoformat()})
    parts.append(_china_rentable(turn, outcome.result["china_alternatives"] if outcome.ok else [], currency))
    return "\n\n".join(filter(None, parts))


def _rent_to_beat(turn: Turn, args: dict, name: str, currency: str) -> str:
    """No rent to weigh: the rent at which buying breaks even, i.e. what an hour of the cards costs whoever owns them
    (plan.owning_hour: the purchase said or the price book's, power, upkeep, over the horizon and use of the question),
    so a quote can be judged the moment it arrives; "" when the cards have no price of any kind."""
    if plan.china_block(turn, args["gpu"], currency, owned=False) is not None:  # a card not sold new there: no purchase to weigh
        return ""
    gpus = (args.get("servers") or 1) * (args.get("gpus_per_server") or 8)
    own_price = args.get("server_price") if args.get("gpus_per_server") == 8 else None  # a quote for another server size is not scaled
    owned = plan.owning_hour(turn, args["gpu"], gpus, currency, server_price=own_price, utilisation_pct=args.get("utilisation_pct"),
                             site_region=args.get("site_region"), lifetime_years=args.get("lifetime_years"))  # fmt: skip
    if not owned.ok or not owned.result.get("own_cost_per_used_gpu_hour"):
        return ""
    r = owned.result
    use = next((a["value"] for a in r["assumptions"] if a["key"] == "utilisation_pct"), None)
    return WORDING.say(turn, "missing.rent_to_beat", gpus=gpus, gpu=name, rate=money(r["own_cost_per_used_gpu_hour"], currency),
                       span=span(r["horizon_months"]), use=number(use) if use is not None else "—")  # fmt: skip


def _china_rentable(turn: Turn, others: list[dict], currency: str) -> str:
    """The cards that can be rented in mainland China at dated, sourced prices, each page cited once."""
    if not others:
        return ""
    rows = [WORDING.say(turn, "missing.china_alternative", gpu=o["gpu_name"], low=money(o["low"], currency), high=money(o["high"], currency),
                        source=o["source_title"] or "—", date=o["date"]) for o in others]  # fmt: skip
    for o in others:
        if o["source_url"]:
            turn.cite(f"china-rent:{o['source_url']}", o["source_title"] or o["gpu_name"], urls=[o["source_url"]])  # one line per page
    return WORDING.say(turn, "missing.china_alternatives") + "\n" + "\n".join(f"- {row}" for row in rows)


def _rent_trend(turn: Turn, r: dict) -> str:
    """A payback over several years worked at today's rent assumes the rent holds; rents have been falling (the trend
    rental_prices carries, so every figure in the line is a tool's)."""
    trend = lessor.rent_trend(turn, r)
    if not trend:
        return ""
    months = r["payback_months"]
    return render.trend_words(turn, WORDING, "rent_trend." + ("no_payback" if months is None else "payback"), trend,
                              span=span(r["horizon_months"]), months=number(months) if months is not None else "")
