"""Rent-vs-buy (TCO) and training-time answers. The rent-or-buy answer runs the package's plan.py (compute_tco's
arguments), the tool and render.py (its sentences), after the take-overs that answer another way (an API bill, the
rental market, the cost of a training run, a cost per token); the training-time answer still words its own run."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from advisor.markdown import money, number, table, token_count
from advisor.offline.tasks.specs import compare
from advisor.offline.tasks.tco import api_bill, lessor, payback, plan, price_dates, render, rent_prices, rentals, token_price
from advisor.offline.tasks.tco.tariffs import region_line
from advisor.offline.tasks.training import plan as training_plan
from advisor.offline.tasks.training import render as training_render
from advisor.offline.tasks.training import training_speed
from advisor.offline.tasks.specs.compare_view import PEFT, TIMED_TRAINING, tool_method
from advisor.offline.wording import Wording
from advisor.offline.turn import Turn
from knowledge.bilingual import Text
from knowledge.catalog import variant_family
from tools.cost.mfu import DEFAULT_GOODPUT, GOODPUT_SOURCE
from tools.gpu_specs import CHINA_BUYABLE
from advisor.labels import CHINA_STATUS
from tools.cost.tco_model import HOURS_PER_MONTH
from tools.recommend.configs import SERVER_GPUS, sold_count_from

WORDING = Wording("tco", "costs")
PRICE_AGE = Wording("tco", "price_age")  # what a dated price is, in the stale-price note
QUARTER_DAYS = 90
CHINCHILLA_TOKENS_PER_PARAM = 20  # Hoffmann et al. 2022 compute-optimal ratio
FULL_TRAINING = {"pretrain", "train", "full_finetune", "finetune"}
FINE_TUNING = {"full_finetune", "finetune", *PEFT}
FINE_TUNE_TOKENS = 1e8  # a round amount to scale from when a fine-tune's data set is not given
SAME_SPEED = 0.05  # runs within 5% of each other are "about the same": below the estimate's own precision


def _hourly_price(turn: Turn, currency: str, gpus: int) -> float | None:
    """The rental price per GPU-hour; a monthly or yearly bill ("over 400k a month") is spread over its
    hours and, unless it was said per card, over the GPUs, and the answer says so."""
    price = turn.slots.hourly_price
    amount = plan.in_currency(price, currency)
    if price is None or amount is None or price.per not in plan.PERIOD_HOURS:
        return amount
    cards = 1 if turn.ask.price_per_card else gpus
    hourly = amount / plan.PERIOD_HOURS[price.per] / cards
    period = WORDING.text("costs_phrases.hourly_price.a_month" if price.per == "month" else "costs_phrases.hourly_price.a_year")
    whole = WORDING.text("costs_phrases.hourly_price.for_gpus", cards=cards) if cards > 1 else Text(en="", zh="")
    turn.assume(*WORDING.both("lines.bill_per_gpu_hour", amount=money(amount, currency), period=period, whole=whole,
                              hourly=money(hourly, currency), hours=f"{plan.PERIOD_HOURS[price.per]:g}"))
    return hourly


def _duration(days: float) -> tuple[str, str]:
    """A wall-clock time in the unit it is read in: "≈ 15 hours", not "≈ 0 days"."""
    if days < 1:
        return WORDING.both("costs_phrases.duration.hours", hours=number(days * 24))
    return WORDING.both("costs_phrases.duration.days", days=number(days))


def tco(turn: Turn) -> str:
    if api_bill.applies(turn):  # "we pay an API N tokens a day: self-host cheaper?": the bill against GPUs serving it
        return api_bill.answer(turn, plan.gpu_of(turn), plan.currency_of(turn))
    owns_cards = plan.owns_cards(turn, turn.slots.server_price)  # "we already have 16 A100s": keep or rent, not the rental market
    lets_out = turn.ask.rents_out  # "buy servers and rent them out": the rent is the lessor's revenue, not a price to judge
    if not owns_cards and not lets_out and rentals.applies(turn):
        return rentals.answer(turn)
    if not owns_cards and not lets_out and rent_prices.applies(turn):  # "is $4.50/h fair for an H100?": the rental market, nothing bought
        return rent_prices.answer(turn)
    if plan.cost_of_a_run(turn):
        return training_time(turn)
    if compare.asks_cost_per_token(turn):  # "cost per million tokens, L40S or A100, for an 8B?": both cards served and priced
        compared = compare.route(turn)
        if compared is not None:
            return compared
    if token_price.applies(turn):  # "cost per million tokens?" on one card: served at full load and priced per rental tier
        return token_price.answer(turn, plan.gpu_of(turn), plan.currency_of(turn))
    planned = plan.rent_or_buy(turn)
    s, currency, count, servers, yours = turn.slots, planned.currency, planned.count, planned.servers, planned.yours
    horizon_years, owned = planned.horizon_years, planned.owned
    outcome = turn.call("compute_tco", planned.args)
    missing_rent = not outcome.ok and "cloud_price_per_gpu_hour" in ((outcome.error or {}).get("suggestions") or [])
    if missing_rent and payback.asked_for_line(turn):  # "and the electricity?" needs no rent: that line is answered all the same
        outcome = turn.call("compute_tco", {**outcome.args, "rent_needed": False})
    if not outcome.ok and (outcome.error or {}).get("code") == "tco_missing_price":
        stated = next((s.frame.surface(slot) for slot in ("server_price", "budget") if slot in s.unusable), "")
        if stated:  # "£9k each": said, in a currency with no rate
            return WORDING.say(turn, "costs_phrases.tco.the_price_is_in_a", stated=stated)
        return _missing_price(turn, outcome.error, outcome.args["gpu"], currency, count, horizon_years)
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    total = next((a for a in r["assumptions"] if a["key"] == "server_price_is_total"), None)
    if total is not None:  # the tool read the price as all servers' (nearer the catalog's price for one): said in the lead
        yours.append(WORDING.text("yours.price_total", amount=money(total["value"], r["currency"]), servers=servers,
                            each=money(total["value"] / servers, r["currency"])))  # fmt: skip
    asked_line = payback.asked_for_line(turn)
    if asked_line:  # "what's the electricity?", "and the maintenance?" after the comparison: that line, not the whole table again
        answered = payback.line(turn, r, asked_line, render.inputs)
        whose = region_line(turn, r) if asked_line in ("energy", "colocation") else ""  # whose tariff, or that none was sourced
        return answered + ("\n\n" + whose if whose else "")
    if r.get("lessor"):  # cards bought, or already owned, to be let out: the lessor's margin, not keep-or-rent for one's own use
        return lessor.answer(turn, r, render.inputs(turn, r["assumptions"], r["currency"]))
    if owned:
        return render.keep_or_rent(turn, r)
    cur = r["currency"]
    years = r["horizon_months"] / 12
    verdict = turn.text(render.lead(r)) + turn.t(" ", "") + turn.text(render.flip(r)) + turn.t(" ", "") + turn.text(render.totals(r))
    if r["payback_months"] is not None and not turn.ask.speaks_of_payback and not turn.reading.follow_up:
        # "rent or buy?": the verdict and its monthly figure first; a payback asked for ("how long to pay back?") leads with the months
        verdict = render.verdict_first(turn, r) + " " + verdict  # a space in both languages: two bold runs must not touch
    said = turn.text(WORDING.text("yours.title")) + turn.t(": ", "：") + turn.t("; ", "；").join(
        turn.text(line) for line in (yours or [WORDING.text("yours.none")])
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
        *filter(None, [payback.tier_summary(turn, r)]),
        said,  # the figures the user gave stay on the first screen, before the assumptions about the market and the site
        *filter(None, [_rent_trend(turn, r), region_line(turn, r)]),
        table([WORDING.say(turn, "costs_phrases.tco.path"), WORDING.say(turn, "costs_phrases.tco.per_month"), WORDING.say(turn, "costs_phrases.tco.total_over_y", years=number(years))], rows),
        WORDING.say(turn, "capex_line", capex=money(r["capex"], cur), per_hour=money(r["own_cost_per_used_gpu_hour"], cur)),
        *payback.tier_paybacks(turn, r),
        *payback.stale_note(turn, r),
        "**" + WORDING.say(turn, "costs_phrases.tco.what_moves_the_answer_most") + "**\n" + "\n".join(f"- {turn.text(x)}" for x in r["sensitivities"]),
        f"⚡ {turn.text(r['power_reminder'])}",
    ]
    parts.append(render.inputs(turn, r["assumptions"], r["currency"]))
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


def _missing_price(turn: Turn, error: dict, gpu_id: str, currency: str, gpus: int, horizon_years: float | None) -> str:
    """The card lacks a server price or a rent: say which figure is missing and still answer the side that is known
    (the rent at market tiers for the GPUs, period and utilisation asked)."""
    name = plan.gpu_name(turn, gpu_id)
    examples = WORDING.entry("missing.examples")
    if "server_price" not in (error.get("suggestions") or []):  # the rent is what is missing
        return WORDING.say(turn, "missing.rent", gpu=name, example=examples["rent"][currency])
    months = (horizon_years or 1) * 12
    share = turn.slots.utilisation if turn.slots.utilisation is not None else 1.0
    outcome = turn.call("rental_prices", {"gpu": gpu_id, "currency": currency, "china": turn.slots.region == "cn" or currency == "CNY",
                                          "gpus": gpus, "gpu_hours": gpus * HOURS_PER_MONTH * months * share, "today": dt.date.today().isoformat()})  # fmt: skip
    m = outcome.result if outcome.ok else None
    fair = next((t for t in m["tiers"] if t["tier"] == m["fair_tier"]), None) if m else None
    top = next((t for t in m["tiers"] if t["tier"] == "hyperscaler_on_demand"), None) if m else None
    if fair is None:
        return WORDING.say(turn, "missing.server_and_rent", gpu=name, example=examples["server"][currency])
    use = rent_prices.WORDING.say(turn, "bill_use", utilisation=number(share * 100)) if turn.slots.utilisation is not None else ""
    bill = rent_prices.WORDING.say(turn, "bill", gpus=gpus, what=name, months=number(months), hours=number(m["gpu_hours"]), use=use,
                                   fair_cost=rent_prices.band(fair["cost_low"], fair["cost_high"], currency),
                                   fair_tier=rent_prices.WORDING.say(turn, f"fair_tier.{m['fair_tier']}"),
                                   fair=rent_prices.band(fair["low"], fair["high"], currency),
                                   ceiling_cost=money(top["cost_high"], currency) if top else "—")  # fmt: skip
    return WORDING.say(turn, "missing.server_price", gpu=name, example=examples["server"][currency]) + "\n\n" + bill


def _rent_trend(turn: Turn, r: dict) -> str:
    """A payback over several years worked at today's rent assumes the rent holds; rents have been falling (the trend
    rental_prices carries, so every figure in the line is a tool's)."""
    years = r["horizon_months"] / 12
    if years < lessor.MULTI_YEAR or r["cloud_billing"] == "monthly_bill" or not r.get("gpu_id"):  # a bill the user pays is theirs, not the market's
        return ""
    market = turn.call("rental_prices", {"gpu": r["gpu_id"], "currency": r["currency"], "today": dt.date.today().isoformat()})
    trend = market.result.get("trend") if market.ok else None
    if not trend:
        return ""
    months = r["payback_months"]
    return lessor.trend_words(turn, WORDING, "rent_trend." + ("no_payback" if months is None else "payback"), trend,
                              years=number(years), months=number(months) if months is not None else "")


