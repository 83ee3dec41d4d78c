"""The rent-or-buy (tco) task's sentences from compute_tco's results: the payback lead and what flips it, the verdict
first, the amortised totals, the renting side, the change a follow-up made, keep-or-rent for cards already owned, and
the inputs given and defaulted. Wording from the package text.yaml (section costs); every figure from a tool, no tool
arguments decided here (plan.py's)."""

from __future__ import annotations

import math

from advisor.labels import CHINA_STATUS
from advisor.markdown import money, number, table
from advisor.offline.tasks.dialogue import plan as dialogue_plan
from advisor.offline.tasks.tco import payback
from advisor.offline.tasks.tco.plan import Amount, Echo, Figure, Years
from advisor.offline.tasks.tco.spans import span, years_span
from advisor.offline.tasks.tco.tariffs import region_line
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from knowledge.rent_tiers import rent_tier_trade_offs
from tools.cost.money import USD_TO_CNY_SOURCE
from tools.cost.tco import DERIVED
from tools.cost.tco_model import HOURS_PER_MONTH

WORDING = Wording("tco", "costs")
JOINERS = Wording("tco", "joiners")
FULL_USE_PCT = 100.0  # every hour of the month busy


def echo(said: Echo, currency: str) -> Text:
    """A figure the user gave (plan.Echo) in words: sums with the currency's symbol, figures in the shared number format,
    spans of years in a buyer's units."""
    def shown(value: object) -> object:
        if isinstance(value, Amount):
            return money(value, currency)
        if isinstance(value, Years):
            return years_span(value)
        if isinstance(value, Figure):
            return number(value)
        return value

    return WORDING.text(f"yours.{said.key}", **{name: shown(value) for name, value in said.values.items()})


def keep_or_rent(turn: Turn, r: dict) -> str:
    """Owned GPUs: running cost against the rent of the same hours at each tier, the purchase left out as sunk,
    with replacing them by new servers as the third option."""
    k, cur = r["keep_or_rent"], r["currency"]
    use = assumed(r, "utilisation_pct")
    what = (JOINERS.say(turn, "cards", count=r["total_gpus"], gpu=r["gpu_name"]) if r["gpu_name"]
            else JOINERS.say(turn, "cards_unnamed", count=r["total_gpus"]))  # fmt: skip
    running = k["running_cost_per_month"]
    cheapest = min(k["tiers"], key=lambda row: row["monthly_rent"])
    values = {"what": what, "running": money(running, cur), "cheapest": money(cheapest["monthly_rent"], cur), "tier": turn.text(cheapest["tier_name"]),
              "rate": money(cheapest["price_per_gpu_hour"], cur), "utilisation": number(use), "saves": money(abs(cheapest["keeping_saves"]), cur)}  # fmt: skip
    lead = WORDING.say(turn, "owned.keep" if k["keep"] else "owned.rent", **values)
    resale_pct = assumed(r, "residual_value_pct")
    sunk = WORDING.say(turn, "owned.sunk", resale=money(k["resale_now"], cur), resale_pct=number(resale_pct), utilisation=number(use),
                       per_hour=money(k["running_cost_per_used_gpu_hour"], cur))  # fmt: skip
    full_rent = cheapest["price_per_gpu_hour"] * r["total_gpus"] * HOURS_PER_MONTH
    break_even = running / full_rent * 100 if full_rent else math.inf
    flip = (WORDING.say(turn, "owned.flip", running=money(running, cur), tier=turn.text(cheapest["tier_name"]), use=number(break_even))
            if _reachable(break_even) else WORDING.say(turn, "owned.flip_never", tier=turn.text(cheapest["tier_name"])))  # fmt: skip

    def against(amount: float) -> str:
        return WORDING.say(turn, "owned.table.more" if amount > 0 else "owned.table.less", amount=money(abs(amount), cur))

    rows = [[WORDING.say(turn, "owned.table.keep"), money(running, cur), "—"]]
    rows += [[WORDING.say(turn, "owned.table.rent", tier=turn.text(row["tier_name"]), rate=money(row["price_per_gpu_hour"], cur)),
              money(row["monthly_rent"], cur), against(row["monthly_rent"] - running)] for row in k["tiers"]]  # fmt: skip
    rows.append([WORDING.say(turn, "owned.table.replace", span=span(r["horizon_months"])), money(r["own_monthly_cost"], cur),
                 against(r["own_monthly_cost"] - running)])  # fmt: skip
    headers = [WORDING.say(turn, f"owned.table.{key}") for key in ("path", "monthly", "against")]
    running_items = [i for i in r["items"] if i["key"] in payback.RUNNING_COSTS]
    details = table([WORDING.say(turn, "costs_phrases.keep_or_rent.item"), WORDING.say(turn, "costs_phrases.keep_or_rent.value"), WORDING.say(turn, "costs_phrases.keep_or_rent.formula")], turn.item_rows(running_items))
    turn.cite("rent-vs-buy", WORDING.say(turn, "costs_phrases.keep_or_rent.rent_vs_buy"))
    return "\n\n".join([lead, sunk, flip, table(headers, rows), details, *payback.stale_note(turn, r), inputs(turn, r["assumptions"], cur)])


