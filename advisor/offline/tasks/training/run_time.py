"""The training-time answer: how long a run takes on the cards named (or how many cards finish it by a deadline), what
its GPU-hours cost at the market's tiers, whether it fits in memory first, and against the run before a follow-up
changed the card. plan.py reads the run (tokens, epochs, rent, defaults), estimate_training_time and rental_prices
work it out, render.py and the package text.yaml (section run_time) word it; a comparison of cards is answered by the
specs comparison or the speed ratio instead."""

from __future__ import annotations

import datetime as dt

from advisor.markdown import money, number, table, token_count
from advisor.offline.tasks.specs import compare
from advisor.offline.tasks.specs.compare_view import PEFT, TIMED_TRAINING, tool_method
from advisor.offline.tasks.tco import plan as tco_plan
from advisor.offline.tasks.tco import price_dates, rent_prices
from advisor.offline.tasks.training import plan, render, training_speed
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from knowledge.catalog import variant_family
from tools.cost.mfu import DEFAULT_GOODPUT, GOODPUT_SOURCE
from tools.recommend.configs import SERVER_GPUS, sold_count_from

WORDING = Wording("training", "run_time")
SAME_SPEED = 0.05  # runs within 5% of each other are "about the same": below the estimate's own precision


def training_time(turn: Turn) -> str:
    compared = compare.route(turn, default_task="full_finetune")  # "H100 or A100 to train 8B on 1T tokens?"
    if compared is not None:  # with "can we use half as many?": the per-GPU ratio and the verdict on it first, the options after
        return "\n\n".join([*training_speed.quoted_cut(turn, compare.options(turn)), compared])
    if plan.compares_speed(turn):  # "how much faster does B200 train than H100?": the cards, no run named
        return training_speed.answer(turn)
    s = turn.slots
    methods = set(s.frame.all("method"))
    method = next((m for m in PEFT if m in methods), "full")
    if methods & (plan.FULL_TRAINING | set(PEFT)):  # "pretrain a 13b", "LoRA": what the FLOPs count per token is
        s.mark("method")
    model = turn.model_reference()
    if model is None:
        return WORDING.say(turn, "training_time.which_model_or_how_many")
    tokens = plan.tokens_seen(turn)
    args = {"model": model, "gpu": tco_plan.gpu_of(turn), "currency": tco_plan.currency_of(turn)}
    tariff = plan.bill_tariff(turn, args["currency"])  # "and the power bill?": the run's energy at the published tariff
    args.update(
        tokens=tokens,
        num_gpus=s.gpu_count if s.gpu_count else None,
        deadline_days=s.deadline_hours / 24 if s.deadline_hours else None,
        price_per_gpu_hour=plan.hourly_price(turn, args["currency"], s.gpu_count or 1),
        electricity_price=tariff.price if tariff else tco_plan.in_currency(s.power_price, args["currency"]),
        mfu=s.mfu,
        method=method,
        goodput=DEFAULT_GOODPUT,
    )
    _assume(turn, WORDING.text("training.goodput", share=f"{DEFAULT_GOODPUT:.0%}", source=GOODPUT_SOURCE))
    data_read = plan.data_tokens(turn)[1]
    if data_read == "samples_assumed":  # the sample length is ours, not measured: said in the details with its date and basis
        turn.assume(*WORDING.both("lines.sample_length_assumed", length=number(plan.SAMPLE_TOKENS), date=plan.SAMPLE_TOKENS_DATE))
    if tokens is None and methods & plan.FINE_TUNING:  # a fine-tune reads its own data set, not a pre-training budget
        args["tokens"], data_read = plan.FINE_TUNE_TOKENS, "fine_tune"
        turn.assume(
            *WORDING.both("training_time.training_tokens_m_none_given", e6=number(plan.FINE_TUNE_TOKENS / 1e6)),
        )
    elif tokens is None:
        params = s.params or turn.catalog.model(model).params_b * 1e9
        args["tokens"], data_read = plan.CHINCHILLA_TOKENS_PER_PARAM * params, "chinchilla"
        turn.assume(
            *WORDING.both("training_time.training_tokens_b_chinchilla_20", tokens_billions=number(args['tokens'] / 1e9)),
        )
    if args["num_gpus"] is None and s.parallel_gpus:
        args["num_gpus"] = s.parallel_gpus
        layout = " × ".join(f"{name} {degree}" for name, degree in (("TP", s.tp), ("PP", s.pp), ("DP", s.dp)) if degree)
        turn.assume(*WORDING.both("training_time.gpus", parallel_gpus=s.parallel_gpus, layout=layout))
    if args["num_gpus"] is None and args["deadline_days"] is None:  # adapters are mostly trained on one card, full runs on a server
        args["num_gpus"] = 1 if method in PEFT else 8
        counted = WORDING.text("lines.one_gpu") if args["num_gpus"] == 1 else WORDING.text("lines.gpus", count=args["num_gpus"])
        turn.assume(*WORDING.both("lines.count_assumed", gpus=counted))
    outcome = turn.call("estimate_training_time", args)
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    cur = r["currency"]
    took_en, took_zh = render.duration(r["wall_clock_days"])
    market, tier_rows, dated, band = (None, [], [], None) if args["price_per_gpu_hour"] is not None else _run_at_market(turn, r)
    if not market and r["cost"] and args["price_per_gpu_hour"] is None:  # priced at the catalog's on-demand rate
        dated = price_dates.catalog_prices(r["gpu_id"], ["cloud_price"])
    compared = _against_before(turn, args, r)
    cost = (WORDING.say(turn, "lines.run_at_market", market=market) if market
            else WORDING.say(turn, "lines.run_rented", cost=money(r["cost"], cur)) if r["cost"] else "")
    power = WORDING.say(turn, "lines.run_electricity", cost=money(r["electricity_cost"], cur)) if r["electricity_cost"] is not None else ""
    verdict = WORDING.say(turn, "lines.run_verdict", took=turn.t(took_en, took_zh), count=r["num_gpus"], name=tco_plan.gpu_name(turn, r["gpu_id"]),
                          compared=compared, gpu_hours=number(r["gpu_hours"]), cost=cost, power=power, data=_data(turn, args["tokens"], data_read))
    if r["deadline_days"] and not r["gpus_derived_from_deadline"]:  # "can one card make it in time?": the answer to the question asked
        within = r["wall_clock_days"] <= r["deadline_days"]
        limit_en, limit_zh = render.duration(r["deadline_days"])
        verdict = WORDING.say(turn, "lines.meets_deadline" if within else "lines.misses_deadline", limit=turn.t(limit_en, limit_zh)) + " " + verdict
    verdict = _asked_of_run(turn, r, tariff, band or ((r["cost"], r["cost"]) if r["cost"] else None)) + verdict
    if r["gpus_derived_from_deadline"]:
        verdict = WORDING.say(turn, "training_time.finish_within_days_days", num_gpus=r['num_gpus'], name=tco_plan.gpu_name(turn, r['gpu_id']), deadline_days=number(r['deadline_days']), wall_clock_days=number(r['wall_clock_days'])) + _as_sold(turn, args, r["num_gpus"]) + "\n\n" + verdict
    # with the market's tiers priced, the catalog's single on-demand figure would be a second, different cost
    shown = [item for item in r["items"] if not (tier_rows and item["key"] == "cost")]
    rows = turn.item_rows(shown) + tier_rows
    turn.assume(*WORDING.both("lines.mfu", mfu=f"{r['mfu']:.0%}", source=WORDING.text("lines.mfu_given" if r["mfu_source"] == "user" else "lines.mfu_default")))
    warnings = [f"⚠️ {turn.text(w)}" for w in r["warnings"]]
    task = method if method in PEFT else ("pretrain" if "pretrain" in methods else "full_finetune")
    no_fit = _memory_plan(turn, model, task, r["gpu_id"], r["num_gpus"])
    if isinstance(no_fit, dict):  # the run cannot fit the stated cards: that verdict leads, the time is the compute alone
        verdict = render.fit_first_lead(turn, task, r["num_gpus"], no_fit) + "\n\n" + verdict
    _memory_variant(turn, r["gpu_id"])
    warnings += filter(None, [render.china_status(turn, r["gpu_id"])])
    if r["wall_clock_days"] > plan.QUARTER_DAYS and not r["gpus_derived_from_deadline"]:
        warnings[:0] = [f"⏱️ {line}" for line in [_within_a_quarter(turn, args)] if line]
    turn.cite("parallelism", WORDING.say(turn, "training_time.parallelism_and_scaling"))
    warnings += price_dates.stale_note(turn, dated)
    return "\n\n".join([verdict, table([WORDING.say(turn, "training_time.item"), WORDING.say(turn, "training_time.value"), WORDING.say(turn, "training_time.formula")], rows), *warnings])