def _tokens_seen(turn: Turn) -> float | None:
    """The tokens the run processes: the training data times its epochs ("40M tokens x 3 epochs")."""
    tokens, epochs = turn.slots.tokens, turn.slots.frame.get("epochs")
    if epochs is None:
        return tokens
    if tokens is None:
        turn.ignore("epochs", *WORDING.pair("costs_phrases.tokens_seen.epochs_multiply_the_training_data"))
        return None
    turn.slots.mark("epochs")
    total = tokens * epochs
    turn.assume(*WORDING.both("costs_phrases.tokens_seen.m_tokens_processed_m_epochs", total_millions=number(total / 1e6), tokens_millions=number(tokens / 1e6), epochs=number(epochs)))
    return total


def training_time(turn: Turn) -> str:
    compared = compare.route(turn, default_task="full_finetune")  # "H100 or A100 to train 8B on 1T tokens?"
    if compared is not None:  # with "can we use half as many?": the per-GPU ratio and the verdict on it first, the options after
        return "\n\n".join([*training_speed.quoted_cut(turn, compare.options(turn)), compared])
    if training_plan.compares_speed(turn):  # "how much faster does B200 train than H100?": the cards, no run named
        return training_speed.answer(turn)
    s = turn.slots
    methods = set(s.frame.all("method"))
    method = next((m for m in PEFT if m in methods), "full")
    if methods & (FULL_TRAINING | set(PEFT)):  # "pretrain a 13b", "LoRA": what the FLOPs count per token is
        s.mark("method")
    model = turn.model_reference()
    if model is None:
        return WORDING.say(turn, "costs_phrases.training_time.which_model_or_how_many")
    tokens = _tokens_seen(turn)
    args = {"model": model, "gpu": plan.gpu_of(turn), "currency": plan.currency_of(turn)}
    args.update(
        tokens=tokens,
        num_gpus=s.gpu_count if s.gpu_count else None,
        deadline_days=s.deadline_hours / 24 if s.deadline_hours else None,
        price_per_gpu_hour=_hourly_price(turn, args["currency"], s.gpu_count or 1),
        electricity_price=plan.in_currency(s.power_price, args["currency"]),
        mfu=s.mfu,
        method=method,
        goodput=DEFAULT_GOODPUT,
    )
    _assume(turn, WORDING.text("training.goodput", share=f"{DEFAULT_GOODPUT:.0%}", source=GOODPUT_SOURCE))
    if tokens is None and methods & FINE_TUNING:  # a fine-tune reads its own data set, not a pre-training budget
        args["tokens"] = FINE_TUNE_TOKENS
        turn.assume(
            *WORDING.both("costs_phrases.training_time.training_tokens_m_none_given", e6=number(FINE_TUNE_TOKENS / 1e6)),
        )
    elif tokens is None:
        params = s.params or turn.catalog.model(model).params_b * 1e9
        args["tokens"] = CHINCHILLA_TOKENS_PER_PARAM * params
        turn.assume(
            *WORDING.both("costs_phrases.training_time.training_tokens_b_chinchilla_20", tokens_billions=number(args['tokens'] / 1e9)),
        )
    if args["num_gpus"] is None and s.parallel_gpus:
        args["num_gpus"] = s.parallel_gpus
        layout = " × ".join(f"{name} {degree}" for name, degree in (("TP", s.tp), ("PP", s.pp), ("DP", s.dp)) if degree)
        turn.assume(*WORDING.both("costs_phrases.training_time.gpus", parallel_gpus=s.parallel_gpus, layout=layout))
    if args["num_gpus"] is None and args["deadline_days"] is None:  # adapters are mostly trained on one card, full runs on a server
        args["num_gpus"] = 1 if method in PEFT else 8
        counted = WORDING.text("lines.one_gpu") if args["num_gpus"] == 1 else WORDING.text("lines.gpus", count=args["num_gpus"])
        turn.assume(*WORDING.both("lines.count_assumed", gpus=counted))
    outcome = turn.call("estimate_training_time", args)
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    cur = r["currency"]
    took_en, took_zh = _duration(r["wall_clock_days"])
    market, tier_rows, dated = (None, [], []) if args["price_per_gpu_hour"] is not None else _run_at_market(turn, r)
    if not market and r["cost"] and args["price_per_gpu_hour"] is None:  # priced at the catalog's on-demand rate
        dated = price_dates.catalog_prices(r["gpu_id"], ["cloud_price"])
    compared = _against_before(turn, args, r)
    cost = (WORDING.say(turn, "lines.run_at_market", market=market) if market
            else WORDING.say(turn, "lines.run_rented", cost=money(r["cost"], cur)) if r["cost"] else "")
    power = WORDING.say(turn, "lines.run_electricity", cost=money(r["electricity_cost"], cur)) if r["electricity_cost"] is not None else ""
    verdict = WORDING.say(turn, "lines.run_verdict", took=turn.t(took_en, took_zh), count=r["num_gpus"], name=plan.gpu_name(turn, r["gpu_id"]),
                          compared=compared, gpu_hours=number(r["gpu_hours"]), cost=cost, power=power)
    if r["deadline_days"] and not r["gpus_derived_from_deadline"]:  # "can one card make it in time?": the answer to the question asked
        within = r["wall_clock_days"] <= r["deadline_days"]
        limit_en, limit_zh = _duration(r["deadline_days"])
        verdict = WORDING.say(turn, "lines.meets_deadline" if within else "lines.misses_deadline", limit=turn.t(limit_en, limit_zh)) + " " + verdict
    if r["gpus_derived_from_deadline"]:
        verdict = WORDING.say(turn, "costs_phrases.training_time.finish_within_days_days", num_gpus=r['num_gpus'], name=plan.gpu_name(turn, r['gpu_id']), deadline_days=number(r['deadline_days']), wall_clock_days=number(r['wall_clock_days'])) + _as_sold(turn, args, r["num_gpus"]) + "\n\n" + verdict
    # with the market's tiers priced, the catalog's single on-demand figure would be a second, different cost
    shown = [item for item in r["items"] if not (tier_rows and item["key"] == "cost")]
    rows = turn.item_rows(shown) + tier_rows
    turn.assume(*WORDING.both("lines.mfu", mfu=f"{r['mfu']:.0%}", source=WORDING.text("lines.mfu_given" if r["mfu_source"] == "user" else "lines.mfu_default")))
    warnings = [f"⚠️ {turn.text(w)}" for w in r["warnings"]]
    task = method if method in PEFT else ("pretrain" if "pretrain" in methods else "full_finetune")
    no_fit = _memory_plan(turn, model, task, r["gpu_id"], r["num_gpus"])
    if isinstance(no_fit, dict):  # the run cannot fit the stated cards: that verdict leads, the time is the compute alone
        verdict = training_render.fit_first_lead(turn, task, r["num_gpus"], no_fit) + "\n\n" + verdict
    _memory_variant(turn, r["gpu_id"])
    warnings += filter(None, [_china_status(turn, r["gpu_id"])])
    if r["wall_clock_days"] > QUARTER_DAYS and not r["gpus_derived_from_deadline"]:
        warnings[:0] = [f"⏱️ {line}" for line in [_within_a_quarter(turn, args)] if line]
    turn.cite("parallelism", WORDING.say(turn, "costs_phrases.training_time.parallelism_and_scaling"))
    warnings += price_dates.stale_note(turn, dated)
    return "\n\n".join([verdict, table([WORDING.say(turn, "costs_phrases.training_time.item"), WORDING.say(turn, "costs_phrases.training_time.value"), WORDING.say(turn, "costs_phrases.training_time.formula")], rows), *warnings])