def use_changed(turn: Turn, old: dict, r: dict) -> str:
    """A follow-up that changed how busy the GPUs are: owning's cost per GPU-hour actually used, before and now, against
    renting only the hours used (the cheapest pay-as-you-go tier), then the payback; a payback that did not move says
    in one line why (a lease or a reservation is paid for every hour, used or not)."""
    cur = r["currency"]
    use_now, use_before = assumed(r, "utilisation_pct"), assumed(old, "utilisation_pct")
    on_demand = [t for t in r["tier_paybacks"] if not t["billed_every_hour"]]
    if on_demand:
        cheapest = min(on_demand, key=lambda t: t["price_per_gpu_hour"])
        rate, tier = cheapest["price_per_gpu_hour"], turn.text(Text.model_validate(cheapest["tier_name"]))
    elif r["cloud_billing"] == "used_hours":
        rate, tier = assumed(r, "cloud_price_per_gpu_hour"), WORDING.say(turn, "change.use.your_rate")
    else:
        rate = tier = None
    own_now, own_before = r["own_cost_per_used_gpu_hour"], old["own_cost_per_used_gpu_hour"]
    values = {"use": number(use_now), "use_before": number(use_before), "own": money(own_now, cur), "own_before": money(own_before, cur)}
    if rate is None:
        per_hour = WORDING.say(turn, "change.use.per_hour_only", **values)
    else:
        key = "change.use.rent_cheaper" if rate < own_now else "change.use.own_cheaper"
        per_hour = WORDING.say(turn, key, rate=money(rate, cur), tier=tier, **values)
    before, now = old["payback_months"], r["payback_months"]
    moved = (before is None) != (now is None) or (before is not None and number(before) != number(now))
    if moved:
        def months(value: float | None) -> str:
            return number(value) if value is not None else WORDING.say(turn, "change.never")

        verdict = WORDING.say(turn, f"change.verdict.{r['verdict']}")
        flipped = old["verdict"] != r["verdict"]
        payback_words = WORDING.say(turn, "change.use.payback", before=months(before), now=months(now),
                                    verdict=WORDING.say(turn, "change.flipped", old=WORDING.say(turn, f"change.was.{old['verdict']}"), verdict=verdict)
                                    if flipped else WORDING.say(turn, "change.same", verdict=verdict))  # fmt: skip
    else:
        payback_words = WORDING.say(turn, "change.use.payback_still", months=number(now) if now is not None else WORDING.say(turn, "change.never"))
    return per_hour + turn.t(" ", "") + payback_words


def given(r: dict, key: str) -> float | None:
    return next((a["value"] for a in r["assumptions"] if a["key"] == key and a["source"] == "given"), None)


def assumed(r: dict, key: str) -> float:
    return next(a["value"] for a in r["assumptions"] if a["key"] == key)


def rent_words(r: dict) -> Text:
    """The rent the payback is worked at, in the user's own terms: their bill, their hourly rate, or the catalog's."""
    cur = r["currency"]
    monthly, gpus = money(r["cloud_monthly_cost"], cur), r["total_gpus"]
    if r["cloud_billing"] == "monthly_bill":
        return WORDING.text("rent.bill", amount=monthly)
    rate, use = money(assumed(r, "cloud_price_per_gpu_hour"), cur), number(assumed(r, "utilisation_pct"))
    if r.get("rent_tier"):
        billing = WORDING.text("rent_billing.lease") if r["cloud_billing"] == "every_hour" else WORDING.text("rent_billing.used", utilisation=use)
        ceiling = WORDING.text("ceiling", rate=money(r["on_demand_rate"], cur)) if r.get("on_demand_rate") else ""
        return WORDING.text("rent_tier", tier=Text.model_validate(r["rent_tier_name"]), rate=rate, gpus=gpus, monthly=monthly, billing=billing, ceiling=ceiling,
                            market=market_words(r))  # fmt: skip
    if given(r, "cloud_price_per_gpu_hour") is None:
        return WORDING.text("rent.catalog", rate=rate, monthly=monthly, gpus=gpus, utilisation=use, market=market_words(r))
    if r["cloud_billing"] == "every_hour":
        return WORDING.text("rent.hourly_every_hour", rate=rate, monthly=monthly, gpus=gpus)
    return WORDING.text("rent.hourly_used", rate=rate, monthly=monthly, gpus=gpus, utilisation=use)


def market_words(r: dict) -> Text | str:
    """The rent is another market's (the buyer's has none for the card): whose, the figure as published, its date and the
    rate it was converted at, said inside the rent it qualifies; "" for the buyer's own market."""
    quoted = r.get("rent_quoted")
    if not r.get("rent_market") or not quoted:
        return ""
    return WORDING.text(f"rent_market.{r['rent_market']}", quoted=money(quoted["price"], quoted["currency"]), date=quoted["date"],
                        fx=number(quoted["usd_to_cny"], 2), fx_date=USD_TO_CNY_SOURCE.date)  # fmt: skip