def _asked_of_run(turn: Turn, r: dict, tariff, cost: tuple[float, float] | None) -> str:
    """What a follow-up asks of the run just timed, before its time: "and the power bill?" gets the run's electricity
    (its energy × the price per kWh, the published tariff unless one was stated); a budget stated gets the run's cost held
    against it (within it, or over by how much). "" when it asks neither."""
    said = []
    cur = r["currency"]
    if plan.asks_run_bill(turn) and r["electricity_cost"] is not None and r["energy_kwh"] is not None:
        per_kwh = r["electricity_cost"] / r["energy_kwh"] if r["energy_kwh"] else 0
        basis = WORDING.say(turn, "lines.run_bill.tariff", name=turn.text(tariff.name), date=tariff.date) if tariff else WORDING.say(turn, "lines.run_bill.stated")
        said.append(WORDING.say(turn, "lines.run_bill.lead", bill=money(r["electricity_cost"], cur), energy=number(r["energy_kwh"]),
                                per_kwh=money(per_kwh, cur), basis=basis))  # fmt: skip
        if tariff:
            turn.cite(f"tariff:{tariff.region}:{tariff.currency}", tariff.source.title, urls=[tariff.source.url], citation=f"{tariff.source.title} ({tariff.date})")
    budget = tco_plan.in_currency(turn.slots.budget, cur)
    if budget is not None and cost is not None:
        turn.slots.mark("budget")
        low, high = cost
        where = plan.over_budget(low, high, budget)
        said.append(WORDING.say(turn, f"lines.run_budget.{where}", budget=money(budget, cur), cost=rent_prices.band(low, high, cur),
                                over=rent_prices.band(max(low - budget, 0), high - budget, cur), spare=money(budget - high, cur), top=money(high - budget, cur)))  # fmt: skip
    return "".join(line + "\n\n" for line in said)