def _run_at_market(turn: Turn, r: dict) -> tuple[str | None, list[list[str]], list[tuple[Text, str]]]:
    """A run's GPU-hours priced at the tier a renter of that size pays (specialist clouds; the China market for a
    China buyer): that one tier in the headline, and every tier's figure for the same hours as table rows, so the
    first screen and the table show the same numbers, and the dated offers behind them. (None, [], []) when no tier
    has a fair band for the GPU."""
    currency = r["currency"]
    china = turn.slots.region == "cn" or currency == "CNY"
    outcome = turn.call("rental_prices", {"gpu": r["gpu_id"], "currency": currency, "china": china, "gpus": r["num_gpus"],
                                          "gpu_hours": r["gpu_hours"], "today": dt.date.today().isoformat()})  # fmt: skip
    if not outcome.ok or outcome.result["fair_tier"] is None:
        return None, [], []
    m = outcome.result
    fair = next(t for t in m["tiers"] if t["tier"] == m["fair_tier"])
    priced = [t for t in m["tiers"] if t["cost_low"] is not None]
    scale = WORDING.say(turn, "run_scale") if m["large"] else ""
    others = WORDING.say(turn, "run_cost_others") if len(priced) > 1 else ""
    headline = WORDING.say(turn, "run_cost", fair_cost=rent_prices.band(fair["cost_low"], fair["cost_high"], currency),
                           fair_tier=rent_prices.WORDING.say(turn, f"fair_tier.{m['fair_tier']}"),
                           fair=rent_prices.band(fair["low"], fair["high"], currency), scale=scale, others=others)  # fmt: skip
    hours = number(r["gpu_hours"])
    rows = []
    for tier in priced:
        cost = rent_prices.band(tier["cost_low"], tier["cost_high"], currency)
        rows.append([WORDING.say(turn, "training.tier_row.label", tier=turn.text(tier["name"])), cost,
                     f"`{WORDING.say(turn, 'training.tier_row.formula', hours=hours, rate=rent_prices.band(tier['low'], tier['high'], currency), cost=cost)}`"])  # fmt: skip
    dated = [(PRICE_AGE.text("offer", tier=tier["name"], offer=offer["offer"]), offer["date"]) for tier in priced for offer in tier["offers"]]
    return headline, rows, dated


