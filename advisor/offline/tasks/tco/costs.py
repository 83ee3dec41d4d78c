"""Rent-vs-buy (TCO) and training-time answers."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable

from advisor.markdown import money, number, table, token_count
from advisor.nlu.frame import Frame, Money, SlotValue
from advisor.offline.tasks.recommend import price_view
from advisor.offline.tasks.specs import compare
from advisor.offline.tasks.dialogue import followup
from advisor.offline.tasks.tco import api_bill, lessor, payback, price_dates, rent_prices, rentals, token_price
from advisor.offline.tasks.tco.tariffs import region_line
from advisor.offline.tasks.training import plan as training_plan
from advisor.offline.tasks.training import render as training_render
from advisor.offline.tasks.training import training_speed
from advisor.offline.tasks.specs.compare_view import PEFT, TIMED_TRAINING, tool_method
from advisor.offline.wording import Wording
from advisor.offline.slots import CALCULATED_CURRENCIES, Slots
from advisor.offline.turn import Turn
from knowledge.answer_text import phrase
from knowledge.bilingual import Text
from knowledge.catalog import variant_family
from tools.cost.mfu import DEFAULT_GOODPUT, GOODPUT_SOURCE
from tools.cost.money import DEFAULT_USD_TO_CNY, convert
from tools.gpu_specs import CHINA_BUYABLE
from advisor.labels import CHINA_STATUS
from tools.cost.tco import DERIVED
from tools.cost.tco_model import HOURS_PER_MONTH
from tools.recommend.configs import SERVER_GPUS, sold_count_from

WORDING = Wording("tco", "costs")
DEFAULT_GPU = "h100-sxm"
QUARTER_DAYS = 90
CHINCHILLA_TOKENS_PER_PARAM = 20  # Hoffmann et al. 2022 compute-optimal ratio
FULL_TRAINING = {"pretrain", "train", "full_finetune", "finetune"}
FINE_TUNING = {"full_finetune", "finetune", *PEFT}
FINE_TUNE_TOKENS = 1e8  # a round amount to scale from when a fine-tune's data set is not given
SAME_SPEED = 0.05  # runs within 5% of each other are "about the same": below the estimate's own precision


def _currency(turn: Turn) -> str:
    for amount in (turn.slots.hourly_price, turn.slots.power_price, turn.slots.server_price, turn.slots.budget):
        if amount is not None:
            return amount.currency
    return turn.currency


def _in(amount: Money | None, currency: str) -> float | None:
    return None if amount is None else convert(amount.amount, amount.currency, currency, DEFAULT_USD_TO_CNY)


PERIOD_HOURS = {"month": HOURS_PER_MONTH, "year": 12 * HOURS_PER_MONTH}


def _hourly_price(turn: Turn, currency: str, gpus: int) -> float | None:
    """The rental price per GPU-hour; a monthly or yearly bill ("over 400k a month") is spread over its
    hours and, unless it was said per card, over the GPUs, and the answer says so."""
    price = turn.slots.hourly_price
    amount = _in(price, currency)
    if price is None or amount is None or price.per not in PERIOD_HOURS:
        return amount
    cards = 1 if turn.ask.price_per_card else gpus
    hourly = amount / PERIOD_HOURS[price.per] / cards
    period = WORDING.text("costs_phrases.hourly_price.a_month" if price.per == "month" else "costs_phrases.hourly_price.a_year")
    whole = WORDING.text("costs_phrases.hourly_price.for_gpus", cards=cards) if cards > 1 else Text(en="", zh="")
    turn.assume(*WORDING.both("lines.bill_per_gpu_hour", amount=money(amount, currency), period=period, whole=whole,
                              hourly=money(hourly, currency), hours=f"{PERIOD_HOURS[price.per]:g}"))
    return hourly


def _name(turn: Turn, gpu_id: str | None) -> str:
    gpu = turn.catalog.find_gpu(gpu_id) if gpu_id else None
    return gpu.name if gpu else str(gpu_id)


def _gpu(turn: Turn) -> str:
    if turn.slots.gpus:
        return turn.slots.gpus[0]
    name = _name(turn, DEFAULT_GPU)
    other = turn.slots.frame.surface("other_gpu")
    if other:  # "my rtx 3080": named, but the catalog has no figures for it
        turn.slots.mark("other_gpu")
        turn.assume(*WORDING.both("costs_phrases.gpu.gpu_since_is_not_in", name=name, other=other))
    else:
        turn.assume(*WORDING.both("costs_phrases.gpu.gpu_none_named", name=name))
    return DEFAULT_GPU


def _duration(days: float) -> tuple[str, str]:
    """A wall-clock time in the unit it is read in: "≈ 15 hours", not "≈ 0 days"."""
    if days < 1:
        return WORDING.both("costs_phrases.duration.hours", hours=number(days * 24))
    return WORDING.both("costs_phrases.duration.days", days=number(days))


def _cost_of_a_run(turn: Turn) -> bool:
    """"What would that run cost at $2.2/hr", "and the electricity for that run?": the cost of a training run already described, not
    owning against renting (which needs a server price or a span of years the user did not give)."""
    f = turn.slots.frame
    return f.has("training_tokens") and not any(f.has(slot) for slot in ("server_price", "budget", "horizon", "utilisation"))


def tco(turn: Turn) -> str:
    if api_bill.applies(turn):  # "we pay an API N tokens a day: self-host cheaper?": the bill against GPUs serving it
        return api_bill.answer(turn, _gpu(turn), _currency(turn))
    owns_cards = _owned(turn, turn.slots.server_price)  # "we already have 16 A100s": keep or rent, not the rental market
    lets_out = turn.ask.rents_out  # "buy servers and rent them out": the rent is the lessor's revenue, not a price to judge
    if not owns_cards and not lets_out and rentals.applies(turn):
        return rentals.answer(turn)
    if not owns_cards and not lets_out and rent_prices.applies(turn):  # "is $4.50/h fair for an H100?": the rental market, nothing bought
        return rent_prices.answer(turn)
    if _cost_of_a_run(turn):
        return training_time(turn)
    if compare.asks_cost_per_token(turn):  # "cost per million tokens, L40S or A100, for an 8B?": both cards served and priced
        compared = compare.route(turn)
        if compared is not None:
            return compared
    if token_price.applies(turn):  # "cost per million tokens?" on one card: served at full load and priced per rental tier
        return token_price.answer(turn, _gpu(turn), _currency(turn))
    running = _running_costs(turn)  # before anything reads the purchase or the rent: those amounts are not them
    ratio = _ratio_claim(turn)  # before the count is read: the "3" of "3x more expensive" is no number of GPUs
    s = turn.slots
    currency = _currency(turn)
    count = s.gpu_count or 8
    per_server = s.gpus_per_server or min(count, 8)
    servers = s.servers or max(1, math.ceil(count / per_server))
    purchase, rent_said = _purchase_and_rent(turn)
    server_price = _in(purchase, currency)
    yours: list[Text] = []
    if server_price is not None:
        yours.append(phrase("tco.yours.price", amount=money(server_price, currency)))
    if server_price is not None and purchase.per == "all" and servers > 1:  # "2.8M for the two of them"
        turn.assume(
            *WORDING.both("costs_phrases.tco.is_the_price_of_all", total=money(server_price, currency), servers=servers, each=money(server_price / servers, currency)),
        )
        server_price /= servers
    budget = _in(s.budget, currency)
    if server_price is None and budget is not None:
        turn.assume(*WORDING.both("costs_phrases.tco.is_the_purchase_price_of", budget=money(budget, currency)))
        yours.append(phrase("tco.yours.price", amount=money(budget, currency)))
        server_price = budget / servers
    spans, state_horizon = _spans_beside_commitments(turn)
    claimed_years, horizon_years = payback.claim_and_horizon(turn.ask.payback_word_starts, spans, state_horizon)
    bounds = _horizon_bounds(turn, horizon_years)
    if horizon_years is not None:
        yours.append(phrase("tco.yours.horizon_range", low=number(bounds[0]), high=number(bounds[1]), years=number(horizon_years))
                     if bounds else phrase("tco.yours.horizon", years=number(horizon_years)))  # fmt: skip
    rent, rent_words = _rent(rent_said, currency, count)
    yours += rent_words
    running_args, running_words = _running_args(running, currency)
    yours += running_words
    if s.utilisation is not None:  # every figure the user gave is echoed where the verdict is read, not only in the inputs
        yours.append(WORDING.text("yours.utilisation", utilisation=number(s.utilisation * 100)))
    if s.power_price is not None and _in(s.power_price, currency) is not None:
        yours.append(WORDING.text("yours.electricity", amount=money(_in(s.power_price, currency), currency)))
    if s.discount_pct is not None:
        yours.append(WORDING.text("yours.discount", discount=number(s.discount_pct)))
    committed = _committed(turn)
    if committed:
        yours.append(phrase("tco.yours.committed"))
    owned = _owned(turn, server_price)
    outcome = turn.call(
        "compute_tco",
        {
            "owned": owned,
            "gpu": _gpu(turn),
            "gpus_per_server": per_server,
            "servers": servers,
            "server_price": server_price,
            "server_price_each": True if server_price is not None and (purchase is None or purchase.per == "all" or servers == 1) else None,
            "lifetime_years": horizon_years,
            "claimed_payback_months": claimed_years * 12 if claimed_years else None,
            "claimed_cloud_ratio": ratio,
            "today": dt.date.today().isoformat(),
            "region": s.region,
            "site_region": turn.ask.site_region or ("cn" if turn.china_buyer else None),
            "rents_out": lets_out,
            "utilisation_pct": s.utilisation * 100 if s.utilisation is not None else None,
            **rent,
            "cloud_committed": committed,
            # with no rent given: a reservation at the hyperscaler's committed rate for its term, else the tier a buyer of
            # this size rents at; on-demand stays the upper bound
            "rent_tier": _committed_tier(horizon_years, _china(turn, currency)) if committed else "auto",
            "cloud_discount_pct": s.discount_pct,
            # a price the user stated is the purchase as quoted: nothing is added on top of it
            "network_overhead_pct": 0 if server_price is not None else None,
            "lifetime_bounds_years": bounds,
            "electricity_price": _in(s.power_price, currency),
            **running_args,
            "currency": currency,
        },
    )
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
        yours.append(phrase("tco.yours.price_total", amount=money(total["value"], r["currency"]), servers=servers,
                            each=money(total["value"] / servers, r["currency"])))  # fmt: skip
    asked_line = payback.asked_for_line(turn)
    if asked_line:  # "what's the electricity?", "and the maintenance?" after the comparison: that line, not the whole table again
        answered = payback.line(turn, r, asked_line, _inputs)
        whose = region_line(turn, r) if asked_line in ("energy", "colocation") else ""  # whose tariff, or that none was sourced
        return answered + ("\n\n" + whose if whose else "")
    if r.get("lessor"):  # cards bought, or already owned, to be let out: the lessor's margin, not keep-or-rent for one's own use
        return lessor.answer(turn, r, _inputs(turn, r["assumptions"], r["currency"]))
    if owned:
        return _keep_or_rent(turn, r)
    cur = r["currency"]
    years = r["horizon_months"] / 12
    verdict = turn.text(_lead(r)) + turn.t(" ", "") + turn.text(_flip(r)) + turn.t(" ", "") + turn.text(_totals(r))
    if r["payback_months"] is not None and not turn.ask.speaks_of_payback and not turn.reading.follow_up:
        # "rent or buy?": the verdict and its monthly figure first; a payback asked for ("how long to pay back?") leads with the months
        verdict = _verdict_first(turn, r) + " " + verdict  # a space in both languages: two bold runs must not touch
    said = turn.text(phrase("tco.yours.title")) + turn.t(": ", "：") + turn.t("; ", "；").join(
        turn.text(line) for line in (yours or [phrase("tco.yours.none")])
    )
    rows = [
        [WORDING.say(turn, "costs_phrases.tco.own_amortised"), money(r["own_monthly_cost"], cur), money(r["own_total"], cur)],
        [WORDING.say(turn, "costs_phrases.tco.rent_cloud"), money(r["cloud_monthly_cost"], cur), money(r["cloud_total"], cur)],
    ]
    claim = payback.claim_check(turn, r) + [line for line in [payback.ratio_verdict(turn, r)] if line]
    parts = [
        *filter(None, [_renting_side(turn, r)]),
        *filter(None, [_against_earlier(turn, outcome.args, r)]),
        *claim,
        verdict,
        *filter(None, [payback.tier_summary(turn, r)]),
        said,  # the figures the user gave stay on the first screen, before the assumptions about the market and the site
        *filter(None, [_estimated_price(turn, r)]),
        *filter(None, [_rent_trend(turn, r), region_line(turn, r)]),
        table([WORDING.say(turn, "costs_phrases.tco.path"), WORDING.say(turn, "costs_phrases.tco.per_month"), WORDING.say(turn, "costs_phrases.tco.total_over_y", years=number(years))], rows),
        WORDING.say(turn, "capex_line", capex=money(r["capex"], cur), per_hour=money(r["own_cost_per_used_gpu_hour"], cur)),
        *payback.tier_paybacks(turn, r),
        *payback.stale_note(turn, r),
        "**" + WORDING.say(turn, "costs_phrases.tco.what_moves_the_answer_most") + "**\n" + "\n".join(f"- {turn.text(x)}" for x in r["sensitivities"]),
        f"⚡ {turn.text(r['power_reminder'])}",
    ]
    parts.append(_inputs(turn, r["assumptions"], r["currency"]))
    turn.cite("rent-vs-buy", WORDING.say(turn, "costs_phrases.tco.rent_vs_buy"))
    return "\n\n".join(parts)




def _ratio_claim(turn: Turn) -> float | None:
    """A quoted "cloud costs N× owning" in this message or earlier in the thread (a follow-up re-checks it); a count
    of GPUs the reader took from its number ("3x") is dropped."""
    claim = turn.ask.ratio_claim
    if claim is None:
        return None

    def from_claim(v: SlotValue) -> bool:
        return v.start == claim.start if v.start >= 0 else v.surface.strip().casefold() == claim.written.strip()

    frame = turn.slots.frame
    if any(from_claim(v) for v in frame.slots.get("gpu_count", [])):
        turn.slots = Slots(Frame({slot: [v for v in values if not (slot == "gpu_count" and from_claim(v))] for slot, values in frame.slots.items()}))
    return claim.value


def _running_costs(turn: Turn) -> dict[str, tuple[SlotValue, bool]]:
    """Colocation and staff amounts the reader took for a purchase, a budget or a rent (``Ask.running_costs``): taken
    out of those slots (``turn.slots`` is rebuilt without them) and returned by role ('colocation', 'staff') with
    whether a colocation rate is per kW-month."""
    frame = turn.slots.frame
    found: dict[str, tuple[SlotValue, bool]] = {}
    for said in turn.ask.running_costs:
        value = next((v for v in frame.slots.get(said.slot, []) if v.start == said.start and v.surface == said.surface), None)
        if value is not None:
            found[said.role] = (value, said.per_kw)
    if found:
        taken = {id(value) for value, _ in found.values()}
        turn.slots = Slots(Frame({slot: [v for v in values if id(v) not in taken] for slot, values in frame.slots.items()}))
    return found


def _running_args(found: dict[str, tuple[SlotValue, bool]], currency: str) -> tuple[dict, list[Text]]:
    """The running costs stated, as the comparison's inputs, and the words that echo them."""
    args: dict = {}
    words: list[Text] = []
    if "colocation" in found:
        value, per_kw = found["colocation"]
        amount = _in(value.value, currency)
        if per_kw:
            args["colo_price_per_kw_month"] = amount
            words.append(WORDING.text("yours.colo_per_kw", amount=money(amount, currency)))
        else:  # a bill per rack or for the whole space
            args["colo_per_month"] = amount
            words.append(WORDING.text("yours.colo_bill", amount=money(amount, currency)))
    if "staff" in found:
        value, _ = found["staff"]
        amount = _in(value.value, currency)
        if value.value.per == "month":
            args["staff_cost_per_month"] = amount
            words.append(WORDING.text("yours.staff", amount=money(amount, currency)))
        else:  # a salary said once or per year is a year's pay
            args["staff_cost_per_month"] = amount / 12
            words.append(WORDING.text("yours.staff_yearly", amount=money(amount, currency), monthly=money(amount / 12, currency)))
    return args, words


