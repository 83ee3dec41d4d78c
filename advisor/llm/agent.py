"""LLM mode: LangChain's ``create_agent`` over any OpenAI-compatible endpoint, tools from the registry.

Every answer is checked before it leaves: each figure with a unit must come from a tool result of
this conversation or from the user. If some do not, the model gets one repair turn that names
them; if the repaired answer still has them, LLM mode gives up and the facade answers offline.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import StructuredTool
from langgraph.errors import GraphRecursionError

from advisor.contract import AdvisorResponse, ChatTurn, Grounding, Language, Source, ToolCall
from advisor.events import AnswerOptions, Deadline, EventSink, ProgressEvent, ignore
from advisor.failure import LLMFailure
from advisor.llm.answer_run import AnswerRun, LoopSettings
from advisor.llm.chat_model import build_chat_model
from advisor.llm.grounding import build_corpus, repair_prompt, ungrounded_figures
from advisor.llm.history import history_messages, history_results
from advisor.llm.loop import EndpointMiddleware
from advisor.llm.prompt import system_prompt
from advisor.llm.resilience import Quirks, brief, failure_reason, redact, secret_values
from advisor.llm.text_tools import clean_answer
from advisor.llm.tool_guard import RegistryToolGuard
from advisor.markdown import sources_section
from advisor.registry import Registry, ToolOutcome
from advisor.tool_schema import llm_tools

__all__ = ["LLMAgent", "LoopSettings", "build_chat_model"]
log = logging.getLogger(__name__)


def registry_tools(schemas: list[dict[str, Any]]) -> list[StructuredTool]:
    """One LangChain tool per LLM-facing schema. They only describe: ``RegistryToolGuard`` runs every
    call through the registry, where validation (and its bilingual error) happens."""

    def make(function: dict[str, Any]) -> StructuredTool:
        def run(**kwargs: Any) -> str:  # never called: the guard answers every tool call
            raise RuntimeError("tool calls go through RegistryToolGuard")

        return StructuredTool.from_function(
            func=run, name=function["name"], description=function["description"], args_schema=function["parameters"]
        )

    return [make(schema["function"]) for schema in schemas]


def recursion_limit(max_steps: int) -> int:
    """Backstop on graph super-steps; the exact bound is the tool-round count in ``EndpointMiddleware``.

    A tool round takes a few super-steps (model, after-model hook, tools); broken calls skip
    the tool node, and the repair turn adds one more round.
    """
    return 10 * (max_steps + 2) + 1


class LLMAgent:
    def __init__(self, registry: Registry, model: BaseChatModel, max_steps: int = 8, loop: LoopSettings | None = None):
        self.registry = registry
        self.model = model
        self.loop = loop if loop is not None else LoopSettings(max_steps=max_steps)
        self.quirks = Quirks()  # learned from the endpoint's errors, kept for the process
        self.warning: str | None = None  # what the last answer noticed about the endpoint (e.g. truncated prompts)
        self.schemas = llm_tools(registry)
        self.tools = registry_tools(self.schemas)
        # Compiled once: each answer's state travels as the graph's runtime context (``AnswerRun``).
        self.agent = create_agent(model, self.tools, middleware=[RegistryToolGuard(), EndpointMiddleware()], context_schema=AnswerRun)

    def answer(
        self,
        message: str,
        history: Sequence[ChatTurn],
        language: Language,
        *,
        options: AnswerOptions | None = None,
        deadline: Deadline | None = None,
        on_event: EventSink = ignore,
    ) -> AdvisorResponse:
        """Raises ``LLMFailure`` when the endpoint fails or the answer cannot be grounded; the caller falls back."""
        run = AnswerRun(
            registry=self.registry, tools=self.schemas, language=language, loop=self.loop, quirks=self.quirks,
            deadline=deadline or Deadline(self.loop.deadline_s), options=options or AnswerOptions(),
            on_event=on_event, max_steps=self.loop.max_steps,
        )  # fmt: skip
        run.system = system_prompt(language, run.options.instructions)
        messages = [*history_messages(history, language), HumanMessage(content=message)]
        try:
            return self._answer(self.agent, run, message, history, messages)
        finally:
            self.warning = run.warnings[-1] if run.warnings else None

    def _answer(self, agent: Any, run: AnswerRun, message: str, history: Sequence[ChatTurn], messages: list[Any]) -> AdvisorResponse:
        language = run.language
        state = self._invoke(agent, messages, run)
        text = final_text(state)
        corpus_texts = [message, *(t.content for t in history if t.role == "user")]
        ungrounded = ungrounded_figures(text, self._corpus(run, history, corpus_texts))
        grounding = Grounding(checked=True)
        if ungrounded:
            log.info("request %s: ungrounded figures %s; asking for one repair", run.request_id or "-", ungrounded)
            run.emit(ProgressEvent("repair", detail=", ".join(ungrounded)))
            run.max_steps += 1  # the repair may need one more tool round
            state = self._invoke(agent, [*state["messages"], HumanMessage(content=repair_prompt(ungrounded, language))], run)
            text = final_text(state)
            still = ungrounded_figures(text, self._corpus(run, history, corpus_texts))
            if still:
                raise LLMFailure("ungrounded", f"after repair: {still}", ungrounded=still)
            grounding = Grounding(checked=True, ungrounded=ungrounded, repaired=True)
        sources = sources_from(run.record)
        section = sources_section(sources, language)  # the answer's one sources section, as offline answers have
        return AdvisorResponse(
            answer=f"{text}\n\n{section}" if section else text,
            language=language,
            mode="llm",
            tool_calls=[ToolCall(**o.model_dump()) for o in run.record],
            sources=sources,
            grounding=grounding,
        )

    def _invoke(self, agent: Any, messages: list[Any], run: AnswerRun) -> dict[str, Any]:
        try:
            # Bounded twice so a confused model cannot spin: each step costs an endpoint call.
            return agent.invoke({"messages": messages}, config={"recursion_limit": recursion_limit(run.max_steps)}, context=run)
        except LLMFailure as failure:  # the middleware quotes the endpoint's error text: redact it as well
            detail = redact(failure.detail, secret_values(self.model))
            raise LLMFailure(failure.reason, detail, retry_after=failure.retry_after, ungrounded=failure.ungrounded) from None
        except GraphRecursionError as exc:
            raise LLMFailure("step_limit", str(exc)) from None
        except Exception as exc:
            # Providers may quote the rejected key in their error; the detail ends up in the log.
            # ``from None``: a chained original would carry the unredacted text into tracebacks.
            raise LLMFailure(failure_reason(exc), brief(exc)) from None

    def _corpus(self, run: AnswerRun, history: Sequence[ChatTurn], texts: list[str]):
        results = [o.result for o in run.record if o.ok] + history_results(history)
        return build_corpus(results, texts, self._catalog_memory())

    def _catalog_memory(self) -> list[float]:
        """Memory sizes of catalog GPUs: quoting "a 24 GB card" needs no tool call."""
        from knowledge.catalog import Catalog

        try:
            return [gpu.memory_gb for gpu in self.registry.dependency(Catalog).gpus]
        except Exception:  # no catalog wired (a test registry): nothing to add
            return []


def final_text(state: dict[str, Any]) -> str:
    final = state["messages"][-1]
    if not isinstance(final, AIMessage):
        raise LLMFailure("empty_answer", f"last message is a {type(final).__name__}")
    raw = final.content if isinstance(final.content, str) else _join_content(final.content)
    text = clean_answer(raw)
    if not text:
        raise LLMFailure("empty_answer", "reasoning only" if final.additional_kwargs.get("reasoning_content") else "")
    return text


def _join_content(parts: list) -> str:
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in parts)


def sources_from(record: list[ToolOutcome]) -> list[Source]:
    seen: dict[str, Source] = {}
    for outcome in record:
        for hit in (outcome.result or {}).get("hits", []):
            seen.setdefault(hit["doc_id"], Source.from_hit(hit))
    return list(seen.values())