def _assume(turn: Turn, line: Text) -> None:
    turn.assume(line.en, line.zh)


def _memory_plan(turn: Turn, model: str, task: str, gpu_id: str, count: int) -> dict | None:
    """How the run holds in memory, said as a default (ZeRO-3/FSDP across the cards for a full run on several); the
    memory estimate when it cannot hold as stated (its verdict leads the answer)."""
    option, fit = compare.memory_on(turn, model, task, gpu_id, count)
    if not fit.ok:
        return None
    r = fit.result
    if r["verdict"] == "does_not_fit":
        return r
    values = {"count": count, "need": number(r["total_per_gpu_gb"]), "holds": number(r["gpu_capacity_gb"])}
    if count == 1:
        _assume(turn, WORDING.text("training.one_card", **values))
    elif option.zero == 3 and task not in PEFT:  # adapters train a sliver of the weights: nothing to shard worth saying
        _assume(turn, WORDING.text("training.sharded", **values))
    return None


def _memory_variant(turn: Turn, gpu_id: str) -> None:
    """"A100" is sold with 40 and 80 GB: the size the estimate took, said when the user named none."""
    gpu = turn.catalog.gpu(gpu_id)
    said = turn.slots.frame.surface("gpu")
    if not said or f"{gpu.memory_gb:g}" in said:
        return
    sizes = {g.memory_gb for g in turn.catalog.gpus if variant_family(g.id) == variant_family(gpu.id) and g.memory_gb != gpu.memory_gb}
    variants = (turn.catalog.gpu_variant(gpu.id, memory_gb=size) for size in sorted(sizes))
    # only a sibling with the same compute keeps the time: an H100 NVL is another card, not a memory option
    others = [v for v in variants if v is not None and v.tensor16_tflops == gpu.tensor16_tflops]
    if others:
        _assume(turn, WORDING.text("training.variant", name=gpu.name, memory=f"{gpu.memory_gb:g}", others=", ".join(o.name for o in others)))