def _owned(turn: Turn, server_price: float | None) -> bool:
    """The cards are already there ("we already own 16 A100s"): no purchase is weighed, unless
    a price to buy was stated too (then the question is a purchase)."""
    return server_price is None and turn.ask.owns_hardware


def _keep_or_rent(turn: Turn, r: dict) -> str:
    """Owned GPUs: running cost against the rent of the same hours at each tier, the purchase left out as sunk,
    with replacing them by new servers as the third option."""
    k, cur = r["keep_or_rent"], r["currency"]
    use = _assumed(r, "utilisation_pct")
    what = f"{r['total_gpus']}× {r['gpu_name'] or 'GPU'}"
    running = k["running_cost_per_month"]
    cheapest = min(k["tiers"], key=lambda row: row["monthly_rent"])
    values = {"what": what, "running": money(running, cur), "cheapest": money(cheapest["monthly_rent"], cur), "tier": turn.text(cheapest["tier_name"]),
              "rate": money(cheapest["price_per_gpu_hour"], cur), "utilisation": number(use), "saves": money(abs(cheapest["keeping_saves"]), cur)}  # fmt: skip
    lead = WORDING.say(turn, "owned.keep" if k["keep"] else "owned.rent", **values)
    resale_pct = _assumed(r, "residual_value_pct")
    sunk = WORDING.say(turn, "owned.sunk", resale=money(k["resale_now"], cur), resale_pct=number(resale_pct), utilisation=number(use),
                       per_hour=money(k["running_cost_per_used_gpu_hour"], cur))  # fmt: skip
    full_rent = cheapest["price_per_gpu_hour"] * r["total_gpus"] * HOURS_PER_MONTH
    break_even = running / full_rent * 100 if full_rent else math.inf
    flip = (WORDING.say(turn, "owned.flip", running=money(running, cur), tier=turn.text(cheapest["tier_name"]), use=number(break_even))
            if break_even <= 100 else WORDING.say(turn, "owned.flip_never", tier=turn.text(cheapest["tier_name"])))  # fmt: skip

    def against(amount: float) -> str:
        return WORDING.say(turn, "owned.table.more" if amount > 0 else "owned.table.less", amount=money(abs(amount), cur))

    rows = [[WORDING.say(turn, "owned.table.keep"), money(running, cur), "—"]]
    rows += [[WORDING.say(turn, "owned.table.rent", tier=turn.text(row["tier_name"]), rate=money(row["price_per_gpu_hour"], cur)),
              money(row["monthly_rent"], cur), against(row["monthly_rent"] - running)] for row in k["tiers"]]  # fmt: skip
    rows.append([WORDING.say(turn, "owned.table.replace", years=number(r["horizon_months"] / 12)), money(r["own_monthly_cost"], cur),
                 against(r["own_monthly_cost"] - running)])  # fmt: skip
    headers = [WORDING.say(turn, f"owned.table.{key}") for key in ("path", "monthly", "against")]
    running_items = [i for i in r["items"] if i["key"] in payback.RUNNING_COSTS]
    details = table([WORDING.say(turn, "costs_phrases.keep_or_rent.item"), WORDING.say(turn, "costs_phrases.keep_or_rent.value"), WORDING.say(turn, "costs_phrases.keep_or_rent.formula")], turn.item_rows(running_items))
    turn.cite("rent-vs-buy", WORDING.say(turn, "costs_phrases.keep_or_rent.rent_vs_buy"))
    return "\n\n".join([lead, sunk, flip, table(headers, rows), details, *payback.stale_note(turn, r), _inputs(turn, r["assumptions"], cur)])


