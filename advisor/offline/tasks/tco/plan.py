"""The rent-or-buy (tco) task's plan: what a message asks (the cards, the market's currency, a purchase, a rent, running
costs, a horizon, a reservation, cards already owned, a quoted payback or cloud multiple) and compute_tco's arguments.
No answer sentences here: only the assumptions a reading makes and the echo of each figure the user gave (the
``costs.yours`` lines); the answer's sentences are render.py's, and costs.py runs plan → compute_tco → render."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from advisor.markdown import money, number
from advisor.nlu.frame import Frame, Money, SlotValue
from advisor.nlu.ask import GpuHours, LoadShape
from advisor.offline.slots import CALCULATED_CURRENCIES, Slots
from advisor.offline.tasks.dialogue import plan as dialogue_plan
from advisor.offline.tasks.serving.engines import engine_of
from advisor.offline.tasks.specs.compare import asks_cost_per_token
from advisor.offline.turn import Turn
from advisor.registry import ToolOutcome
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from tools.cost.money import DEFAULT_USD_TO_CNY, convert
from tools.cost.tco import MIN_LIFETIME_YEARS
from tools.cost.tco_model import HOURS_PER_MONTH

WORDING = Wording("tco", "costs")
RENTALS = Wording("tco", "rentals")
TIERS = Wording("tco", "rent_tiers")
DEFAULT_GPU = "h100-sxm"  # the card a cost is worked on when the question names none (the answer says so)
PERIOD_HOURS = {"month": HOURS_PER_MONTH, "year": 12 * HOURS_PER_MONTH}
SHORTEST_LIFE_YEARS = 0.25  # with a payback in the message, a span shorter than this is a rent's period, not the servers' life
MAX_RENT_PER_GPU_HOUR_USD = 100  # no GPU-hour rents above this (the dearest on-demand card is ~$15): a one-off amount above it is a price
THREE_YEAR_TERM = 3  # a reservation of three years or more is priced at the 3-year commitment rate


def currency_of(turn: Turn) -> str:
    """The currency of the first amount the user gave (rent, power, purchase, budget), else the market's."""
    for amount in (turn.slots.hourly_price, turn.slots.power_price, turn.slots.server_price, turn.slots.budget):
        if amount is not None:
            return amount.currency
    return turn.currency


def in_currency(amount: Money | None, currency: str) -> float | None:
    """A stated amount in ``currency``; None when nothing was stated."""
    return None if amount is None else convert(amount.amount, amount.currency, currency, DEFAULT_USD_TO_CNY)


def gpu_name(turn: Turn, gpu_id: str | None) -> str:
    """The catalog's name of a card id (the id itself when the catalog has none)."""
    gpu = turn.catalog.find_gpu(gpu_id) if gpu_id else None
    return gpu.name if gpu else str(gpu_id)


def gpu_of(turn: Turn) -> str:
    """The card the cost is worked on: the one named, else the default, with an assumption saying why."""
    if turn.slots.gpus:
        return turn.slots.gpus[0]
    name = gpu_name(turn, DEFAULT_GPU)
    other = turn.slots.frame.surface("other_gpu")
    if other:  # "my rtx 3080": named, but the catalog has no figures for it
        turn.slots.mark("other_gpu")
        turn.assume(*WORDING.both("costs_phrases.gpu.gpu_since_is_not_in", name=name, other=other))
    else:
        turn.assume(*WORDING.both("costs_phrases.gpu.gpu_none_named", name=name))
    return DEFAULT_GPU


def cost_of_a_run(turn: Turn) -> bool:
    """"What would that run cost at $2.2/hr", "and the electricity for that run?": the cost of a training run already described, not
    owning against renting (which needs a server price or a span of years the user did not give)."""
    f = turn.slots.frame
    return f.has("training_tokens") and not any(f.has(slot) for slot in ("server_price", "budget", "horizon", "utilisation"))


def ratio_claim(turn: Turn) -> float | None:
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


def gpu_hours(turn: Turn) -> GpuHours | None:
    """Use said as GPU-hours over a period (``Ask.gpu_hours``): the count and the span of time the reader took from its
    words ("300 gpu-hours a week" is neither 300 GPUs nor a one-week horizon) are taken out of ``turn.slots``."""
    said = turn.ask.gpu_hours
    if said is None:
        return None

    def within(v: SlotValue) -> bool:
        return said.start <= v.start < said.end

    frame = turn.slots.frame
    if any(within(v) for slot in ("gpu_count", "horizon") for v in frame.slots.get(slot, [])):
        turn.slots = Slots(Frame({slot: [v for v in values if not (slot in ("gpu_count", "horizon") and within(v))]
                                  for slot, values in frame.slots.items()}))  # fmt: skip
    return said