def _china_status(turn: Turn, gpu_id: str) -> str:
    """For a China buyer, a card that cannot be bought new there: its status and the rule behind it."""
    gpu = turn.catalog.gpu(gpu_id)
    china_buyer = turn.china_buyer
    if not china_buyer or gpu.china in CHINA_BUYABLE or gpu.china is None:
        return ""
    status = turn.t(*CHINA_STATUS[gpu.china])
    rule = turn.t(gpu.china_rule.label_en, gpu.china_rule.label_zh) if gpu.china_rule else ""
    said = "" if not rule or status in rule else turn.t(f" ({rule})", f"（{rule}）")  # "second-hand only (…: second-hand only)" once
    return WORDING.say(turn, "training.china", name=gpu.name, status=status, rule=said)


def _against_before(turn: Turn, args: dict, r: dict) -> str:
    """A follow-up that changed the card or the count ("and on H800?"): the new run against the one before it, as
    a ratio, so the reader need not divide two answers. "" when nothing comparable changed."""
    if not turn.reading.follow_up:
        return ""
    before = turn.reading.before
    old_gpu = turn.catalog.find_gpu(str(before.get("gpu"))) if before.has("gpu") else None
    old_count = before.get("gpu_count")
    earlier = {**args, "gpu": old_gpu.id if old_gpu else r["gpu_id"], "num_gpus": old_count or r["num_gpus"], "deadline_days": None}
    if earlier["gpu"] == r["gpu_id"] and earlier["num_gpus"] == r["num_gpus"]:
        return ""
    timed = turn.call("estimate_training_time", earlier)
    if not timed.ok:
        return ""
    then = timed.result
    ratio = then["wall_clock_days"] / r["wall_clock_days"]
    took_en, took_zh = _duration(then["wall_clock_days"])
    values = {"before": WORDING.say(turn, "lines.cards", count=then["num_gpus"], name=plan.gpu_name(turn, then["gpu_id"])), "took": turn.t(took_en, took_zh)}
    if abs(ratio - 1) < SAME_SPEED:
        return turn.t(", ", "，") + WORDING.say(turn, "training.against_before.same", **values)
    key = "faster" if ratio > 1 else "slower"
    return turn.t(", ", "，") + WORDING.say(turn, f"training.against_before.{key}", ratio=number(max(ratio, 1 / ratio)), **values)