def _earlier_args(turn: Turn, args: dict) -> dict | None:
    """The comparison as it stood before this follow-up: this one's inputs with the values the follow-up changed put
    back. None when nothing it changed is an input of the comparison."""
    before = Slots(turn.reading.before)
    earlier = dict(args)
    said_before = turn.ask.opened_earlier and turn.ask.billing_said_earlier
    if turn.ask.committed_billing and not said_before:  # "what if we go 3-year reserved?": the rent was on demand before
        earlier.update(cloud_committed=False, rent_tier="auto")
    for change in followup.changes(turn):
        if change.slot == "utilisation":
            earlier["utilisation_pct"] = before.utilisation * 100 if before.utilisation is not None else None
        elif change.slot == "horizon":
            earlier["lifetime_years"] = before.horizon_years
            if turn.ask.committed_billing:
                earlier["rent_tier"] = _committed_tier(before.horizon_years, _china(turn, args["currency"])) if said_before else "auto"
        elif change.slot == "electricity_price":
            earlier["electricity_price"] = _in(before.power_price, args["currency"])
        elif change.slot == "discount":
            earlier["cloud_discount_pct"] = before.discount_pct
        elif change.slot == "gpu" and before.gpus:
            earlier["gpu"] = before.gpus[0]
    earlier = {key: value for key, value in earlier.items() if value is not None}
    return earlier if earlier != {key: value for key, value in args.items() if value is not None} else None


