"""The recommend task's answer ("which GPU, how many?"): the take-overs that answer another way first (no model, several
vendors, a modded card, every training method), then plan.py's arguments, recommend_gpus, and render.py's sentences
with the lines the recommendation carries (budget, value, tiers, run time, breakdown)."""

from __future__ import annotations

from advisor.markdown import money
from advisor.offline.tasks.concept.knowledge import related
from advisor.offline.tasks.memory import fit, memory_view
from advisor.offline.tasks.memory import plan as memory_plan
from advisor.offline.tasks.memory.range_ends import small_end_lines
from advisor.offline.tasks.recommend import compute_view, full_alongside, mainland, plan, render, service_model, vendor_rows, vendor_tradeoffs
from advisor.offline.tasks.recommend.recommend_lines import budget_short, rent_or_buy, running_budget, sized_for, value_lines
from advisor.offline.tasks.serving.serving_card import stated_card, traffic_lines
from advisor.offline.tasks.specs import specs
from advisor.offline.tasks.training import run_time
from advisor.offline.takeovers import TakeOvers
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import TASK_LABEL, model_named, model_of, task_of

WORDING = Wording("recommend", "recommend")


def _model_to_size(turn: Turn) -> tuple[str | None, str | None]:
    """The model the recommendation sizes and the sentence that says it was a default ("an assistant for 250 staff": a
    stated team service's default model); (None, None) when there is neither. Read after ``model_of``."""
    model = model_named(turn)
    if model is None and (default := service_model.default_model(turn)):
        return default
    return model, None


# The words routes.yaml take_overs.recommendation may use; the order and the pairing are the table's.
TAKE_OVERS = TakeOvers(
    "recommendation",
    conditions={"sizes_a_model": lambda turn: _model_to_size(turn)[0] is not None,
                "names_gpus_here": lambda turn: bool(turn.entities.gpus), "compares_vendors": plan.compares_vendors,
                "modded_card": plan.modded_card, "compares_methods": memory_plan.compares_methods,
                "states_budget": lambda turn: bool(turn.slots.budget)},
    writers={"spec_sheet": specs.answer, "ask_for_model": fit.ask_for_model, "vendor_rows": vendor_rows.answer,
             "memory_estimate": lambda turn: fit.memory(turn, counted=recommend),
             "methods": lambda turn: fit.methods(turn, _model_to_size(turn)[0])},
)  # fmt: skip


def recommend(turn: Turn) -> str:
    model_of(turn)  # the model's slots marked and how it was read said, once, before any take-over
    taken = TAKE_OVERS.answer(turn)  # routes.yaml take_overs.recommendation: no model, several vendors, a modded card, every method
    if taken is not None:
        return taken
    model, defaulted = _model_to_size(turn)
    task, named = task_of(turn)
    budget = turn.slots.budget
    args = plan.recommend_args(turn, model, task)
    outcome = turn.call("recommend_gpus", args)
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    options = r["options"]
    label = turn.t(*TASK_LABEL[r["task"]])  # several jobs asked: the one that set the size
    if not options and turn.slots.gpus and not turn.count_asked:  # "can my 4090 do it?": the verdict for that GPU says why not
        return fit.memory(turn, counted=recommend)
    if not named:
        turn.assume(*WORDING.pair("sizing_phrases.recommend.task_serving_inference_since_none"))
    if not options:
        return "\n\n".join([WORDING.say(turn, "sizing_phrases.recommend.no_catalog_gpu_fits_for", model_label=turn.text(r['model_label']), label=label)] + [f"- {turn.text(n)}" for n in r["notes"]])
    running = running_budget(turn, r, budget.amount, budget.per) if budget else []  # "$5,000 a month": set against renting
    # a budget that buys nothing: said first, with what it does buy
    short = running or (budget_short(turn, r, budget.amount) if budget and budget.per in ("once", "all") else [])
    if short:  # the budget's verdict is this lead: the stated-limit check (offline/measure_parts.py) does not repeat it
        turn.judged.add("budget")
    lead = " ".join([*short, render.verdict(turn, r, label)])  # one paragraph: the budget's verdict, then the closest configuration
    if defaulted:  # the verdict, then the model it was sized on (the default that moves it most), then the ranking
        verdict, _, ranked = lead.partition("\n\n")
        lead = "\n\n".join(filter(None, [verdict, defaulted, ranked]))
    if args["region"] == "cn" and turn.slots.gpus:  # a named part not sold new in mainland China: said right under the verdict
        named_ids = [stated_card(turn, gpu).gpu for gpu in turn.slots.gpus]
        verdict, _, rest = lead.partition("\n\n")  # what to buy first; why it is not the part named, next
        lead = "\n\n".join(filter(None, [verdict, *mainland.blocked_of(turn, mainland.barred(turn, named_ids), then="sized_instead"), rest]))
    full = full_alongside.lines(turn, args, r) if plan.full_alongside(turn, task) else []  # a bare "fine-tune" is not only LoRA
    full += compute_view.lines(turn, model, task, r, args["workloads"]) if plan.times_compute(turn, task) else []  # tokens given: FLOPs, days, rent or buy
    parts = [lead, *vendor_tradeoffs.lines(turn, turn.entities.gpus), *full, *value_lines(turn, r), *small_end_lines(turn, r, args), *traffic_lines(turn), *render.stated_variants(turn), *rent_or_buy(turn, r), *sized_for(turn, r), *render.buying_tiers(turn, r, args["region"]),
             render.options_table(turn, r), f"_{turn.text(r['unit_note'])}_"]  # fmt: skip
    top = options[0]
    parts.append("**" + WORDING.say(turn, "sizing_phrases.recommend.why") + "**: " + "; ".join(turn.text(x) for x in top["reasons"]))
    parts += filter(None, [run_time.time_on(turn, model, task, top)])
    if r.get("estimate"):
        parts.append(memory_view.breakdown(turn, r["estimate"]))
    if not named:
        parts.append(memory_view.other_tasks(turn, model))
    parts += [f"- {turn.text(n)}" for n in r["excluded"] + r["notes"]]
    parts += memory_view.rule_of_thumb(turn, r.get("estimate"))
    parts += render.stale_prices(turn, r["stale_prices"])
    if budget and not running:
        turn.assume(*WORDING.both("sizing_phrases.recommend.budget_for_the_whole_configuration", budget=money(budget.amount, budget.currency)))
    turn.assume(*WORDING.pair("sizing_phrases.recommend.prices_are_indicative_catalog_figures"))
    assumed = list(dict.fromkeys(o["gpu_name"] for o in options if o.get("speed_assumed")))
    if assumed:  # speeds on parts no serving measurement calibrates: said, as the serving answer says it
        turn.assume(*WORDING.both("sizing_phrases.recommend.speed_assumed", gpus=turn.t(", ", "、").join(assumed)))
    related(turn, f"{label} {turn.message}")
    return "\n\n".join(parts)
