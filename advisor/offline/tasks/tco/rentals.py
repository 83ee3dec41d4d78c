"""Renting one card or another ("L4 at $0.80/hr or A10G at $1.01/hr, 24/7 for 18 months?"): each bill side by side.

A cost question that names two or more cards, each with its own hourly price, and nothing to buy is a
rental comparison: the rent-or-buy model would ask for a server price nobody mentioned.
"""

from __future__ import annotations

from advisor.offline.wording import Wording
from advisor.labels import VERDICT
from advisor.markdown import money, number, table
from advisor.nlu.frame import Money, SlotValue, counts_of
from advisor.offline.tasks.specs import compare
from advisor.offline.tasks.specs.compare_view import Option
from advisor.offline.workload import model_of, precision_for, task_of
from advisor.offline.slots import CALCULATED_CURRENCIES
from advisor.offline.turn import Turn
from tools.cost.money import DEFAULT_USD_TO_CNY, convert

WORDING = Wording("tco", "rentals")

DEFAULT_MONTHS = 12
HOURLY = ("gpu_hour", "hour", "once")  # a rent with no period of its own ("9 yuan per A100-hour") is the rate per GPU-hour, as in rent-or-buy


def applies(turn: Turn) -> bool:
    """Two or more cards, one hourly rent each, in currencies the calculators keep (a EUR rent is named
    by the rent-or-buy answer, never converted at a rate nobody keeps), and nothing to buy."""
    frame = turn.slots.frame
    prices = _rates(turn)
    buying = frame.has("server_price") or frame.has("budget") or turn.ask.buying
    known = all(price.value.currency in CALCULATED_CURRENCIES for price in prices)
    return len(prices) >= 2 and len(prices) == len(_cards(turn)) and known and not buying


def answer(turn: Turn) -> str:
    s, frame = turn.slots, turn.slots.frame
    prices = _rates(turn)
    currency = prices[0].value.currency
    cards = _cards(turn)
    options = [
        {"name": _name(turn, card), "gpus": int(count or 1),
         "price_per_gpu_hour": convert(price.value.amount, price.value.currency, currency, DEFAULT_USD_TO_CNY)}
        for card, price, count in zip(cards, prices, counts_of(cards, frame.slots.get("gpu_count", [])))
    ]  # fmt: skip
    s.mark("gpu", "other_gpu", "gpu_count", "cloud_price", "objective")  # "which is cheaper" is what the table answers
    months = s.horizon_years * 12 if s.horizon_years else None
    if months is None:
        months = DEFAULT_MONTHS
        turn.assume(*WORDING.both("rentals_phrases.answer.months_of_renting_no_period", default_months=DEFAULT_MONTHS))
    share = s.utilisation * 100 if s.utilisation is not None else None
    if share is None:
        share = 100
        turn.assume(*WORDING.pair("rentals_phrases.answer.rented_around_the_clock_no"))
    outcome = turn.call(
        "compare_rentals",
        {"options": options, "months": months, "utilisation_pct": share, "discount_pct": s.discount_pct or 0, "currency": currency},
    )
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    cur = r["currency"]
    rows = [[row["name"], str(row["gpus"]), money(row["price_per_gpu_hour"], cur), money(row["monthly"], cur), money(row["total"], cur),
             f"`{turn.formula(row)}`"] for row in r["rows"]]  # fmt: skip
    header = [WORDING.say(turn, "rentals_phrases.answer.option"), WORDING.say(turn, "rentals_phrases.answer.gpus"), WORDING.say(turn, "rentals_phrases.answer.per_gpu_hour"), WORDING.say(turn, "rentals_phrases.answer.per_month"),
              WORDING.say(turn, "rentals_phrases.answer.over_months", months=number(months)), WORDING.say(turn, "rentals_phrases.answer.formula")]  # fmt: skip
    fits = _fits(turn, options)
    if fits is None:
        first = options[0]["name"]
        caveat = WORDING.say(turn, "rentals_phrases.answer.this_compares_the_bills_only", first=first)
        return "\n\n".join([_lead(turn, r, months, set()), table(header, rows), caveat])
    header.insert(2, WORDING.say(turn, "rentals_phrases.answer.does_the_model_fit"))
    for row, (verdict, _) in zip(rows, fits, strict=True):
        row.insert(2, verdict)
    too_small = {option["name"] for option, (_, holds) in zip(options, fits, strict=True) if not holds}
    return "\n\n".join([_lead(turn, r, months, too_small), table(header, rows)])


def _lead(turn: Turn, r: dict, months: float, too_small: set[str]) -> str:
    """The cheaper rental, or, when it cannot hold the model, the cheapest one that can."""
    cur = r["currency"]
    holding = sorted((row for row in r["rows"] if row["name"] not in too_small), key=lambda row: row["total"])
    if r["cheapest"] not in too_small or not holding:
        lead = WORDING.say(turn, "rentals_phrases.lead.is_the_cheaper_rental_less", cheapest=r['cheapest'], saving=money(r['saving_vs_next'], cur), months=number(months))
        return lead + (WORDING.say(turn, "rentals_phrases.lead.none_of_them_holds_the") if too_small and not holding else "")
    best = holding[0]
    return WORDING.say(turn, "rentals_phrases.lead.is_the_cheapest_rental_that", name=best['name'], total=money(best['total'], cur), months=number(months), cheapest=r['cheapest'])


def _fits(turn: Turn, options: list[dict]) -> list[tuple[str, bool]] | None:
    """With a model named, whether it fits each rented setup (as a comparison of the cards would split it):
    a cheaper card that cannot hold it is no saving."""
    model = model_of(turn)
    if model is None:
        return None
    task, named = task_of(turn)
    if not named:
        turn.assume(*WORDING.pair("rentals_phrases.fits.the_model_is_served_inference"))
    precision = precision_for(turn, task)
    batch = turn.slots.concurrency or turn.slots.batch_size
    verdicts = []
    for option in options:
        gpu = turn.catalog.find_gpu(option["name"])
        if gpu is None:
            verdicts.append((WORDING.say(turn, "rentals_phrases.fits.not_in_the_catalog"), True))
            continue
        outcome = compare.fit_stated(turn, Option({"id": gpu.id, "name": gpu.name}, option["gpus"], True), model, task, precision, batch)
        if not outcome.ok:
            return None
        r = outcome.result
        label = f"{turn.t(*VERDICT[r['verdict']])} ({number(r['total_per_gpu_gb'])} / {number(r['gpu_capacity_gb'])} GB)"
        verdicts.append((label, r["verdict"] != "does_not_fit"))
    turn.slots.mark("model", "size")
    return verdicts


def _rates(turn: Turn) -> list[SlotValue]:
    """The hourly rents, in the order said: the n-th belongs to the n-th card."""
    rents = turn.slots.frame.slots.get("cloud_price", [])
    return sorted((v for v in rents if isinstance(v.value, Money) and v.value.per in HOURLY), key=lambda v: v.start)


def _cards(turn: Turn) -> list[SlotValue]:
    frame = turn.slots.frame
    return sorted([*frame.slots.get("gpu", []), *frame.slots.get("other_gpu", [])], key=lambda v: v.start)


def _name(turn: Turn, card: SlotValue) -> str:
    gpu = turn.catalog.find_gpu(card.value) if isinstance(card.value, str) else None
    return gpu.name if gpu else card.surface