def _against_earlier(turn: Turn, args: dict, r: dict) -> str:
    """A follow-up that changed an input ("and at 40%?", "3-year reserved?"): the new payback and verdict against the
    ones before, first, so the reader need not compare two answers."""
    if not turn.reading.follow_up:
        return ""
    earlier = _earlier_args(turn, args)
    if earlier is None:
        return ""
    then = turn.call("compute_tco", earlier)
    if not then.ok:
        return ""
    old = then.result

    def months(value: float | None) -> str:
        return number(value) if value is not None else WORDING.say(turn, "change.never")

    verdict = WORDING.say(turn, f"change.verdict.{r['verdict']}")
    same = old["verdict"] == r["verdict"]
    if any(change.slot == "utilisation" for change in followup.changes(turn)):  # "and if we only use it 40% of the time?"
        return _use_changed(turn, old, r)
    # "and at 40%?" against a lease billed every hour: the rent did not move, and the reader is told why
    billed = WORDING.say(turn, "change.billed") if r["cloud_billing"] != "used_hours" and old["cloud_monthly_cost"] == r["cloud_monthly_cost"] else ""
    return WORDING.say(turn, "change.lead", before=months(old["payback_months"]), now=months(r["payback_months"]),
                       verdict=WORDING.say(turn, "change.same", verdict=verdict) if same else
                       WORDING.say(turn, "change.flipped", old=WORDING.say(turn, f"change.verdict.{old['verdict']}"), verdict=verdict),
                       years=number(r["horizon_months"] / 12), monthly_before=money(old["cloud_monthly_cost"], old["currency"]),
                       monthly_now=money(r["cloud_monthly_cost"], r["currency"])) + turn.t(" ", "") + billed  # fmt: skip