def time_on(turn: Turn, model: str, task: str, option: dict) -> str:
    """A training recommendation made for a data size ("how many H100s to pretrain 13B on 1T tokens"): memory alone
    picks the fewest cards that hold the model, so say how long those take and how many would finish in time."""
    if task not in TIMED_TRAINING or turn.slots.tokens is None:
        return ""
    tokens, deadline = _tokens_seen(turn), turn.slots.deadline_hours
    args = {"model": model, "gpu": option["gpu_id"], "tokens": tokens, "method": tool_method(task), "mfu": turn.slots.mfu, "goodput": DEFAULT_GOODPUT,
            "currency": plan.currency_of(turn), "num_gpus": None if deadline else option["count"], "deadline_days": deadline / 24 if deadline else None}  # fmt: skip
    timed = turn.call("estimate_training_time", args)
    if not timed.ok:
        return ""
    r, name = timed.result, plan.gpu_name(turn, option["gpu_id"])
    took_en, took_zh = _duration(r["wall_clock_days"])
    data = token_count(tokens)
    if deadline:
        limit_en, limit_zh = _duration(deadline / 24)
        return WORDING.say(turn, "lines.within_deadline_needs", data=data, limit=turn.t(limit_en, limit_zh), count=r["num_gpus"], name=name,
                           took=turn.t(took_en, took_zh), mfu=f"{r['mfu']:.0%}", memory_count=option["count"]) + _as_sold(turn, args, r["num_gpus"])
    line = WORDING.say(turn, "lines.on_this_configuration", data=data, took=turn.t(took_en, took_zh), gpu_hours=number(r["gpu_hours"]), mfu=f"{r['mfu']:.0%}")
    quicker = _within_a_quarter(turn, args) if r["wall_clock_days"] > QUARTER_DAYS else ""
    return f"{line} {quicker}".rstrip()


