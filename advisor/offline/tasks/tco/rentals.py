"""Renting one card or another ("L4 at $0.80/hr or A10G at $1.01/hr, 24/7 for 18 months?"): each bill side by side.

A cost question that names two or more cards, each with its own hourly price, and nothing to buy is a
rental comparison: the rent-or-buy model would ask for a server price nobody mentioned. The answer runs
plan.rental_args (each rent bound to its card, the months and the hours), compare_rentals, whether a named model fits
each option, then render.rentals_lead / rentals_table.
"""

from __future__ import annotations

from advisor.labels import VERDICT
from advisor.markdown import number, table
from advisor.nlu.frame import counts_of
from advisor.offline.tasks.specs import compare
from advisor.offline.tasks.specs.compare_view import Option
from advisor.offline.tasks.tco import plan, render
from advisor.offline.turn import Turn
from advisor.offline.workload import model_of, precision_for, task_of
from advisor.offline.wording import Wording

WORDING = Wording("tco", "rentals")


def answer(turn: Turn) -> str:
    plan.gpu_hours(turn)  # first: a count read from "1000 GPU-hours a month" is no option's number of cards
    counts = counts_of(plan.rental_cards(turn), turn.slots.frame.slots.get("gpu_count", []))
    args = plan.rental_args(turn, counts)
    outcome = turn.call("compare_rentals", args)
    if not outcome.ok:
        return turn.error(outcome)
    r, months, options = outcome.result, args["months"], args["options"]
    header, rows = render.rentals_table(turn, r, months)
    fits = _fits(turn, options)
    if fits is None:
        caveat = WORDING.say(turn, "rentals_phrases.answer.this_compares_the_bills_only", first=options[0]["name"])
        return "\n\n".join([render.rentals_lead(turn, r, months, set()), table(header, rows), caveat])
    header.insert(2, WORDING.say(turn, "rentals_phrases.answer.does_the_model_fit"))
    for row, (verdict, _) in zip(rows, fits, strict=True):
        row.insert(2, verdict)
    too_small = {option["name"] for option, (_, holds) in zip(options, fits, strict=True) if not holds}
    return "\n\n".join([render.rentals_lead(turn, r, months, too_small), table(header, rows)])


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