def _use_changed(turn: Turn, old: dict, r: dict) -> str:
    """A follow-up that changed how busy the GPUs are: owning's cost per GPU-hour actually used, before and now, against
    renting only the hours used (the cheapest pay-as-you-go tier), then the payback; a payback that did not move says
    in one line why (a lease or a reservation is paid for every hour, used or not)."""
    cur = r["currency"]
    use_now, use_before = _assumed(r, "utilisation_pct"), _assumed(old, "utilisation_pct")
    on_demand = [t for t in r["tier_paybacks"] if not t["billed_every_hour"]]
    if on_demand:
        cheapest = min(on_demand, key=lambda t: t["price_per_gpu_hour"])
        rate, tier = cheapest["price_per_gpu_hour"], turn.text(Text.model_validate(cheapest["tier_name"]))
    elif r["cloud_billing"] == "used_hours":
        rate, tier = _assumed(r, "cloud_price_per_gpu_hour"), WORDING.say(turn, "change.use.your_rate")
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
                                    verdict=WORDING.say(turn, "change.flipped", old=WORDING.say(turn, f"change.verdict.{old['verdict']}"), verdict=verdict)
                                    if flipped else WORDING.say(turn, "change.same", verdict=verdict))  # fmt: skip
    else:
        payback_words = WORDING.say(turn, "change.use.payback_still", months=number(now) if now is not None else WORDING.say(turn, "change.never"))
    return per_hour + turn.t(" ", "") + payback_words


def _missing_price(turn: Turn, error: dict, gpu_id: str, currency: str, gpus: int, horizon_years: float | None) -> str:
    """The card lacks a server price or a rent: say which figure is missing and still answer the side that is known
    (the rent at market tiers for the GPUs, period and utilisation asked)."""
    name = _name(turn, gpu_id)
    examples = WORDING.entry("missing.examples")
    if "server_price" not in (error.get("suggestions") or []):  # the rent is what is missing
        if _china(turn, currency):  # no mainland price: no US rate stands in for it, and what can be rented there instead
            return _china_rent_missing(turn, gpu_id, name, currency, examples["rent"][currency])
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


def _estimated_price(turn: Turn, r: dict) -> str:
    """The purchase priced from dated anchors (no catalog card price): the range, its basis and date, and to get a quote."""
    e = r.get("server_price_estimate")
    if not e:
        return ""
    cur = r["currency"]
    return WORDING.say(turn, "estimated_price", range=price_view.range_text(e["low"], e["high"], cur), mid=money((e["low"] + e["high"]) / 2, cur),
                       derivation=turn.text(e["derivation"]), date=e["date"])  # fmt: skip