def _within_a_quarter(turn: Turn, args: dict) -> str:
    """How many of the run's GPUs would finish it within QUARTER_DAYS, or "" when the tool cannot say."""
    faster = turn.call("estimate_training_time", {**args, "num_gpus": None, "deadline_days": QUARTER_DAYS})
    if not faster.ok:
        return ""
    n, name = faster.result["num_gpus"], plan.gpu_name(turn, args["gpu"])
    return WORDING.say(turn, "costs_phrases.within_a_quarter.to_finish_within_days_you", quarter_days=QUARTER_DAYS, count=number(n), name=name) + _as_sold(turn, args, n)


def _as_sold(turn: Turn, args: dict, needed: int) -> str:
    """"11× A100" is no configuration anyone sells: the next count that is (whole boards or servers), and its time."""
    gpu = turn.catalog.find_gpu(args["gpu"]) if args.get("gpu") else None
    sold = sold_count_from(gpu, needed) if gpu is not None else None
    if sold is None or sold == needed:
        return ""
    timed = turn.call("estimate_training_time", {**args, "num_gpus": sold, "deadline_days": None})
    if not timed.ok:
        return ""
    took_en, took_zh = _duration(timed.result["wall_clock_days"])
    servers = sold // SERVER_GPUS if sold > SERVER_GPUS and sold % SERVER_GPUS == 0 else 0
    in_servers = WORDING.say(turn, "lines.in_servers", servers=servers, per_server=SERVER_GPUS) if servers else ""
    return WORDING.say(turn, "lines.as_sold", sold=sold, in_servers=in_servers, took=turn.t(took_en, took_zh))


def per_token_first(answer: Callable[[Turn], str]) -> Callable[[Turn], str]:
    """A serving question that asks what a token costs on one card: the cost per token answers it, the speed
    behind it is in that answer; anything else goes to ``answer`` unchanged."""

    def route(turn: Turn) -> str:
        if token_price.applies(turn) and turn.model_reference() is not None:
            return token_price.answer(turn, plan.gpu_of(turn), plan.currency_of(turn))
        return answer(turn)

    return route