def usage_share(hours_per_month: float, gpus: int) -> tuple[int, float]:
    """The cards and the share of their hours a monthly use of GPU-hours fills: the cards stated when they can hold it,
    else as many as it needs (rounded up), and the utilisation in percent."""
    needed = max(gpus, math.ceil(hours_per_month / HOURS_PER_MONTH))
    return needed, min(100.0, hours_per_month / (needed * HOURS_PER_MONTH) * 100)


def running_costs(turn: Turn) -> dict[str, tuple[SlotValue, bool]]:
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


def running_cost_args(found: dict[str, tuple[SlotValue, bool]], currency: str) -> tuple[dict, list[Echo]]:
    """The running costs stated, as the comparison's inputs, and the words that echo them."""
    args: dict = {}
    words: list[Echo] = []
    if "colocation" in found:
        value, per_kw = found["colocation"]
        amount = in_currency(value.value, currency)
        if per_kw:
            args["colo_price_per_kw_month"] = amount
            words.append(Echo("colo_per_kw", {"amount": Amount(amount)}))
        else:  # a bill per rack or for the whole space
            args["colo_per_month"] = amount
            words.append(Echo("colo_bill", {"amount": Amount(amount)}))
    if "staff" in found:
        value, _ = found["staff"]
        amount = in_currency(value.value, currency)
        if value.value.per == "month":
            args["staff_cost_per_month"] = amount
            words.append(Echo("staff", {"amount": Amount(amount)}))
        else:  # a salary said once or per year is a year's pay
            args["staff_cost_per_month"] = amount / 12
            words.append(Echo("staff_yearly", {"amount": Amount(amount), "monthly": Amount(amount / 12)}))
    return args, words


def owns_cards(turn: Turn, server_price: float | None) -> bool:
    """The cards are already there ("we already own 16 A100s"): no purchase is weighed, unless
    a price to buy was stated too (then the question is a purchase)."""
    return server_price is None and turn.ask.owns_hardware


def earlier_args(turn: Turn, args: dict) -> dict | None:
    """The comparison as it stood before this follow-up: this one's inputs with the values the follow-up changed put
    back. None when nothing it changed is an input of the comparison."""
    before = Slots(turn.reading.before)
    earlier = dict(args)
    said_before = turn.ask.opened_earlier and turn.ask.billing_said_earlier
    if turn.ask.committed_billing and not said_before:  # "what if we go 3-year reserved?": the rent was on demand before
        earlier.update(cloud_committed=False, rent_tier="auto")
    for change in dialogue_plan.changes(turn):
        if change.slot == "utilisation":
            earlier["utilisation_pct"] = before.utilisation * 100 if before.utilisation is not None else None
        elif change.slot == "horizon":
            earlier["lifetime_years"] = before.horizon_years
            if turn.ask.committed_billing:
                earlier["rent_tier"] = committed_tier(before.horizon_years, china_market(turn, args["currency"])) if said_before else "auto"
        elif change.slot == "electricity_price":
            earlier["electricity_price"] = in_currency(before.power_price, args["currency"])
        elif change.slot == "discount":
            earlier["cloud_discount_pct"] = before.discount_pct
        elif change.slot == "gpu" and before.gpus:
            earlier["gpu"] = before.gpus[0]
    earlier = {key: value for key, value in earlier.items() if value is not None}
    return earlier if earlier != {key: value for key, value in args.items() if value is not None} else None


def committed_tier(horizon_years: float | None, china: bool) -> str:
    """The committed tier a reservation is priced at: three years when the servers are kept that long, else one. A
    China buyer's yearly package is a China lease, already billed for every hour: the China tier ("auto") prices it."""
    if china:
        return "auto"
    return "hyperscaler_3yr" if (horizon_years or 0) >= THREE_YEAR_TERM else "hyperscaler_1yr"


def committed_billing(turn: Turn) -> bool:
    """Reserved or committed capacity ("1yr commit", a yearly package), said anywhere in the question: billed every hour."""
    return turn.ask.committed_billing


def spans_beside_commitments(turn: Turn) -> tuple[list[SlotValue], float | None]:
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


def horizon_bounds(turn: Turn, horizon_years: float | None) -> tuple[float, float] | None:
    """The two ends of a horizon given as a range ("for 2-3 years"), in years."""
    return next(((r.low, r.high) for r in turn.ask.horizon_ranges if r.value == horizon_years), None)