def _china_rent_missing(turn: Turn, gpu_id: str, name: str, currency: str, example: str) -> str:
    """A China buyer's rent-or-buy of a card with no mainland rental price: say so, price the purchase side, and list
    the cards that can be rented in China at dated prices."""
    parts = [WORDING.say(turn, "missing.china_rent", gpu=name, example=example)]
    bought = price_view.price_lines(turn, [gpu_id])
    if bought:
        parts.append(WORDING.say(turn, "missing.china_buy") + " " + bought)
    outcome = turn.call("rental_prices", {"gpu": gpu_id, "currency": currency, "china": True, "today": dt.date.today().isoformat()})
    others = outcome.result["china_alternatives"] if outcome.ok else []
    if others:
        rows = [WORDING.say(turn, "missing.china_alternative", gpu=o["gpu_name"], low=money(o["low"], currency), high=money(o["high"], currency),
                            source=o["source_title"] or "—", date=o["date"]) for o in others]  # fmt: skip
        parts.append(WORDING.say(turn, "missing.china_alternatives") + "\n" + "\n".join(f"- {row}" for row in rows))
        for o in others:
            if o["source_url"]:
                turn.cite(f"china-rent:{o['source_url']}", o["source_title"] or o["gpu_name"], urls=[o["source_url"]])  # one line per page
    return "\n\n".join(parts)


THREE_YEAR_TERM = 3  # a reservation of three years or more is priced at the 3-year commitment rate


def _committed_tier(horizon_years: float | None, china: bool) -> str:
    """The committed tier a reservation is priced at: three years when the servers are kept that long, else one. A
    China buyer's yearly package is a China lease, already billed for every hour: the China tier ("auto") prices it."""
    if china:
        return "auto"
    return "hyperscaler_3yr" if (horizon_years or 0) >= THREE_YEAR_TERM else "hyperscaler_1yr"


def _china(turn: Turn, currency: str) -> bool:
    return currency == "CNY" or turn.slots.region == "cn"


def _committed(turn: Turn) -> bool:
    """Reserved or committed capacity ("1yr commit", a yearly package), said anywhere in the question: billed every hour."""
    return turn.ask.committed_billing


def _spans_beside_commitments(turn: Turn) -> tuple[list[SlotValue], float | None]:
    """This message's spans of time that are not a commitment's term, and the conversation's horizon without one:
    "1yr commit" prices the rent; how long the servers are kept is another matter (the default life when unsaid).
    Later in a conversation the reader's rule holds instead: a longer commitment lengthens the comparison said before."""
    spans = turn.reading.frame.slots.get("horizon", [])
    if turn.ask.thread_messages > 1:
        return spans, turn.slots.horizon_years
    terms = [v for v in spans if v.start in turn.ask.commitment_terms]
    kept = [v for v in spans if v not in terms]
    horizon = turn.slots.horizon_years
    if terms and not kept and horizon in {v.value for v in terms}:
        horizon = None
    elif terms and kept:
        horizon = kept[0].value
    return kept, horizon


def _horizon_bounds(turn: Turn, horizon_years: float | None) -> tuple[float, float] | None:
    """The two ends of a horizon given as a range ("for 2-3 years"), in years."""
    return next(((r.low, r.high) for r in turn.ask.horizon_ranges if r.value == horizon_years), None)


def _purchase_and_rent(turn: Turn) -> tuple[Money | None, SlotValue | None]:
    """The purchase price and the rent, each known by what it is the price of: an amount per month or year is the
    rent whichever role it was read in ("renting costs $45k per month, buying is $280k"), an amount paid once the
    purchase. The rent comes with what was written, which says whether it was per card."""
    s, slots = turn.slots, turn.slots.frame.slots
    purchase, rent = s.server_price, s.hourly_price
    rent_said = next((v for v in slots.get("cloud_price", []) if v.value == rent), None) if rent is not None else None
    if purchase is not None and purchase.per in PERIOD_HOURS and rent is None:
        rent_said = next(v for v in slots.get("server_price", []) if v.value == purchase)
        once = [v.value for slot in ("server_price", "budget", "cloud_price") for v in slots.get(slot, [])
                if isinstance(v.value, Money) and v.value.per in ("once", "all") and v.value.currency in CALCULATED_CURRENCIES]  # fmt: skip
        purchase = once[0] if once else None
        s.mark("budget", "cloud_price")
    return purchase, rent_said


def _rent(said: SlotValue | None, currency: str, gpus: int) -> tuple[dict, list[Text]]:
    """The rent as the user gave it: a bill per month or year is what is paid (never scaled by utilisation), an
    hourly rate is per GPU-hour; with the words that say which figure was theirs."""
    price = said.value if said is not None else None
    amount = _in(price, currency)
    if price is None or amount is None:
        return {"cloud_price_per_gpu_hour": amount}, []
    if price.per not in PERIOD_HOURS:
        return {"cloud_price_per_gpu_hour": amount}, [phrase("tco.yours.hourly", rate=money(amount, currency))]
    monthly = amount / 12 if price.per == "year" else amount
    words = [phrase("tco.yours.year_bill", amount=money(amount, currency), monthly=money(monthly, currency))] if price.per == "year" else []
    if said.said_per_card:  # "8000 a month per card": the bill of one card
        words.append(phrase("tco.yours.bill_per_card", amount=money(monthly, currency), gpus=gpus, total=money(monthly * gpus, currency)))
        monthly *= gpus
    elif price.per == "month":
        words.append(phrase("tco.yours.bill", amount=money(monthly, currency)))
    return {"cloud_monthly_bill": monthly}, words