def renting_side(turn: Turn, r: dict) -> str:
    """"What if we rent instead?": the rent for the same GPUs and horizon first, against owning, and which is cheaper."""
    if not turn.ask.asks_renting_side:
        return ""
    cur, rent, own = r["currency"], r["cloud_monthly_cost"], r["own_monthly_cost"]
    rate = money(assumed(r, "cloud_price_per_gpu_hour"), cur)
    if r["cloud_billing"] == "monthly_bill":
        at = WORDING.say(turn, "rent_side.at_bill")
    elif r.get("rent_tier"):
        elsewhere = market_words(r)  # another market's rent: whose, as published, and the rate it was converted at
        at = WORDING.say(turn, "rent_side.at_tier", tier=turn.text(Text.model_validate(r["rent_tier_name"])), rate=rate,
                         market=turn.text(elsewhere) if elsewhere else "")  # fmt: skip
    else:
        elsewhere = market_words(r)  # the catalog's rent, a cloud's in another market
        at = WORDING.say(turn, "rent_side.at_rate", rate=rate, market=turn.text(elsewhere) if elsewhere else "")
    return WORDING.say(turn, "rent_side." + ("cheaper" if r["verdict"] == "rent" else "dearer"), gpus=r["total_gpus"], monthly=money(rent, cur),
                       total=money(r["cloud_total"], cur), span=span(r["horizon_months"]), at=at,
                       own=money(own, cur), difference=money(abs(r["monthly_advantage"]), cur))  # fmt: skip


def lead(r: dict) -> Text:
    """Payback at the user's rent, the figure a "when do we break even" asks for."""
    cur = r["currency"]
    if r["payback_months"] is None:
        return WORDING.text("lead.never", rent=rent_words(r), opex=money(r["own_monthly_opex"], cur))
    key = "lead.payback_estimated" if r.get("server_price_estimate") else "lead.payback"  # no published price: said where it is used
    return WORDING.text(key, months=number(r["payback_months"]), rent=rent_words(r), capex=money(r["capex"], cur),
                  margin=money(r["monthly_margin"], cur), opex=money(r["own_monthly_opex"], cur))  # fmt: skip


def verdict_first(turn: Turn, r: dict) -> str:
    """Buy or rent, with what the winner saves a month over the horizon (resale counted), in one sentence; a utilisation
    nobody gave that the verdict hangs on is said in it, with the use at which the verdict turns."""
    lead = WORDING.say(turn, f"verdict_first.{r['verdict']}", span=span(r["horizon_months"]),
                       advantage=money(abs(r["monthly_advantage"]), r["currency"]))  # fmt: skip
    if not r["break_even_applies"] or given(r, "utilisation_pct") or not (r["break_even_utilisation_pct"] > 0 and _reachable(r["break_even_utilisation_pct"])):
        return lead
    side = "rent" if r["verdict"] == "rent" else "buy"
    return lead + turn.t(" ", "") + WORDING.say(turn, f"assumed_use.{side}", utilisation=number(assumed(r, "utilisation_pct")),
                                                break_even=number(r["break_even_utilisation_pct"]))  # fmt: skip


def given(r: dict, key: str) -> bool:
    """Whether the user gave this input (the tool marks it 'given'), not a default."""
    return any(a["key"] == key and a["source"] == "given" for a in r["assumptions"])


def totals(r: dict) -> Text:
    """The amortised comparison in one sentence, on the same basis as the verdict: owning's and renting's monthly
    cost, the advantage per month, and the break-even utilisation set against the user's (or why it does not apply)."""
    cur, horizon = r["currency"], span(r["horizon_months"])
    ahead = r["verdict"] != "rent"
    key = ("buy" if ahead else "rent") + ("" if r["break_even_applies"] else "_billed")
    if key == "rent" and not _reachable(r["break_even_utilisation_pct"]):
        key = "rent_never"  # above full use: no utilisation makes owning pay back within the horizon
    return WORDING.text(f"totals.{key}", span=horizon, own=money(r["own_monthly_cost"], cur), rent=money(r["cloud_monthly_cost"], cur),
                        advantage=money(abs(r["monthly_advantage"]), cur), break_even=number(r["break_even_utilisation_pct"]),
                        use=WORDING.text("use_whose." + ("given" if given(r, "utilisation_pct") else "assumed"),
                                         utilisation=number(assumed(r, "utilisation_pct"))))  # fmt: skip


def _reachable(utilisation_pct: float | None) -> bool:
    """A utilisation the GPUs can reach: a share of their hours, never more than all of them."""
    return utilisation_pct is not None and math.isfinite(utilisation_pct) and utilisation_pct <= FULL_USE_PCT


def flip(r: dict) -> Text:
    """What turns the verdict: how long the servers are kept, how busy they are, how low the rent may fall."""
    cur, horizon = r["currency"], span(r["horizon_months"])
    needed, use = money(r["rent_to_pay_back_in_horizon"], cur), r["utilisation_to_pay_back_in_horizon_pct"]
    if r["verdict"] == "buy_with_resale":  # not in cash within the horizon, ahead once resale is counted: said as such
        return WORDING.text("flip.resale", span=horizon, resale=money(r["resale_value"], cur), saving=money(r["saving_from_owning"], cur),
                            advantage=money(r["monthly_advantage"], cur))  # fmt: skip
    if r["verdict"] == "buy":
        use_words = WORDING.text("flip.use_within", utilisation=number(use)) if use is not None else ""
        return WORDING.text("flip.within", months=number(r["payback_months"]), use=use_words, span=horizon,
                      saving=money(r["saving_from_owning"], cur), rent_needed=needed)  # fmt: skip
    use_words = "" if use is None else WORDING.text("flip.use_needed", utilisation=number(use)) if _reachable(use) else WORDING.text("flip.use_unreachable")
    if r["payback_months"] is None:
        return WORDING.text("flip.never", span=horizon, rent_needed=needed, use=use_words)
    return WORDING.text("flip.beyond", span=horizon, months=number(r["payback_months"]), rent_needed=needed, use=use_words)


