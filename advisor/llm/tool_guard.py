"""Agent middleware that runs every tool call through the registry and answers broken ones with its bilingual error.

Left alone, LangChain answers an unknown tool name with an English-only string, and a tool call
whose arguments are not JSON (``AIMessage.invalid_tool_calls``) ends the loop with an empty
answer. Small local models do both; here the model gets the same error payload as a bad
argument would produce, and another turn to fix its call. Each call is checked against the
answer's deadline first, recorded for the response, and reported to the progress listener.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware, hook_config
from langchain_core.messages import AIMessage, ToolMessage

from advisor.contract import ToolCall
from advisor.events import ProgressEvent
from advisor.llm.history import TOOL_RESULT_CHARS, compact_result
from advisor.llm.prompt import TEXT as LLM_TEXT
from advisor.registry import ToolOutcome
from advisor.tool_schema import run_llm_tool
from advisor.validation import malformed_json, shorten
from knowledge.bilingual import AdvisorError

if TYPE_CHECKING:
    from advisor.llm.answer_run import AnswerRun

log = logging.getLogger(__name__)
TOO_LARGE = "arguments too large"


def tool_content(outcome: ToolOutcome, language: str = "en") -> str:
    """What the model reads back from a tool: the result (compacted past ``TOOL_RESULT_CHARS``), or
    ``{"error": {code, en, zh, suggestions}}``."""
    payload = compact_result(outcome.result, language, TOOL_RESULT_CHARS) if outcome.ok else {"error": outcome.error}
    return json.dumps(payload, ensure_ascii=False, default=str)


def arguments_too_large(size: int, limit: int) -> AdvisorError:
    return AdvisorError("arguments_too_large", *LLM_TEXT.both("errors.arguments_too_large", size=size, limit=limit))


class RegistryToolGuard(AgentMiddleware):
    """Stateless: the answer's state (record, deadline, listener) is the runtime context, an ``AnswerRun``."""

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        run: AnswerRun = request.runtime.context
        call = request.tool_call
        run.deadline.check()
        outcome = run_llm_tool(run.registry, call["name"], call["args"])  # an unknown name: the registry's error
        return self._answer(run, outcome, call["id"])

    def _answer(self, run: AnswerRun, outcome: ToolOutcome, call_id: str) -> ToolMessage:
        run.record.append(outcome)
        if not outcome.ok:
            log.info("request %s: tool %s refused: %s", run.request_id or "-", outcome.name, (outcome.error or {}).get("code"))
        run.emit(ProgressEvent("tool_end", name=outcome.name, call_id=call_id, call=ToolCall(**outcome.model_dump())))
        status = "success" if outcome.ok else "error"
        return ToolMessage(tool_content(outcome, run.language), name=outcome.name, tool_call_id=call_id, status=status)

    @hook_config(can_jump_to=["model"])
    def after_model(self, state: dict[str, Any], runtime: Any) -> dict[str, Any] | None:
        run: AnswerRun = runtime.context
        last = state["messages"][-1]
        if not isinstance(last, AIMessage):
            return None
        broken = [c for c in last.invalid_tool_calls if c.get("id")]
        if not broken:
            return None
        replies = []
        for bad in broken:
            raw = bad.get("args") or ""
            detail = bad.get("error") or "unparseable arguments"
            if detail.startswith(TOO_LARGE):
                size, limit = (int(n) for n in detail.split(":", 1)[1].split("/"))
                error = arguments_too_large(size, limit)
            else:
                error = malformed_json(shorten(detail))
            log.info(
                "request %s: broken tool call %s (%s, %d chars)", run.request_id or "-", shorten(str(bad.get("name"))), error.code, len(raw)
            )
            name = bad.get("name") if isinstance(bad.get("name"), str) else ""
            outcome = ToolOutcome(name=name, args={"raw_arguments": shorten(raw)}, error=error.to_dict())
            replies.append(self._answer(run, outcome, bad["id"]))
        update: dict[str, Any] = {"messages": replies}
        if not last.tool_calls:  # nothing for the tool node to run: give the model its turn directly
            update["jump_to"] = "model"
        return update