def _given(r: dict, key: str) -> float | None:
    return next((a["value"] for a in r["assumptions"] if a["key"] == key and a["source"] == "given"), None)


def _assumed(r: dict, key: str) -> float:
    return next(a["value"] for a in r["assumptions"] if a["key"] == key)


def _rent_words(r: dict) -> Text:
    """The rent the payback is worked at, in the user's own terms: their bill, their hourly rate, or the catalog's."""
    cur = r["currency"]
    monthly, gpus = money(r["cloud_monthly_cost"], cur), r["total_gpus"]
    if r["cloud_billing"] == "monthly_bill":
        return phrase("tco.rent.bill", amount=monthly)
    rate, use = money(_assumed(r, "cloud_price_per_gpu_hour"), cur), number(_assumed(r, "utilisation_pct"))
    if r.get("rent_tier"):
        billing = WORDING.text("rent_billing.lease") if r["cloud_billing"] == "every_hour" else WORDING.text("rent_billing.used", utilisation=use)
        ceiling = WORDING.text("ceiling", rate=money(r["on_demand_rate"], cur)) if r.get("on_demand_rate") else ""
        return WORDING.text("rent_tier", tier=Text.model_validate(r["rent_tier_name"]), rate=rate, gpus=gpus, monthly=monthly, billing=billing, ceiling=ceiling)
    if _given(r, "cloud_price_per_gpu_hour") is None:
        return phrase("tco.rent.catalog", rate=rate, monthly=monthly, gpus=gpus, utilisation=use)
    if r["cloud_billing"] == "every_hour":
        return phrase("tco.rent.hourly_every_hour", rate=rate, monthly=monthly, gpus=gpus)
    return phrase("tco.rent.hourly_used", rate=rate, monthly=monthly, gpus=gpus, utilisation=use)


def _renting_side(turn: Turn, r: dict) -> str:
    """"What if we rent instead?": the rent for the same GPUs and horizon first, against owning, and which is cheaper."""
    if not turn.ask.asks_renting_side:
        return ""
    cur, rent, own = r["currency"], r["cloud_monthly_cost"], r["own_monthly_cost"]
    rate = money(_assumed(r, "cloud_price_per_gpu_hour"), cur)
    if r["cloud_billing"] == "monthly_bill":
        at = WORDING.say(turn, "rent_side.at_bill")
    elif r.get("rent_tier"):
        at = WORDING.say(turn, "rent_side.at_tier", tier=turn.text(Text.model_validate(r["rent_tier_name"])), rate=rate)
    else:
        at = WORDING.say(turn, "rent_side.at_rate", rate=rate)
    return WORDING.say(turn, "rent_side." + ("cheaper" if r["verdict"] == "rent" else "dearer"), gpus=r["total_gpus"], monthly=money(rent, cur),
                       total=money(r["cloud_total"], cur), years=number(r["horizon_months"] / 12), at=at,
                       own=money(own, cur), difference=money(abs(r["monthly_advantage"]), cur))  # fmt: skip


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


def _lead(r: dict) -> Text:
    """Payback at the user's rent, the figure a "when do we break even" asks for."""
    cur = r["currency"]
    if r["payback_months"] is None:
        return phrase("tco.lead.never", rent=_rent_words(r), opex=money(r["own_monthly_opex"], cur))
    return phrase("tco.lead.payback", months=number(r["payback_months"]), rent=_rent_words(r), capex=money(r["capex"], cur),
                  margin=money(r["monthly_margin"], cur), opex=money(r["own_monthly_opex"], cur))  # fmt: skip


def _verdict_first(turn: Turn, r: dict) -> str:
    """Buy or rent, with what the winner saves a month over the horizon (resale counted), in one sentence."""
    return WORDING.say(turn, f"verdict_first.{r['verdict']}", years=number(r["horizon_months"] / 12),
                       advantage=money(abs(r["monthly_advantage"]), r["currency"]))  # fmt: skip


def _totals(r: dict) -> Text:
    """The amortised comparison in one sentence, on the same basis as the verdict: owning's and renting's monthly
    cost, the advantage per month, and the break-even utilisation set against the user's (or why it does not apply)."""
    cur, years = r["currency"], number(r["horizon_months"] / 12)
    ahead = r["verdict"] != "rent"
    key = ("buy" if ahead else "rent") + ("" if r["break_even_applies"] else "_billed")
    return WORDING.text(f"totals.{key}", years=years, own=money(r["own_monthly_cost"], cur), rent=money(r["cloud_monthly_cost"], cur),
                        advantage=money(abs(r["monthly_advantage"]), cur), break_even=number(r["break_even_utilisation_pct"]),
                        utilisation=number(_assumed(r, "utilisation_pct")))  # fmt: skip


