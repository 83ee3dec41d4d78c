"""A team or company service described without a model ("an internal assistant for 250 staff, budget $90k"): the
recommendation is sized on the open model such a service usually starts from (knowledge/audience.yaml
``service_model``, by the buyer's market and the head count) and says so, instead of answering a general article and asking for a model.
Only when the conversation states an audience (a head count) and no training job: a bare "which GPU?" still asks."""

from __future__ import annotations

from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import task_of
from knowledge.audience import service_model

WORDING = Wording("recommend", "service_model")


def default_model(turn: Turn) -> tuple[str, str] | None:
    """The model to size a described team service on and the sentence that says so (it leads the verdict: the model is
    the default that moves the answer most); None when no such service is described."""
    audience = [v for v in turn.slots.frame.slots.get("audience", []) if isinstance(v.value, int | float) and not isinstance(v.value, bool)]
    if not audience or task_of(turn)[0] != "inference":
        return None
    model, size = service_model("cn" if turn.china_buyer else "global", float(audience[0].value))
    found = turn.catalog.find_model(model)
    return model, WORDING.say(turn, "assumed", model=found.name if found is not None else model, size=size, people=audience[0].surface)
