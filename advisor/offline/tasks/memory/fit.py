"""The memory task's answer ("how much memory, does it fit?") and the two answers the recommendation shares with it
(no model named yet; every training method asked). The recommendation is passed in (``sizing.memory`` passes it) rather
than imported, because it falls back on this answer itself (a modded card, no option for the named card)."""

from __future__ import annotations

from typing import Callable

from advisor.offline.tasks.concept import knowledge
from advisor.offline.tasks.concept.knowledge import related
from advisor.offline.tasks.memory import methods_view, plan, render, sensitivity
from advisor.offline.tasks.recommend.plan import modded_card
from advisor.offline.tasks.serving.serving_card import stated_card
from advisor.offline.tasks.specs import compare, specs
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.takeovers import TakeOvers
from advisor.offline.workload import TASK_LABEL, model_named, model_of, task_of

WORDING = Wording("memory", "sizing")


def ask_for_model(turn: Turn) -> str:
    """No model yet: what the knowledge base says about the question, then the one thing needed to calculate. A KV-cache
    question is sized by the model alone: what the cache is made of and the one question that sizes it, no card beside it."""
    missing = plan.kv_cache_missing(turn)
    if missing is not None:
        context = turn.slots.context_length
        return WORDING.say(turn, f"sizing_phrases.ask_for_model.kv_cache.{missing}", context=f"{context:,}" if context else "")
    return knowledge.concept(turn) + "\n\n" + WORDING.say(turn, "sizing_phrases.ask_for_model.which_model_or_how_many")


def methods(turn: Turn, model: str) -> str:
    card = stated_card(turn, turn.slots.gpus[0]) if turn.slots.gpus else None
    stated_gb = card.memory_gb if card else turn.slots.gpu_memory_gb  # "a modded 48 GB 4090", "my 24 GB card": as said
    return methods_view.answer(turn, model, {"model": model, "context": turn.slots.context_length, "batch": turn.slots.batch_size, "gpu_memory_gb": stated_gb})


# The words routes.yaml take_overs.memory_estimate may use; the order and the pairing are the table's.
TAKE_OVERS = TakeOvers(
    "memory_estimate",
    conditions={"names_model": model_named, "compares_methods": plan.compares_methods,
                "count_asked": lambda turn: turn.count_asked, "states_gpus": lambda turn: bool(turn.slots.gpus),
                "modded_card": modded_card, "names_several_gpus": lambda turn: len(set(turn.entities.gpus)) > 1,
                "names_gpus_here": lambda turn: bool(turn.entities.gpus)},
    writers={"spec_sheet": specs.answer, "ask_for_model": ask_for_model, "methods": lambda turn: methods(turn, model_named(turn)),
             "sized_comparison": compare.route},
    given=("recommendation",),
)  # fmt: skip


def memory(turn: Turn, counted: Callable[[Turn], str]) -> str:
    """How much memory a workload takes, and whether it fits the stated card: the take-overs that answer another way
    first (routes.yaml take_overs.memory_estimate; ``counted``, the recommendation, answers a count of the named cards),
    then plan.py's arguments, the estimate (or the limits), and render.py's sentences."""
    model = model_of(turn)  # the model's slots marked and how it was read said, once, before any take-over
    taken = TAKE_OVERS.answer(turn, recommendation=counted)
    if taken is not None:
        return taken
    task, named = task_of(turn)
    if not named:
        turn.assume(*WORDING.pair("sizing_phrases.memory.serving_inference_since_no_training"))
    args, card = plan.memory_args(turn, model, task)
    if plan.asks_limits(turn, args):
        outcome = turn.call("max_fit", plan.limits_args(turn, args))
        return render.limits(turn, outcome.result) if outcome.ok else turn.error(outcome)
    outcome = turn.call("estimate_memory", args)
    if not outcome.ok:
        return turn.error(outcome)
    working = plan.working_format(turn, outcome.result)
    sized = None
    if working is not None:  # the lead answers yes in a lower-bit format on the user's cards: the body shows that estimate
        rerun = turn.call("estimate_memory", plan.route_args(args, working, outcome.result["fit_plan"]["your_count"]))
        sized = rerun.result if rerun.ok else None
    answer = render.estimate(turn, outcome.result, args, task, card, working=working, sized=sized)
    said = sensitivity.lines(turn, args, outcome.result)  # "fits at 4k tokens; at 32k it does not": said next to the verdict
    if said:
        first, _, rest = answer.partition("\n\n")
        answer = "\n\n".join(filter(None, [first, *said, rest]))
    related(turn, f"memory {turn.t(*TASK_LABEL[task])} {turn.message}")
    return answer