def purchase_and_rent(turn: Turn) -> tuple[Money | None, SlotValue | None]:
    """The purchase price and the rent, each known by what it is the price of: an amount per month or year is the
    rent whichever role it was read in ("renting costs $45k per month, buying is $280k"), an amount paid once the
    purchase. The rent comes with what was written, which says whether it was per card."""
    s, slots = turn.slots, turn.slots.frame.slots
    purchase, rent = s.server_price, s.hourly_price
    if purchase is None and rent is not None and rent.per == "once" and in_currency(rent, "USD") > MAX_RENT_PER_GPU_HOUR_USD:
        purchase, rent = rent, None  # "350k yuan a server" read as a rent: an amount paid once that no GPU-hour costs is the purchase, whatever role it was read in
        s.mark("cloud_price")
    rent_said = next((v for v in slots.get("cloud_price", []) if v.value == rent), None) if rent is not None else None
    if purchase is not None and purchase.per in PERIOD_HOURS and rent is None:
        rent_said = next(v for v in slots.get("server_price", []) if v.value == purchase)
        once = [v.value for slot in ("server_price", "budget", "cloud_price") for v in slots.get(slot, [])
                if isinstance(v.value, Money) and v.value.per in ("once", "all") and v.value.currency in CALCULATED_CURRENCIES]  # fmt: skip
        purchase = once[0] if once else None
        s.mark("budget", "cloud_price")
    return purchase, rent_said


def rent_args(said: SlotValue | None, currency: str, gpus: int) -> tuple[dict, list[Echo]]:
    """The rent as the user gave it: a bill per month or year is what is paid (never scaled by utilisation), an
    hourly rate is per GPU-hour; with the words that say which figure was theirs."""
    price = said.value if said is not None else None
    amount = in_currency(price, currency)
    if price is None or amount is None:
        return {"cloud_price_per_gpu_hour": amount}, []
    if price.per not in PERIOD_HOURS:
        return {"cloud_price_per_gpu_hour": amount}, [Echo("hourly", {"rate": Amount(amount)})]
    monthly = amount / 12 if price.per == "year" else amount
    words = [Echo("year_bill", {"amount": Amount(amount), "monthly": Amount(monthly)})] if price.per == "year" else []
    if said.said_per_card:  # "8000 a month per card": the bill of one card
        words.append(Echo("bill_per_card", {"amount": Amount(monthly), "gpus": gpus, "total": Amount(monthly * gpus)}))
        monthly *= gpus
    elif price.per == "month":
        words.append(Echo("bill", {"amount": Amount(monthly)}))
    return {"cloud_monthly_bill": monthly}, words


class Amount(float):
    """A sum of money the user gave, in the comparison's currency: the render writes it with its symbol."""


class Figure(float):
    """A plain figure the user gave (hours, a share in percent): the render writes it in the shared number format."""


class Years(float):
    """A span of years the user gave: the render says it in a buyer's units (spans.py)."""


@dataclass(frozen=True)
class Echo:
    """A figure the user gave, echoed where the verdict is read: its phrase under ``yours.`` of the costs wording and
    its raw values (Amount, Figure, Years or a count); render.echo writes it, so the plan formats no number."""

    key: str
    values: dict


@dataclass
class RentOrBuy:
    """A rent-or-buy comparison as the message asks it: compute_tco's arguments, the figures the user gave (echoed where
    the verdict is read) and the counts the answer words."""

    args: dict
    yours: list[Echo]
    currency: str
    count: int
    servers: int
    horizon_years: float | None
    owned: bool