def _run_at_market(turn: Turn, r: dict) -> tuple[str | None, list[list[str]], list[tuple[Text, str]], tuple[float, float] | None]:
    """A run's GPU-hours priced at the tier a renter of that size pays (specialist clouds; the China market for a
    China buyer): that one tier in the headline, and every tier's figure for the same hours as table rows, so the
    first screen and the table show the same numbers, the dated offers behind them, and that tier's cost band.
    (None, [], [], None) when no tier has a fair band for the GPU."""
    currency = r["currency"]
    china = turn.slots.region == "cn" or currency == "CNY"
    outcome = turn.call("rental_prices", {"gpu": r["gpu_id"], "currency": currency, "china": china, "gpus": r["num_gpus"],
                                          "gpu_hours": r["gpu_hours"], "today": dt.date.today().isoformat()})  # fmt: skip
    if not outcome.ok or outcome.result["fair_tier"] is None:
        return None, [], [], None
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
    dated = [(price_dates.AGES.text("offer", tier=tier["name"], offer=offer["offer"]), offer["date"]) for tier in priced for offer in tier["offers"]]
    return headline, rows, dated, (fair["cost_low"], fair["cost_high"])


def _data(turn: Turn, tokens: float, read: str | None) -> str:
    """The data the time is for, as the lead says it: the tokens, how a sample count became them, or the default assumed."""
    said = turn.ask.samples
    samples = {"samples": number(said.count), "length": number(said.length_tokens or plan.SAMPLE_TOKENS)} if said else {}
    key = read if read in ("samples", "samples_assumed", "fine_tune", "chinchilla") else "given"
    return WORDING.say(turn, f"lines.data.{key}", tokens=token_count(tokens), per_param=plan.CHINCHILLA_TOKENS_PER_PARAM, **samples)


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
    took_en, took_zh = render.duration(then["wall_clock_days"])
    values = {"before": WORDING.say(turn, "lines.cards", count=then["num_gpus"], name=tco_plan.gpu_name(turn, then["gpu_id"])), "took": turn.t(took_en, took_zh)}
    if abs(ratio - 1) < SAME_SPEED:
        return turn.t(", ", "，") + WORDING.say(turn, "training.against_before.same", **values)
    key = "faster" if ratio > 1 else "slower"
    return turn.t(", ", "，") + WORDING.say(turn, f"training.against_before.{key}", ratio=number(max(ratio, 1 / ratio)), **values)


