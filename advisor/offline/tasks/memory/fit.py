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
from advisor.offline.workload import TASK_LABEL, model_of, task_of

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


def memory(turn: Turn, counted: Callable[[Turn], str]) -> str:
    """How much memory a workload takes, and whether it fits the stated card: the take-overs that answer another way
    first (``counted``, the recommendation, answers a count of the named cards), then plan.py's arguments, the estimate
    (or the limits), and render.py's sentences."""
    model = model_of(turn)
    if model is None:  # "how much memory has the H20" asks about the card, not a workload
        return specs.answer(turn) if turn.entities.gpus else ask_for_model(turn)
    if plan.compares_methods(turn):  # "full, LoRA or QLoRA?": every method asked, each with the cards it takes
        return methods(turn, model)
    if turn.count_asked and turn.slots.gpus and not modded_card(turn):  # "and how many if all 910B?": the fewest of that card that hold it
        return counted(turn)
    if len(set(turn.entities.gpus)) > 1:  # "can the H20 beat the H100 on a 72B?": every named card sized and timed
        compared = compare.route(turn)
        if compared is not None:
            return compared
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
    answer = render.estimate(turn, outcome.result, args, task, card)
    said = sensitivity.lines(turn, args, outcome.result)  # "fits at 4k tokens; at 32k it does not": said next to the verdict
    if said:
        first, _, rest = answer.partition("\n\n")
        answer = "\n\n".join(filter(None, [first, *said, rest]))
    related(turn, f"memory {turn.t(*TASK_LABEL[task])} {turn.message}")
    return answer