TCO_INPUTS = {
    "gpus_per_server": WORDING.pair("costs_phrases.tco_inputs.gpus_per_server"), "servers": WORDING.pair("costs_phrases.tco_inputs.servers"),
    "server_price": WORDING.pair("costs_phrases.tco_inputs.price_per_server"), "network_overhead_pct": WORDING.pair("costs_phrases.tco_inputs.network_and_storage_share_of"),
    "lifetime_years": WORDING.pair("costs_phrases.tco_inputs.years_compared"), "residual_value_pct": WORDING.pair("costs_phrases.tco_inputs.resale_value_at_the_end"),
    "server_max_kw": WORDING.pair("costs_phrases.tco_inputs.server_maximum_power_kw"), "load_factor_pct": WORDING.pair("costs_phrases.tco_inputs.average_draw_share_of_maximum"),
    "pue": WORDING.pair("costs_phrases.tco_inputs.facility_pue"), "electricity_price": WORDING.pair("costs_phrases.tco_inputs.electricity_per_kwh"),
    "colo_price_per_kw_month": WORDING.pair("costs_phrases.tco_inputs.colocation_per_kw_month"), "maintenance_pct_per_year": WORDING.pair("costs_phrases.tco_inputs.maintenance_per_year_share_of"),
    "staff_cost_per_month": WORDING.pair("costs_phrases.tco_inputs.staff_per_month"), "utilisation_pct": WORDING.pair("costs_phrases.tco_inputs.utilisation"),
    "hours_per_month": WORDING.pair("costs_phrases.tco_inputs.busy_hours_per_month"), "cloud_price_per_gpu_hour": WORDING.pair("costs_phrases.tco_inputs.cloud_price_per_gpu_hour"),
    "cloud_discount_pct": WORDING.pair("costs_phrases.tco_inputs.cloud_discount"), "usd_to_cny": WORDING.pair("costs_phrases.tco_inputs.exchange_rate_cny_per_usd"),
    "cloud_monthly_bill": WORDING.pair("costs_phrases.tco_inputs.cloud_bill_per_month"), "colo_per_month": WORDING.pair("costs_phrases.tco_inputs.colocation_bill_per_month"),
    "server_price_is_total": WORDING.pair("costs_phrases.tco_inputs.stated_price_read_as_all"),
}  # fmt: skip


SET_BY_THE_ANSWER = {"network_overhead_pct"}  # set to 0 because a stated price is the whole purchase, and said so there
PERCENT_SUFFIX = "_pct"  # an input kept in percent (the tool's naming): said with its % sign
MONEY_INPUTS = {"server_price", "electricity_price", "colo_price_per_kw_month", "staff_cost_per_month", "cloud_price_per_gpu_hour", "colo_per_month"}


def inputs(turn: Turn, assumptions: list[dict], currency: str) -> str:
    """Which inputs the user gave and which were defaulted, in words (sources of defaults in English answers)."""
    def line(a: dict) -> str:
        label = turn.t(*TCO_INPUTS.get(a["key"], (a["key"].replace("_", " "), a["key"].replace("_", " "))))
        if a["key"] in MONEY_INPUTS or a["key"] == "cloud_monthly_bill":
            return WORDING.say(turn, "costs_phrases.inputs.value", label=label, value=money(a["value"], currency))
        key = "percent" if a["key"].endswith(PERCENT_SUFFIX) else "value"
        return WORDING.say(turn, f"costs_phrases.inputs.{key}", label=label, value=number(a["value"], 2))
    given = [line(a) for a in assumptions if a["source"] == "given" and a["key"] not in SET_BY_THE_ANSWER]
    defaulted = [a for a in assumptions if a["source"] != "given"]
    lines = ["**" + WORDING.say(turn, "costs_phrases.inputs.inputs") + "**"]
    if given:
        lines.append("- " + WORDING.say(turn, "costs_phrases.inputs.you_gave") + turn.t("; ", "；").join(given))
    for a in defaulted:
        source = a["source"] if len(a["source"]) <= 90 else a["source"][:87] + "…"
        links = a.get("links") or []
        link = WORDING.text("lines.source_link", url=links[0]) if links else Text(en="", zh="")
        if links and a.get("date"):  # a default is dated in both languages: the reader sees how old the figure is
            link = WORDING.text("lines.source_link_dated", url=links[0], date=a["date"])
        if a["source"] == DERIVED:
            lines.append("- " + WORDING.say(turn, "costs_phrases.inputs.worked_out_from_your_bill", value=line(a)))
            continue
        lines.append("- " + WORDING.say(turn, "lines.default", value=line(a), source=Text(en=f" ({source})", zh=""), link=link))
    return "\n".join(lines)


def against_earlier(turn: Turn, old: dict, r: dict) -> str:
    """The new payback and verdict against the ones before a follow-up changed an input (``old``: compute_tco's result
    on the earlier inputs)."""

    def months(value: float | None) -> str:
        return number(value) if value is not None else WORDING.say(turn, "change.never")

    verdict = WORDING.say(turn, f"change.verdict.{r['verdict']}")
    same = old["verdict"] == r["verdict"]
    if any(change.slot == "utilisation" for change in dialogue_plan.changes(turn)):  # "and if we only use it 40% of the time?"
        return use_changed(turn, old, r)
    # "and at 40%?" against a lease billed every hour: the rent did not move, and the reader is told why
    billed = WORDING.say(turn, "change.billed") if r["cloud_billing"] != "used_hours" and old["cloud_monthly_cost"] == r["cloud_monthly_cost"] else ""
    return WORDING.say(turn, "change.lead", before=months(old["payback_months"]), now=months(r["payback_months"]),
                       verdict=WORDING.say(turn, "change.same", verdict=verdict) if same else
                       WORDING.say(turn, "change.flipped", old=WORDING.say(turn, f"change.was.{old['verdict']}"), verdict=verdict),
                       span=span(r["horizon_months"]), monthly_before=money(old["cloud_monthly_cost"], old["currency"]),
                       monthly_now=money(r["cloud_monthly_cost"], r["currency"])) + turn.t(" ", "") + billed  # fmt: skip