def rent_or_buy(turn: Turn) -> RentOrBuy:
    """compute_tco's arguments: the stated purchase, rent, running costs, horizon and billing, each read for what it is
    the price of, defaults left to the tool; how each stated figure was taken is said (an assumption or an echo line)."""
    yours: list[Echo] = []
    running = running_costs(turn)  # before anything reads the purchase or the rent: those amounts are not them
    ratio = ratio_claim(turn)  # before the count is read: the "3" of "3x more expensive" is no number of GPUs
    used = gpu_hours(turn)  # before the count is read: "2000 GPU-hours a month" is use, not 2000 GPUs
    s = turn.slots
    currency = currency_of(turn)
    count = s.gpu_count or 8
    per_server = s.gpus_per_server or min(count, 8)
    servers = s.servers or max(1, math.ceil(count / per_server))
    utilisation = s.utilisation * 100 if s.utilisation is not None else None
    if used is not None and used.per_month is not None and utilisation is None:
        needed, utilisation = usage_share(used.per_month, servers * per_server)
        if needed > servers * per_server:
            servers = math.ceil(needed / per_server)
            count = servers * per_server
        yours.append(Echo(f"gpu_hours.{used.per}", {"hours": Figure(used.hours), "monthly": Figure(used.per_month), "gpus": servers * per_server,
                                                    "utilisation": Figure(utilisation)}))  # fmt: skip
    purchase, rent_said = purchase_and_rent(turn)
    server_price = in_currency(purchase, currency)
    per_card = server_price is not None and turn.ask.quote_per_card and purchase.per != "all"
    if per_card:  # "$9k each, 8 of them", "18k yuan a card": a card's price times the cards of a server, not the whole purchase
        yours.append(Echo("price_per_card", {"amount": Amount(server_price), "per_server": per_server, "each": Amount(server_price * per_server),
                                             "servers": servers, "total": Amount(server_price * per_server * servers)}))  # fmt: skip
        server_price *= per_server
    elif server_price is not None:
        yours.append(Echo("price", {"amount": Amount(server_price)}))
    if server_price is not None and purchase.per == "all" and servers > 1:  # "2.8M for the two of them"
        turn.assume(
            *WORDING.both("costs_phrases.tco.is_the_price_of_all", total=money(server_price, currency), servers=servers, each=money(server_price / servers, currency)),
        )
        server_price /= servers
    budget = in_currency(s.budget, currency)
    if server_price is None and budget is not None:
        turn.assume(*WORDING.both("costs_phrases.tco.is_the_purchase_price_of", budget=money(budget, currency)))
        yours.append(Echo("price", {"amount": Amount(budget)}))
        server_price = budget / servers
    spans, state_horizon = spans_beside_commitments(turn)
    claimed_years, horizon_years = claim_and_horizon(turn.ask.payback_word_starts, spans, state_horizon)
    if horizon_years is not None and (horizon_years < MIN_LIFETIME_YEARS or (turn.ask.speaks_of_payback and horizon_years < SHORTEST_LIFE_YEARS)):
        # "what does renting cost for a month, and when does buying pay back?": the rent's period, not a life; without a
        # payback in the message, "we need 8 H100s for two months" is the span compared (renting wins it, and says why)
        horizon_years = None
    bounds = horizon_bounds(turn, horizon_years)
    if horizon_years is not None:
        yours.append(Echo("horizon_range", {"low": Figure(bounds[0]), "high": Figure(bounds[1]), "span": Years(horizon_years)})
                     if bounds else Echo("horizon", {"span": Years(horizon_years)}))  # fmt: skip
    rent, rent_words = rent_args(rent_said, currency, count)
    yours += rent_words
    running_args, running_words = running_cost_args(running, currency)
    yours += running_words
    if s.utilisation is not None and used is None:  # every figure the user gave is echoed where the verdict is read, not only in the inputs
        yours.append(Echo("utilisation", {"utilisation": Figure(s.utilisation * 100)}))
    if s.power_price is not None and in_currency(s.power_price, currency) is not None:
        yours.append(Echo("electricity", {"amount": Amount(in_currency(s.power_price, currency))}))
    if s.discount_pct is not None:
        yours.append(Echo("discount", {"discount": Figure(s.discount_pct)}))
    committed = committed_billing(turn)
    if committed:
        yours.append(Echo("committed", {}))
    owned = owns_cards(turn, server_price)
    args = {
        "owned": owned,
        "gpu": gpu_of(turn),
        "gpus_per_server": per_server,
        "servers": servers,
        "server_price": server_price,
        "server_price_each": True if server_price is not None and (per_card or purchase is None or purchase.per == "all" or servers == 1) else None,
        "lifetime_years": horizon_years,
        "claimed_payback_months": claimed_years * 12 if claimed_years else None,
        "claimed_cloud_ratio": ratio,
        "today": dt.date.today().isoformat(),
        "region": s.region,
        "site_region": turn.ask.site_region or ("cn" if turn.china_buyer else None),
        "rents_out": turn.ask.rents_out,
        "utilisation_pct": utilisation,
        **rent,
        "cloud_committed": committed,
        # with no rent given: a reservation at the hyperscaler's committed rate for its term, else the tier a buyer of
        # this size rents at; on-demand stays the upper bound
        "rent_tier": committed_tier(horizon_years, china_market(turn, currency)) if committed else "auto",
        "cloud_discount_pct": s.discount_pct,
        # a price the user stated is the purchase as quoted: nothing is added on top of it
        "network_overhead_pct": 0 if server_price is not None else None,
        "lifetime_bounds_years": bounds,
        "electricity_price": in_currency(s.power_price, currency),
        **running_args,
        "currency": currency,
    }
    return RentOrBuy(args, yours, currency, count, servers, horizon_years, owned)


@dataclass
class ReservedOrOnDemand:
    """Reserved against on-demand as the message asks it: reserved_or_on_demand's arguments, the card, and which rates
    the price book supplied (the user gave no quote for them)."""

    args: dict
    gpu: str
    from_book: dict[str, dict]  # "reserved"/"on_demand" → the rental tier that priced it
    used: GpuHours | None
    shape: LoadShape | None = None  # the base, peak and burst hours the use was worked from, when said
    busy_share: float | None = None  # the peak fleet's busy share the use was worked from ("use it 50% of the time")
    longer_term: LongerTerm | None = None  # a commitment longer than the one the reserved rate was quoted for


@dataclass
class LongerTerm:
    """"What if we sign for three years?" after a 1-year quote: the user's rate scaled by the price book's 3-year ÷
    1-year ratio for the card, an estimate the answer names as one (the user's quote for that term replaces it)."""

    years: float
    rate: float
    ratio: float
    tier: dict