def _flip(r: dict) -> Text:
    """What turns the verdict: how long the servers are kept, how busy they are, how low the rent may fall."""
    cur, years = r["currency"], number(r["horizon_months"] / 12)
    needed, use = money(r["rent_to_pay_back_in_horizon"], cur), r["utilisation_to_pay_back_in_horizon_pct"]
    if r["verdict"] == "buy_with_resale":  # not in cash within the horizon, ahead once resale is counted: said as such
        return WORDING.text("flip.resale", years=years, resale=money(r["resale_value"], cur), saving=money(r["saving_from_owning"], cur),
                            advantage=money(r["monthly_advantage"], cur))  # fmt: skip
    if r["verdict"] == "buy":
        use_words = phrase("tco.flip.use_within", utilisation=number(use)) if use is not None else ""
        return phrase("tco.flip.within", months=number(r["payback_months"]), use=use_words, years=years,
                      saving=money(r["saving_from_owning"], cur), rent_needed=needed)  # fmt: skip
    use_words = "" if use is None else phrase("tco.flip.use_needed", utilisation=number(use)) if use <= 100 else phrase("tco.flip.use_unreachable")
    if r["payback_months"] is None:
        return phrase("tco.flip.never", years=years, rent_needed=needed, use=use_words)
    return phrase("tco.flip.beyond", years=years, months=number(r["payback_months"]), rent_needed=needed, use=use_words)


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
MONEY_INPUTS = {"server_price", "electricity_price", "colo_price_per_kw_month", "staff_cost_per_month", "cloud_price_per_gpu_hour", "colo_per_month"}


def _inputs(turn: Turn, assumptions: list[dict], currency: str) -> str:
    """Which inputs the user gave and which were defaulted, in words (sources of defaults in English answers)."""
    def line(a: dict) -> str:
        label = turn.t(*TCO_INPUTS.get(a["key"], (a["key"].replace("_", " "), a["key"].replace("_", " "))))
        if a["key"] in MONEY_INPUTS or a["key"] == "cloud_monthly_bill":
            return f"{label} {money(a['value'], currency)}"
        return f"{label} {number(a['value'], 2)}" + ("%" if "_pct" in a["key"] else "")
    given = [line(a) for a in assumptions if a["source"] == "given" and a["key"] not in SET_BY_THE_ANSWER]
    defaulted = [a for a in assumptions if a["source"] != "given"]
    lines = ["**" + WORDING.say(turn, "costs_phrases.inputs.inputs") + "**"]
    if given:
        lines.append("- " + WORDING.say(turn, "costs_phrases.inputs.you_gave") + turn.t("; ", "；").join(given))
    for a in defaulted:
        source = a["source"] if len(a["source"]) <= 90 else a["source"][:87] + "…"
        links = a.get("links") or []
        link = WORDING.text("lines.source_link", url=links[0]) if links else Text(en="", zh="")
        if a["source"] == DERIVED:
            lines.append("- " + WORDING.say(turn, "costs_phrases.inputs.worked_out_from_your_bill", value=line(a)))
            continue
        lines.append("- " + WORDING.say(turn, "lines.default", value=line(a), source=Text(en=f" ({source})", zh=""), link=link))
    return "\n".join(lines)


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
    args = {"model": model, "gpu": _gpu(turn), "currency": _currency(turn)}
    args.update(
        tokens=tokens,
        num_gpus=s.gpu_count if s.gpu_count else None,
        deadline_days=s.deadline_hours / 24 if s.deadline_hours else None,
        price_per_gpu_hour=_hourly_price(turn, args["currency"], s.gpu_count or 1),
        electricity_price=_in(s.power_price, args["currency"]),
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
    verdict = WORDING.say(turn, "lines.run_verdict", took=turn.t(took_en, took_zh), count=r["num_gpus"], name=_name(turn, r["gpu_id"]),
                          compared=compared, gpu_hours=number(r["gpu_hours"]), cost=cost, power=power)
    if r["deadline_days"] and not r["gpus_derived_from_deadline"]:  # "can one card make it in time?": the answer to the question asked
        within = r["wall_clock_days"] <= r["deadline_days"]
        limit_en, limit_zh = _duration(r["deadline_days"])
        verdict = WORDING.say(turn, "lines.meets_deadline" if within else "lines.misses_deadline", limit=turn.t(limit_en, limit_zh)) + " " + verdict
    if r["gpus_derived_from_deadline"]:
        verdict = WORDING.say(turn, "costs_phrases.training_time.finish_within_days_days", num_gpus=r['num_gpus'], name=_name(turn, r['gpu_id']), deadline_days=number(r['deadline_days']), wall_clock_days=number(r['wall_clock_days'])) + _as_sold(turn, args, r["num_gpus"]) + "\n\n" + verdict
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
    dated = [(phrase("price_age.offer", tier=tier["name"], offer=offer["offer"]), offer["date"]) for tier in priced for offer in tier["offers"]]
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
    values = {"before": WORDING.say(turn, "lines.cards", count=then["num_gpus"], name=_name(turn, then["gpu_id"])), "took": turn.t(took_en, took_zh)}
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
            "currency": _currency(turn), "num_gpus": None if deadline else option["count"], "deadline_days": deadline / 24 if deadline else None}  # fmt: skip
    timed = turn.call("estimate_training_time", args)
    if not timed.ok:
        return ""
    r, name = timed.result, _name(turn, option["gpu_id"])
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
    n, name = faster.result["num_gpus"], _name(turn, args["gpu"])
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
            return token_price.answer(turn, _gpu(turn), _currency(turn))
        return answer(turn)

    return route
