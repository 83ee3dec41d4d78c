"""Offline mode: a deterministic bilingual planner that calls the same tools as the LLM agent.

It reads the message (and, for follow-ups, the earlier user turns), picks the intent, fills
tool arguments from what it understood plus stated defaults, and renders the verdict first,
then a small table, the assumptions and the sources.
"""

from __future__ import annotations

from collections.abc import Callable

from advisor.agent.answers import costs, guard, knowledge, sizing, specs, trouble
from advisor.agent.markdown import escape_raw_html
from advisor.agent.slots import merge_slots
from advisor.agent.turn import Turn
from advisor.contract import AdvisorResponse, ChatTurn, ToolCall
from advisor.entities import Entities, extract
from advisor.intents import classify_intent
from advisor.registry import Registry
from knowledge.catalog import Catalog, load_catalog

Handler = Callable[[Turn], str]
HANDLERS: dict[str, Handler] = {
    "troubleshoot": trouble.answer,
    "training_time": costs.training_time,
    "tco": costs.tco,
    "memory": sizing.memory,
    "recommend": sizing.recommend,
    "compare": specs.answer,
    "knowledge": knowledge.answer,
}
# Cue phrases weigh at least this much; entity-only evidence ("a GPU was named") weighs less.
CUE_WEIGHT = 1.0
# Earlier turns only fill gaps for follow-ups ("那如果用QLoRA呢？"); a long history adds nothing.
HISTORY_TURNS = 6


class OfflinePlanner:
    def __init__(self, registry: Registry, catalog: Catalog | None = None):
        self.registry = registry
        self.catalog = catalog or load_catalog()

    def answer(self, message: str, history: list[ChatTurn]) -> AdvisorResponse:
        entities = extract(message, self.catalog)
        earlier = [extract(t.content, self.catalog) for t in history if t.role == "user"][-HISTORY_TURNS:]
        turn = Turn(
            message=message,
            language=entities.language,
            entities=entities,
            slots=merge_slots(earlier + [entities]),
            registry=self.registry,
            catalog=self.catalog,
        )
        body = self._route(turn, earlier, history)
        if turn.assumptions:
            body += "\n\n**" + turn.t("Assumptions", "假设") + "**\n" + "\n".join(f"- {a}" for a in turn.assumptions)
        if turn.sources:
            body += "\n\n**" + turn.t("Sources", "参考资料") + "**\n" + "\n".join(
                f"- {s.title}" + (f" — {s.section}" if s.section else "") + (f" ({s.urls[0]})" if s.urls else (f" ({s.citation})" if s.citation else ""))
                for s in turn.sources
            )
        return AdvisorResponse(
            answer=escape_raw_html(body),  # answers echo user text; none of it may become live HTML
            language=turn.language,
            mode="offline",
            tool_calls=[ToolCall(**o.model_dump()) for o in turn.calls],
            sources=turn.sources,
        )

    def _route(self, turn: Turn, earlier: list[Entities], history: list[ChatTurn]) -> str:
        unreadable = guard.unreadable(turn)
        if unreadable:
            return unreadable
        ranked = classify_intent(turn.message, turn.entities)
        intents = [i.name for i in ranked]
        if not ranked or ranked[0].score < CUE_WEIGHT:
            # Only entities, no cue phrase ("那用4张4090呢？"): a follow-up continues the last question.
            intents = self._follow_up_intent(history, earlier) or intents or _default_intent(turn)
        prefix = ""
        if "injection" in intents:
            prefix = guard.injection(turn)
            intents = [i for i in intents if i not in ("injection", "out_of_scope")]
            if not intents:
                return prefix
        top = intents[0]
        if top == "out_of_scope":
            return guard.out_of_scope(turn)
        return (prefix + "\n\n" if prefix else "") + HANDLERS[top](turn)

    def _follow_up_intent(self, history: list[ChatTurn], earlier: list[Entities]) -> list[str]:
        """A bare follow-up ("and with 4 GPUs?") continues the last answerable question."""
        users = [t.content for t in history if t.role == "user"][-len(earlier) :] if earlier else []
        for text, entities in zip(reversed(users), reversed(earlier)):
            names = [i.name for i in classify_intent(text, entities) if i.name not in ("injection", "out_of_scope")]
            if names:
                return names[:1]
        return []


def _default_intent(turn: Turn) -> list[str]:
    """Nothing explicit: a model size means sizing, a GPU name means specs, else look it up."""
    if turn.entities.models or turn.entities.params:
        return ["recommend"]
    if turn.entities.gpus:
        return ["compare"]
    return ["knowledge"]