RESERVATION = Wording("tco", "reservation")


def reservation(turn: Turn, planned, r: dict) -> str:  # noqa: ANN001 (plan.ReservedOrOnDemand: plan imports render's neighbours)
    """Reserved or on-demand: which to buy (or the mix) with each bill, the break-even utilisation and why, the rates'
    origin, then each way's bill with its formula."""
    cur, gpu = r["currency"], plan_gpu_name(turn, planned.gpu)
    a = planned.args
    values = {"reserved": money(a["reserved_per_gpu_hour"], cur), "on_demand": money(a["on_demand_per_gpu_hour"], cur),
              "pct": number(r["break_even_utilisation_pct"], 0), "formula": f"`{turn.t(r['break_even_formula'], r['break_even_formula_zh'])}`", "gpu": gpu}  # fmt: skip
    parts = []
    if not r["options"]:
        ask = "use" if a["peak_gpus"] else "use_and_peak"
        parts.append(RESERVATION.say(turn, "lead.no_use", **values) + turn.t(" ", "") + RESERVATION.say(turn, f"ask_use.{ask}", peak=a["peak_gpus"]))
    else:
        ways = {o["way"]: o for o in r["options"]}
        values.update(od_cost=money(ways["on_demand"]["monthly"], cur), peak_cost=money(ways["reserve_peak"]["monthly"], cur),
                      peak=ways["reserve_peak"]["reserved_gpus"], hours=number(a["gpu_hours_per_month"]), average=number(r["average_gpus"], 1),
                      fleet=number(r["fleet_utilisation_pct"], 0), saving=money(r["saving_vs_on_demand"], cur))  # fmt: skip
        if "mix" in ways:
            values.update(base=ways["mix"]["reserved_gpus"], mix_cost=money(ways["mix"]["monthly"], cur), burst=number(ways["mix"]["on_demand_gpu_hours"]))
        yours = RESERVATION.say(turn, "at_yours", **values) if not planned.from_book and planned.longer_term is None else ""  # "at your $2.1 / $1.4": the rates used are theirs
        parts.append(RESERVATION.say(turn, f"lead.{r['best']}", **values) + yours)
        parts.append(RESERVATION.say(turn, "why", **values))
        if "mix" in ways and r.get("base_stated") and planned.shape is not None and planned.shape.burst_hours_per_day is not None:
            parts.append(RESERVATION.say(turn, "mix_stated", extra=values["peak"] - values["base"], burst_hours=number(planned.shape.burst_hours_per_day), **values))
        elif r["best"] == "mix":
            parts.append(RESERVATION.say(turn, "mix_caveat", most=r["most_reserved_that_pay"], **values))
    parts.append(_reservation_yours(turn, planned, cur))
    if planned.longer_term is not None:
        longer, offer = planned.longer_term, (planned.longer_term.tier.get("offers") or [{}])[0]
        parts.append(RESERVATION.say(turn, "longer_term", years=number(longer.years), rate=money(longer.rate, cur), ratio=number(longer.ratio, 2),
                                     quoted=money(longer.rate / longer.ratio, cur), date=offer.get("date") or "—",
                                     title=offer.get("source_title") or "—", url=offer.get("source_url") or ""))  # fmt: skip
    for kind, tier in planned.from_book.items():
        offer = tier["offers"][0] if tier.get("offers") else {}
        parts.append(RESERVATION.say(turn, f"from_book.{kind}", tier=turn.text(tier["name"]), rate=money((tier["low"] + tier["high"]) / 2, cur),
                                     date=offer.get("date") or "—", title=offer.get("source_title") or "—", url=offer.get("source_url") or ""))  # fmt: skip
    if r["options"]:
        headers = [RESERVATION.say(turn, f"table.{key}") for key in ("way", "reserved", "on_demand_hours", "monthly", "formula")]
        rows = [[RESERVATION.say(turn, f"way.{o['way']}"), str(o["reserved_gpus"]), number(o["on_demand_gpu_hours"]), money(o["monthly"], cur),
                 f"`{turn.t(o['formula'], o['formula_zh'])}`"] for o in r["options"]]  # fmt: skip
        parts.append(table(headers, rows))
    turn.cite("rent-vs-buy", WORDING.say(turn, "costs_phrases.tco.rent_vs_buy"))
    return "\n\n".join(parts)


def reservation_missing(turn: Turn, planned) -> str:  # noqa: ANN001
    """Neither the user nor the price book gives one of the two rates: say which, and the rule that still holds."""
    missing = [kind for kind in ("reserved_per_gpu_hour", "on_demand_per_gpu_hour") if planned.args[kind] is None]
    return RESERVATION.say(turn, "missing", gpu=plan_gpu_name(turn, planned.gpu),
                           which=turn.t(*RESERVATION.pair(f"missing_which.{'both' if len(missing) == 2 else missing[0]}")))  # fmt: skip