RESERVED_TIERS = {"reserved": "hyperscaler_1yr", "on_demand": "hyperscaler_on_demand"}
LONGER_TIERS = ("hyperscaler_1yr", "hyperscaler_3yr")  # their ratio scales a 1-year quote to a longer commitment


def reserved_or_on_demand(turn: Turn) -> ReservedOrOnDemand:
    """The rates the user stated, each bound to its billing word (``Ask.reservation``); a rate not stated is the price
    book's tier for the card (1-year commitment, on-demand); the use said as GPU-hours and the peak count."""
    used = gpu_hours(turn)  # before the count is read: the count left is the peak
    said = turn.ask.reservation
    currency = next((m.currency for m in (said.reserved, said.on_demand) if m is not None), None) if said else None
    currency = currency if currency in CALCULATED_CURRENCIES else turn.currency
    gpu = gpu_of(turn)
    rates = {kind: in_currency(getattr(said, kind), currency) if said else None for kind in RESERVED_TIERS}
    from_book: dict[str, dict] = {}
    term = turn.slots.horizon_years
    longer = term is not None and term > 1 and rates["reserved"] is not None  # a term longer than the 1-year quote
    tiers: dict[str, dict] = {}
    if any(rate is None for rate in rates.values()) or longer:
        market = turn.call("rental_prices", {"gpu": gpu, "currency": currency, "today": dt.date.today().isoformat()})
        tiers = {t["tier"]: t for t in market.result["tiers"]} if market.ok else {}
        for kind, tier in RESERVED_TIERS.items():
            if rates[kind] is None and tier in tiers:
                rates[kind] = (tiers[tier]["low"] + tiers[tier]["high"]) / 2
                from_book[kind] = tiers[tier]
    longer_term = None
    if longer and "reserved" not in from_book and all(t in tiers for t in LONGER_TIERS):
        one, three = ((tiers[t]["low"] + tiers[t]["high"]) / 2 for t in LONGER_TIERS)
        longer_term = LongerTerm(term, rates["reserved"] * three / one, three / one, tiers[LONGER_TIERS[1]])
        rates["reserved"] = longer_term.rate
    turn.slots.mark("cloud_price", "gpu_count", "gpu")
    shape, peak = turn.ask.load_shape, turn.slots.gpu_count
    hours, busy = (used.per_month if used else None), None
    if shape is not None and shape.peak_gpus:
        peak = shape.peak_gpus
    if hours is None and shape is not None and shape.base_gpus is not None and peak and shape.burst_hours_per_day is not None:
        # the base every hour, the GPUs above it for the burst's hours a day (a month = 730 h = 30.4 days)
        hours = shape.base_gpus * HOURS_PER_MONTH + max(0, peak - shape.base_gpus) * shape.burst_hours_per_day * HOURS_PER_MONTH / 24
        turn.slots.mark("utilisation")
    elif hours is None and peak and (busy := turn.slots.utilisation) is not None and shape is None:
        hours = peak * HOURS_PER_MONTH * busy  # "use it 50% of the time": the fleet's hours times the share used
    args = {"reserved_per_gpu_hour": rates["reserved"], "on_demand_per_gpu_hour": rates["on_demand"],
            "gpu_hours_per_month": hours, "peak_gpus": peak, "currency": currency}  # fmt: skip
    if shape is not None and shape.base_gpus is not None:
        args["base_gpus"] = shape.base_gpus
    return ReservedOrOnDemand(args, gpu, from_book, used, shape, busy, longer_term)


NOT_SOLD_NEW_IN_CHINA = ("export-controlled", "second-hand", "licensed", "not-sold")  # catalog china statuses: no new purchase there
CHINA_SOLD = ("china-variant", "domestic")


@dataclass
class ChinaBlock:
    """A China buyer weighing the purchase of a card that cannot be bought new there: its status, the rule behind it,
    and the datacenter parts sold in China instead."""

    gpu: str
    status: str
    rule: Text
    instead: list[str]


def china_block(turn: Turn, gpu_id: str, currency: str, owned: bool) -> ChinaBlock | None:
    """The card of a China buyer's rent-or-buy cannot be bought new in mainland China (catalog ``china`` status), so a
    purchase is no option to compute as if legal; None otherwise (cards already owned, another market)."""
    gpu = turn.catalog.find_gpu(gpu_id)
    if owned or gpu is None or not (china_market(turn, currency) or turn.ask.site_region == "cn") or gpu.china not in NOT_SOLD_NEW_IN_CHINA:
        return None
    rule = gpu.china_rule
    instead = [g.name for g in turn.catalog.gpus if g.china in CHINA_SOLD and g.segment == "datacenter" and g.memory_gb >= min(gpu.memory_gb, 64)]
    return ChinaBlock(gpu.name, gpu.china, Text(en=rule.en, zh=rule.zh) if rule else Text(en="", zh=""), instead)