def time_on(turn: Turn, model: str, task: str, option: dict) -> str:
    """A training recommendation made for a data size ("how many H100s to pretrain 13B on 1T tokens"): memory alone
    picks the fewest cards that hold the model, so say how long those take and how many would finish in time."""
    if task not in TIMED_TRAINING or turn.slots.tokens is None:
        return ""
    tokens, deadline = plan.tokens_seen(turn), turn.slots.deadline_hours
    args = {"model": model, "gpu": option["gpu_id"], "tokens": tokens, "method": tool_method(task), "mfu": turn.slots.mfu, "goodput": DEFAULT_GOODPUT,
            "currency": tco_plan.currency_of(turn), "num_gpus": None if deadline else option["count"], "deadline_days": deadline / 24 if deadline else None}  # fmt: skip
    timed = turn.call("estimate_training_time", args)
    if not timed.ok:
        return ""
    r, name = timed.result, tco_plan.gpu_name(turn, option["gpu_id"])
    took_en, took_zh = render.duration(r["wall_clock_days"])
    data = token_count(tokens)
    if deadline:
        limit_en, limit_zh = render.duration(deadline / 24)
        return WORDING.say(turn, "lines.within_deadline_needs", data=data, limit=turn.t(limit_en, limit_zh), count=r["num_gpus"], name=name,
                           took=turn.t(took_en, took_zh), mfu=f"{r['mfu']:.0%}", memory_count=option["count"]) + _as_sold(turn, args, r["num_gpus"])
    line = WORDING.say(turn, "lines.on_this_configuration", data=data, took=turn.t(took_en, took_zh), gpu_hours=number(r["gpu_hours"]), mfu=f"{r['mfu']:.0%}")
    quicker = _within_a_quarter(turn, args) if r["wall_clock_days"] > plan.QUARTER_DAYS else ""
    return f"{line} {quicker}".rstrip()


def _within_a_quarter(turn: Turn, args: dict) -> str:
    """How many of the run's GPUs would finish it within plan.QUARTER_DAYS, or "" when the tool cannot say."""
    faster = turn.call("estimate_training_time", {**args, "num_gpus": None, "deadline_days": plan.QUARTER_DAYS})
    if not faster.ok:
        return ""
    n, name = faster.result["num_gpus"], tco_plan.gpu_name(turn, args["gpu"])
    return WORDING.say(turn, "within_a_quarter.to_finish_within_days_you", quarter_days=plan.QUARTER_DAYS, count=number(n), name=name) + _as_sold(turn, args, n)


def _as_sold(turn: Turn, args: dict, needed: int) -> str:
    """"11× A100" is no configuration anyone sells: the next count that is (whole boards or servers), and its time."""
    gpu = turn.catalog.find_gpu(args["gpu"]) if args.get("gpu") else None
    sold = sold_count_from(gpu, needed) if gpu is not None else None
    if sold is None or sold == needed:
        return ""
    timed = turn.call("estimate_training_time", {**args, "num_gpus": sold, "deadline_days": None})
    if not timed.ok:
        return ""
    took_en, took_zh = render.duration(timed.result["wall_clock_days"])
    servers = sold // SERVER_GPUS if sold > SERVER_GPUS and sold % SERVER_GPUS == 0 else 0
    in_servers = WORDING.say(turn, "lines.in_servers", servers=servers, per_server=SERVER_GPUS) if servers else ""
    return WORDING.say(turn, "lines.as_sold", sold=sold, in_servers=in_servers, took=turn.t(took_en, took_zh))