def _reservation_yours(turn: Turn, planned, cur: str) -> str:  # noqa: ANN001
    a, used = planned.args, planned.used
    scale = {"reserved": planned.longer_term.ratio} if planned.longer_term else {}  # the 1-year rate said, before scaling to the term
    lines = [RESERVATION.say(turn, f"yours.{kind}", rate=money(a[f"{kind}_per_gpu_hour"] / scale.get(kind, 1), cur))
             for kind in ("reserved", "on_demand") if kind not in planned.from_book]  # fmt: skip
    if used is not None and used.per is not None:
        lines.append(RESERVATION.say(turn, f"yours.use.{used.per}", hours=number(used.hours), monthly=number(used.per_month)))
    shape = planned.shape
    if shape is not None and shape.base_gpus is not None:
        lines.append(RESERVATION.say(turn, "yours.base", gpus=shape.base_gpus))
    if a["peak_gpus"]:
        lines.append(RESERVATION.say(turn, "yours.peak", gpus=a["peak_gpus"]))
    if shape is not None and shape.burst_hours_per_day is not None:
        lines.append(RESERVATION.say(turn, "yours.burst", hours=number(shape.burst_hours_per_day)))
    if planned.busy_share is not None and a["gpu_hours_per_month"]:
        lines.append(RESERVATION.say(turn, "yours.busy", pct=number(planned.busy_share * 100), monthly=number(a["gpu_hours_per_month"])))
    return WORDING.say(turn, "yours.title") + turn.t(": ", "：") + turn.t("; ", "；").join(lines or [WORDING.say(turn, "yours.none")])


def plan_gpu_name(turn: Turn, gpu_id: str) -> str:
    gpu = turn.catalog.find_gpu(gpu_id)
    return gpu.name if gpu else gpu_id


def china_block(turn: Turn, block) -> str:  # noqa: ANN001 (plan.ChinaBlock)
    """First lines for a China buyer whose card cannot be bought new there: renting is the way to use it, the purchase
    below holds only for stock from a lawful source, and the parts sold in China instead."""
    return WORDING.say(turn, "china_block", gpu=block.gpu, status=turn.t(*CHINA_STATUS[block.status]), rule=turn.text(block.rule),
                       instead=turn.t(", ", "、").join(block.instead) or "—")  # fmt: skip


RENTALS = Wording("tco", "rentals")


def rentals_table(turn: Turn, r: dict, months: float) -> tuple[list[str], list[list[str]]]:
    """compare_rentals' rows: each option's count, rate, month, period and formula."""
    cur = r["currency"]
    rows = [[row["name"], str(row["gpus"]), money(row["price_per_gpu_hour"], cur), money(row["monthly"], cur), money(row["total"], cur),
             f"`{turn.formula(row)}`"] for row in r["rows"]]  # fmt: skip
    header = [RENTALS.say(turn, f"rentals_phrases.answer.{key}") for key in ("option", "gpus", "per_gpu_hour", "per_month")]
    header += [RENTALS.say(turn, "rentals_phrases.answer.over_months", months=number(months)), RENTALS.say(turn, "rentals_phrases.answer.formula")]
    return header, rows


def rentals_lead(turn: Turn, r: dict, months: float, too_small: set[str]) -> str:
    """The cheaper rental, or, when it cannot hold the model, the cheapest one that can."""
    cur = r["currency"]
    holding = sorted((row for row in r["rows"] if row["name"] not in too_small), key=lambda row: row["total"])
    if r["cheapest"] not in too_small or not holding:
        lead = RENTALS.say(turn, "rentals_phrases.lead.is_the_cheaper_rental_less", cheapest=r["cheapest"], saving=money(r["saving_vs_next"], cur), months=number(months))
        return lead + (RENTALS.say(turn, "rentals_phrases.lead.none_of_them_holds_the") if too_small and not holding else "")
    best = holding[0]
    return RENTALS.say(turn, "rentals_phrases.lead.is_the_cheapest_rental_that", name=best["name"], total=money(best["total"], cur), months=number(months),
                       cheapest=r["cheapest"])  # fmt: skip


def used_hours_only(turn: Turn, r: dict, stated_use: float | None, china: bool) -> str:
    """A low use the user stated ("we'd use it 30% of the time") against a rent billed for every hour (a lease, a
    commitment): what paying only the used hours costs at the cheapest tier billed by the hour, against owning. A China
    buyer has no such tier there (a US cloud's rate is no China rent): the hourly rate below which renting by the hour
    beats owning, to hold a quote against."""
    if stated_use is None or stated_use >= 100 or r["cloud_billing"] != "every_hour" or turn.ask.committed_billing:
        return ""
    hourly = [row for row in r.get("tier_paybacks") or [] if not row.get("billed_every_hour") and (row["tier"] == "china" or not china)]
    if not hourly:
        used_hours = r["total_gpus"] * HOURS_PER_MONTH * stated_use / 100
        return WORDING.say(turn, "used_hours.quote", use=number(stated_use), lease=money(r["cloud_monthly_cost"], r["currency"]),
                           own=money(r["own_monthly_cost"], r["currency"]), rate=money(r["own_monthly_cost"] / used_hours, r["currency"]))  # fmt: skip
    cheapest = min(hourly, key=lambda row: row["monthly_rent_avoided"])
    cur, own = r["currency"], r["own_monthly_cost"]
    key = "used_hours.rent" if cheapest["monthly_rent_avoided"] < own else "used_hours.buy"
    return WORDING.say(turn, key, use=number(stated_use), tier=turn.text(cheapest["tier_name"]), rate=money(cheapest["price_per_gpu_hour"], cur),
                       rent=money(cheapest["monthly_rent_avoided"], cur), own=money(own, cur), lease=money(r["cloud_monthly_cost"], cur))  # fmt: skip