RENTAL_MONTHS = 12  # a rental comparison with no period is priced over a year (said as an assumption)
HOURLY_RENT = ("gpu_hour", "hour", "once")  # a rent with no period of its own ("9 yuan per A100-hour") is per GPU-hour, as in rent-or-buy


def rentals_apply(turn: Turn) -> bool:
    """Two or more cards, one hourly rent each, in currencies the calculators keep (a EUR rent is named by the
    rent-or-buy answer, never converted at a rate nobody keeps), and nothing to buy."""
    frame = turn.slots.frame
    prices = rental_rates(turn)
    buying = frame.has("server_price") or frame.has("budget") or turn.ask.buying
    known = all(price.value.currency in CALCULATED_CURRENCIES for price in prices)
    return len(prices) >= 2 and len(prices) == len(rental_cards(turn)) and known and not buying


def rental_rates(turn: Turn) -> list[SlotValue]:
    """The hourly rents, in the order said: the n-th belongs to the n-th card."""
    rents = turn.slots.frame.slots.get("cloud_price", [])
    return sorted((v for v in rents if isinstance(v.value, Money) and v.value.per in HOURLY_RENT), key=lambda v: v.start)


def rental_cards(turn: Turn) -> list[SlotValue]:
    frame = turn.slots.frame
    return sorted([*frame.slots.get("gpu", []), *frame.slots.get("other_gpu", [])], key=lambda v: v.start)


def rental_name(turn: Turn, card: SlotValue) -> str:
    gpu = turn.catalog.find_gpu(card.value) if isinstance(card.value, str) else None
    return gpu.name if gpu else card.surface


def rental_args(turn: Turn, counts: list) -> dict:
    """compare_rentals' arguments: each card with its own rent (bound by order) and count, the months and the share of
    hours rented (GPU-hours said set both the count and the share); the defaults taken are said as assumptions."""
    used = gpu_hours(turn)  # "1000 GPU-hours a month": the hours rented, not 1000 cards nor a one-month horizon
    s = turn.slots
    prices = rental_rates(turn)
    currency = prices[0].value.currency
    options = [{"name": rental_name(turn, card), "gpus": int(count or 1),
                "price_per_gpu_hour": convert(price.value.amount, price.value.currency, currency, DEFAULT_USD_TO_CNY)}
               for card, price, count in zip(rental_cards(turn), prices, counts)]  # fmt: skip
    s.mark("gpu", "other_gpu", "gpu_count", "cloud_price", "objective")  # "which is cheaper" is what the table answers
    months = s.horizon_years * 12 if s.horizon_years else None
    if months is None:
        months = RENTAL_MONTHS
        turn.assume(*RENTALS.both("rentals_phrases.answer.months_of_renting_no_period", default_months=RENTAL_MONTHS))
    share = s.utilisation * 100 if s.utilisation is not None else None
    if share is None and used is not None and used.per_month is not None:  # each option rents the GPU-hours said
        gpus, share = usage_share(used.per_month, max(option["gpus"] for option in options))
        options = [{**option, "gpus": gpus} for option in options]
        turn.assume(*RENTALS.both(f"rentals_phrases.answer.gpu_hours.{used.per}", hours=number(used.hours), monthly=number(used.per_month),
                                  gpus=gpus, utilisation=number(share)))  # fmt: skip
    if share is None:
        share = 100
        turn.assume(*RENTALS.pair("rentals_phrases.answer.rented_around_the_clock_no"))
    return {"options": options, "months": months, "utilisation_pct": share, "discount_pct": s.discount_pct or 0, "currency": currency}


# ---- the arguments the smaller cost answers (token_price, api_bill, rent_prices) send: planned here, worded there ----
def china_market(turn: Turn, currency: str) -> bool:
    """Whether mainland China's clouds price the rent: the region is China or the answer is in yuan."""
    return turn.slots.region == "cn" or currency == "CNY"


def market_args(turn: Turn, gpu: str, currency: str, gpus: int, **more: object) -> dict:
    """rental_prices' arguments for ``gpus`` of ``gpu`` in ``currency`` (the rent tiers and the fair band); ``more`` adds
    a quoted rate or the GPU-hours billed."""
    return {"gpu": gpu, "currency": currency, "china": china_market(turn, currency), "gpus": gpus, **more, "today": dt.date.today().isoformat()}