# ---- a comparison of rent tiers (rent_tiers.py) ----
TIERS = Wording("tco", "rent_tiers")


def _band(low: float | None, high: float | None, currency: str) -> str:
    if low is None or high is None:
        return "—"
    return money(low, currency) if abs(high - low) < 0.005 else f"{money(low, currency)}–{money(high, currency)}"


def rent_tiers_lead(turn: Turn, r: dict, use, commitment: dict | None, billed: dict[str, dict], reserved_gpus: int) -> str:
    """The cheapest reliable tier at the use said and its month, against hyperscaler on-demand; the marketplace's month
    and its catch; whether a 1-year commitment pays at this use (its break-even against the share busy)."""
    cur, tiers = r["currency"], {t["tier"]: t for t in r["tiers"]}
    what = TIERS.say(turn, f"use.{use.basis}", gpus=use.gpus, what=r["gpu_name"], hours=number(use.hours_per_month),
                     utilisation=number(use.hours_per_month / (use.gpus * HOURS_PER_MONTH) * 100))  # fmt: skip
    fair = tiers.get(r["fair_tier"]) if r["fair_tier"] else None
    top = tiers.get("hyperscaler_on_demand")
    if fair is None:  # no reliable tier prices the card: the tiers that do, in the table
        return TIERS.say(turn, "lead.no_fair", use=what)
    sentences = [TIERS.say(turn, "lead.fair", use=what, tier=turn.text(fair["name"]), cost=_band(fair["cost_low"], fair["cost_high"], cur),
                           rate=_band(fair["low"], fair["high"], cur))]  # fmt: skip
    if top is not None and top is not fair:
        sentences.append(TIERS.say(turn, "lead.on_demand", cost=_band(top["cost_low"], top["cost_high"], cur), rate=_band(top["low"], top["high"], cur)))
    market = tiers.get("marketplace")
    if market is not None and market is not fair:
        sentences.append(TIERS.say(turn, "lead.marketplace", cost=_band(market["cost_low"], market["cost_high"], cur)))
    if use.job_years is not None:  # a job shorter than any commitment: its whole bill by the hour, and no reservation to weigh
        months = use.job_years * 12
        sentences.append(TIERS.say(turn, "lead.job_total", job=_job_length(turn, use.job_years), tier=turn.text(fair["name"]),
                                   cost=_band(fair["cost_low"] * months, fair["cost_high"] * months, cur)))  # fmt: skip
        if "hyperscaler_1yr" in tiers:
            sentences.append(TIERS.say(turn, "lead.commitment_outlasts", job=_job_length(turn, use.job_years)))
    elif commitment is not None and "hyperscaler_1yr" in billed:
        busy = commitment["fleet_utilisation_pct"]
        pays = busy is not None and busy >= commitment["break_even_utilisation_pct"]
        one_year = billed["hyperscaler_1yr"]
        sentences.append(TIERS.say(turn, "lead.commitment_pays" if pays else "lead.commitment_idle",
                                   break_even=number(commitment["break_even_utilisation_pct"], 0), busy=number(busy or 0, 0),
                                   cost=money(one_year["cost_low"], cur), gpus=reserved_gpus))  # fmt: skip
    return turn.t(" ", "").join(sentences)


def _job_length(turn: Turn, years: float) -> str:
    """A job's length in the unit it is easiest to read (spans.py): weeks under a month, else months."""
    return turn.text(years_span(years))


def rent_tiers_table(turn: Turn, r: dict, use, billed: dict[str, dict]) -> str:
    """Each tier: its rate, its month at the use said (a committed tier at every hour of the GPUs reserved) and what
    decides besides the price, from knowledge/rent_tiers.yaml (each line's page cited)."""
    cur, lines = r["currency"], rent_tier_trade_offs()
    header = [TIERS.say(turn, "table.tier"), TIERS.say(turn, "table.rate"), TIERS.say(turn, "table.month", hours=number(use.hours_per_month)),
              TIERS.say(turn, "table.decides")]  # fmt: skip
    rows = []
    for tier in r["tiers"]:
        line = lines[tier["tier"]]
        month = billed.get(tier["tier"], tier)
        cost = _band(month["cost_low"], month["cost_high"], cur)
        if tier["tier"] in billed:
            cost = TIERS.say(turn, "table.billed_every_hour", cost=cost)
        rows.append([turn.text(tier["name"]), _band(tier["low"], tier["high"], cur), cost, turn.t(line.en, line.zh)])
        turn.cite(f"rent-tier:{line.source.url}", line.source.cited, urls=[line.source.url])
    return TIERS.say(turn, "table.title", what=r["gpu_name"], currency=cur) + "\n\n" + table(header, rows)


LESSOR = Wording("tco", "lessor")
LESSOR_MARKET_TIERS = ("china", "specialist", "hyperscaler_on_demand")  # what a renter compares a lessor's rate with, cheapest kind first


def lessor(turn: Turn, r: dict, inputs: str, trend: dict | None) -> str:
    """The lessor's answer from compute_tco's result ``r`` (called with ``rents_out``); ``inputs`` is the folded list of
    the inputs given and defaulted, ``trend`` rental_prices' falling-rent trend for a payback over several years (None: no line)."""
    v, cur = r["lessor"], r["currency"]
    values = {"gpus": r["total_gpus"], "gpu": r["gpu_name"] or "GPU", "rate": money(v["rate_per_gpu_hour"], cur), "occupancy": number(v["occupancy_pct"]),
              "revenue": money(v["revenue_per_month"], cur), "running": money(v["running_cost_per_month"], cur), "capex": money(r["capex"], cur),
              "span": span(r["horizon_months"])}  # fmt: skip
    if r.get("keep_or_rent") is not None:  # cards already owned: what they cost is spent, only the monthly margin is in play
        key = "lead.owned_margin" if v["margin_per_month"] > 0 else "lead.owned_loss"
        lead = LESSOR.say(turn, key, margin=money(abs(v["margin_per_month"]), cur), resale=money(r["keep_or_rent"]["resale_now"], cur), **values)
        reach = LESSOR.say(turn, "owned_needs", rate_cover=money(v["rate_to_cover_running"], cur), **values)
    elif v["payback_months"] is None:
        lead = LESSOR.say(turn, "lead.never", loss=money(-v["margin_per_month"], cur), **values)
        reach = LESSOR.say(turn, "never_needs", rate_cover=money(v["rate_to_cover_running"], cur), rate_needed=money(v["rate_to_pay_back_in_horizon"], cur), **values)
    else:
        lead = LESSOR.say(turn, "lead.payback", months=number(v["payback_months"]), margin=money(v["margin_per_month"], cur), **values)
        reach = _lessor_reach(turn, v, values, cur)
    parts = [lead]
    if v["rate_from_market"] and r.get("rent_tier_name"):
        parts.append(LESSOR.say(turn, "rate_from_market", tier=Text.model_validate(r["rent_tier_name"]), rate=values["rate"]))
    parts += [reach, *filter(None, [_lessor_market(turn, r), region_line(turn, r)]), LESSOR.say(turn, "occupancy_note")]
    if r.get("keep_or_rent") is None:  # the trend line speaks of a payback: cards already owned have none to stretch
        parts += [trend_words(turn, LESSOR, "trend", trend)] if trend else []
    parts += [_lessor_table(turn, v, cur), inputs]
    turn.cite("rent-vs-buy", WORDING.say(turn, "costs_phrases.tco.rent_vs_buy"))
    return "\n\n".join(parts)


def _lessor_reach(turn: Turn, v: dict, values: dict, cur: str) -> str:
    """Whether the purchase is repaid within the horizon, the profit or loss over it, and what would repay it in time."""
    result = LESSOR.say(turn, "makes" if v["profit_over_horizon"] >= 0 else "loses")
    shared = {**values, "profit": money(abs(v["profit_over_horizon"]), cur), "rate_needed": money(v["rate_to_pay_back_in_horizon"], cur),
              "occupancy_needed": number(v["occupancy_to_pay_back_in_horizon_pct"]), "result": result}  # fmt: skip
    if v["payback_months"] <= v["horizon_months"]:
        return LESSOR.say(turn, "within", **shared)
    return LESSOR.say(turn, "beyond" if _reachable(v["occupancy_to_pay_back_in_horizon_pct"]) else "beyond_unreachable", **shared)


def _lessor_market(turn: Turn, r: dict) -> str:
    """What a renter pays elsewhere for the card: the lessor's competition, one rate per kind of cloud."""
    rows = []
    for tier in LESSOR_MARKET_TIERS:
        row = next((t for t in r["tier_paybacks"] if t["tier"] == tier), None)
        if row is not None:
            rows.append(LESSOR.say(turn, "market_row", tier=Text.model_validate(row["tier_name"]), rate=money(row["price_per_gpu_hour"], r["currency"])))
    return LESSOR.say(turn, "market", rows=turn.t("; ", "；").join(rows)) if rows else ""


def trend_words(turn: Turn, wording: Wording, key: str, trend: dict, **extra: object) -> str:
    """The falling-rent sentence under ``key`` of ``wording``, filled from rental_prices' ``trend``."""
    cur = trend["currency"]
    return wording.say(turn, key, gpu=trend["gpu"], then=money(trend["then_price"], cur), then_date=trend["then_date"], now=money(trend["now_price"], cur),
                       now_date=trend["now_date"], fall=number(trend["fall_pct"], 0), swing=number(trend["swing_pct"], 0), url=trend["source_url"],
                       source_date=trend["source_date"], **extra)  # fmt: skip


def _lessor_table(turn: Turn, v: dict, cur: str) -> str:
    rows = [[LESSOR.say(turn, "table.revenue", hours=number(v["rented_gpu_hours"]), rate=money(v["rate_per_gpu_hour"], cur)), money(v["revenue_per_month"], cur)]]
    for key in ("energy", "colocation", "maintenance", "staff"):
        amount = v[f"{key}_per_month"]
        if amount:
            rows.append([LESSOR.say(turn, f"table.{key}"), "−" + money(amount, cur)])
    margin = v["margin_per_month"]
    shown = money(margin, cur) if margin >= 0 else "−" + money(-margin, cur)
    rows.append([f"**{LESSOR.say(turn, 'table.margin')}**", f"**{shown}**"])
    return table([LESSOR.say(turn, "table.item"), LESSOR.say(turn, "table.amount")], rows)