def owning_hour_args(gpu: str, gpus: int, currency: str, **more: object) -> dict:
    """compute_tco's arguments for what an hour of one of ``gpus`` cards costs whoever owns it: the cards in full
    8-GPU servers, no rent weighed; ``more`` adds the use, the site and the horizon."""
    return {"gpu": gpu, "gpus_per_server": 8, "servers": -(-gpus // 8), "currency": currency, "rent_needed": False, **more}


def owning_hour(turn: Turn, gpu: str, gpus: int, currency: str, **more: object) -> ToolOutcome:
    """The one fallback for a card no rent tier prices in the buyer's market: what an hour of it costs whoever owns it
    (compute_tco on the card's dated purchase price or its sourced estimate, power and upkeep). Every cost writer that
    lacks a rent prices the hour here and says it is an estimate; the outcome fails only when no price exists at all."""
    return turn.call("compute_tco", owning_hour_args(gpu, gpus, currency, **more))


# ---- which smaller writer takes the rent-or-buy question over (costs.tco asks these in order), and their arguments ----
def weighs_api_bill(turn: Turn) -> bool:
    """An API bill weighed against GPUs serving the same traffic (api_bill): an API weighed with a volume or hosting words,
    or a cost per token asked beside an API named or priced ("cost per million tokens on our H100s vs the API?")."""
    return turn.ask.weighs_api or (asks_cost_per_token(turn) and (turn.ask.api_usage is not None or turn.slots.frame.has("api_price")))


def self_hosts_owned(turn: Turn) -> bool:
    """Self-hosting weighed against an API runs on cards the user owns or buys for it ("on our own 8 H100s", "we would
    buy the servers"): their hour is what owning costs, not a rent."""
    return turn.ask.holds_cards or turn.ask.weighs_owning


# Any of these makes it another question than the rent of a card: what a run, a purchase or a fleet over years costs
RENT_PRICE_OTHER_QUESTIONS = ("server_price", "budget", "training_tokens", "model", "size", "electricity_price", "deadline")
PRICE_PERIOD_YEARS = 1 / 365  # a span under a day is the unit of a price ("how much for an hour"), not how long anything is kept


def asks_rent_price(turn: Turn) -> bool:
    """What renting one card costs, or whether a rate is fair (rent_prices): one card named, words that ask what renting
    it costs, at most one rate to judge, and nothing bought, trained or kept over years in the conversation's task."""
    frame = turn.slots.frame
    if any(frame.has(slot) for slot in RENT_PRICE_OTHER_QUESTIONS) or len(set(frame.all("gpu"))) != 1 or len(frame.all("cloud_price")) > 1:
        return False
    if turn.ask.weighs_owning:  # a purchase or a quoted payback: rent-or-buy answers it
        return False
    if rented_months(turn) is not None:  # "1024 H100 for 3 months, what will it cost?": the bill for that long
        return frame.has("gpu_count") and turn.intent == "tco"
    return not frame.has("utilisation") and turn.ask.asks_rental_price


def rented_months(turn: Turn) -> float | None:
    """How long the GPUs are rented, in months; None when no span is said or it is a price's unit ("an hour")."""
    spans = [span for span in turn.slots.frame.all("horizon") if isinstance(span, float) and span >= PRICE_PERIOD_YEARS]
    return spans[0] * 12 if spans else None


def asks_token_price(turn: Turn) -> bool:
    """A cost per token asked of one card (token_price; two or more cards are compared side by side elsewhere)."""
    return (asks_cost_per_token(turn) or asks_token_line(turn)) and len(set(turn.slots.frame.all("gpu"))) <= 1


def asks_token_line(turn: Turn) -> bool:
    """"and per token?" after a rent-or-buy answer: the cost of a token on the cards of that comparison."""
    return turn.ask.tco_line == "token" and (turn.ask.thread_messages > 1 or turn.reading.follow_up)


def serving_args(turn: Turn, model: str, gpu: str, gpus: int) -> dict:
    """estimate_throughput's arguments for ``gpus`` of ``gpu`` serving ``model`` (token_price, api_bill): the precisions,
    engine and token lengths stated; the batch that keeps it full is the answer's second call."""
    s = turn.slots
    return {"model": model, "gpu": gpu, "num_gpus": gpus, "precision": s.frame.get("precision"), "kv_precision": s.kv_precision,
            "engine": engine_of(turn), "prompt_tokens": s.frame.get("prompt_tokens"), "output_tokens": s.frame.get("output_tokens")}  # fmt: skip


def stated_rate(turn: Turn, currency: str) -> float | None:
    """The rent per GPU-hour the user pays, in ``currency`` (a month's rent per card spread over its hours); None when
    none is stated."""
    price = turn.slots.hourly_price
    if price is None or price.currency not in ("USD", "CNY"):
        return None
    amount = convert(price.amount, price.currency, currency, DEFAULT_USD_TO_CNY)
    hours = {"month": HOURS_PER_MONTH, "year": 12 * HOURS_PER_MONTH}.get(price.per, 1)
    return amount / hours


def electricity_price(turn: Turn, currency: str) -> float | None:
    """The tariff the user stated, in the answer's currency."""
    price = turn.slots.power_price
    return None if price is None else convert(price.amount, price.currency, currency, DEFAULT_USD_TO_CNY)


MULTI_YEAR = 2  # horizons from two years on: long enough for the falling rent to move a payback (the buyer's or a lessor's)


def trend_args(r: dict) -> dict | None:
    """rental_prices' arguments for the falling-rent line under compute_tco's result ``r``; None when the horizon is shorter
    than MULTI_YEAR, the rent is a bill the user pays (theirs, not the market's) or the card is not the catalog's."""
    if r["horizon_months"] / 12 < MULTI_YEAR or r["cloud_billing"] == "monthly_bill" or not r.get("gpu_id"):
        return None
    return {"gpu": r["gpu_id"], "currency": r["currency"], "today": dt.date.today().isoformat()}


# ---- the payback a message quotes and the one line of the comparison a follow-up asks for ----
CLAIM_REACH_CHARS = 24  # "pays back in about 8 months": the months sit within a few words


def claim_and_horizon(payback_words: tuple[int, ...], spans: list[SlotValue], state_horizon: float | None) -> tuple[float | None, float | None]:
    """A quoted payback and the comparison horizon, in years, from this message's spans of time (``spans``) and where
    it claims a payback (``Ask.payback_word_starts``).

    The span stated beside the payback words is the claim to check; another span, or the conversation's horizon,
    is the horizon. Without payback words nothing changes: every span is the horizon."""
    spans = [v for v in spans if isinstance(v.value, float) and v.start >= 0]
    near = [(abs(v.start - at), v) for v in spans for at in payback_words]
    if not near or min(near, key=lambda pair: pair[0])[0] > CLAIM_REACH_CHARS:
        return None, state_horizon
    claimed = min(near, key=lambda pair: pair[0])[1]
    others = [v.value for v in spans if v is not claimed]
    horizon = others[0] if others else (state_horizon if state_horizon != claimed.value else None)
    return claimed.value, horizon


# The inputs behind each line a follow-up may ask for alone: they are listed under it, given or defaulted.
LINE_INPUTS = {
    "maintenance": ("maintenance_pct_per_year", "server_price"),
    "colocation": ("colo_price_per_kw_month", "server_max_kw", "load_factor_pct"),
    "staff": ("staff_cost_per_month",),
    "depreciation": ("residual_value_pct", "lifetime_years", "server_price"),
    "capex": ("server_price", "network_overhead_pct"),
    "network": ("network_overhead_pct", "server_price"),
}


def asked_for_line(turn: Turn) -> str | None:
    """The one line of the rent-or-buy answer just given that a follow-up asks about ("and the electricity?", "what's the
    maintenance?"); None for a first question or a message that states a value (it changes the comparison)."""
    earlier = turn.ask.thread_messages > 1 or turn.reading.follow_up
    key = turn.ask.tco_line if earlier else None
    if key == "energy":
        return None if turn.reading.frame.has("electricity_price") else key
    return key if key in LINE_INPUTS and not turn.reading.frame.names() else None


# ---- a comparison of rent tiers ("Vast/RunPod or stay on AWS?", "on-demand, reserved or a GPU cloud?") ----
@dataclass
class RentTierUse:
    """The use every rent tier is priced at: the card, the GPUs, their GPU-hours a month and how the use was read
    ("gpu_hours" said as GPU-hours, "utilisation" a share of the GPUs' hours, "around_the_clock" when nothing was said)."""

    gpu: str
    currency: str
    gpus: int
    hours_per_month: float
    basis: str
    job_years: float | None = None  # "for a 3-week fine-tune": how long the rent lasts, when that is shorter than a commitment


def rent_tier_use(turn: Turn) -> RentTierUse:
    """The use said (GPU-hours over a period, else the GPUs and their busy share, else the GPUs around the clock, said as an
    assumption), the card (the one named, else the default) and the currency of the market."""
    used = gpu_hours(turn)  # before the count is read: "300 H100 GPU-hours a week" is no count of GPUs
    s = turn.slots
    gpu, currency = gpu_of(turn), currency_of(turn)
    gpus = s.gpu_count or 1
    job = s.horizon_years if s.horizon_years is not None and s.horizon_years < 1 else None
    s.mark("gpu_count", "utilisation", "cloud_price", "region", "horizon")
    if used is not None and used.per_month is not None:
        gpus, _ = usage_share(used.per_month, s.gpu_count or 1)
        return RentTierUse(gpu, currency, gpus, used.per_month, "gpu_hours", job)
    if s.utilisation is not None:
        return RentTierUse(gpu, currency, gpus, gpus * HOURS_PER_MONTH * s.utilisation, "utilisation", job)
    turn.assume(*TIERS.both("assume.around_the_clock", gpus=gpus, hours=gpus * HOURS_PER_MONTH))
    return RentTierUse(gpu, currency, gpus, gpus * HOURS_PER_MONTH, "around_the_clock", job)


def reference_rate(tier: dict) -> float:
    """A tier's reference rate: its first offer (the one a payback is worked against), else the middle of its range."""
    return tier["offers"][0]["price"] if tier.get("offers") else (tier["low"] + tier["high"]) / 2
