"""Agent middleware that answers tool calls the registry cannot run with the registry's bilingual error.

Left alone, LangChain answers an unknown tool name with an English-only string, and a tool call
whose arguments are not JSON (``AIMessage.invalid_tool_calls``) ends the loop with an empty
answer. Small local models do both; here the model gets the same error payload as a bad
argument would produce, and another turn to fix its call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, hook_config
from langchain_core.messages import AIMessage, ToolMessage

from advisor.registry import Registry, ToolOutcome
from advisor.validation import malformed_json, shorten


def tool_content(outcome: ToolOutcome) -> str:
    """What the model reads back from a tool: the result, or ``{"error": {code, en, zh, suggestions}}``."""
    payload = outcome.result if outcome.ok else {"error": outcome.error}
    return json.dumps(payload, ensure_ascii=False, default=str)


class RegistryToolGuard(AgentMiddleware):
    def __init__(self, registry: Registry, record: list[ToolOutcome]):
        super().__init__()
        self.registry = registry
        self.record = record

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        if request.tool is not None:
            return handler(request)
        call = request.tool_call
        outcome = self.registry.call(call["name"], call["args"])  # an unknown name: the registry's error
        self.record.append(outcome)
        return ToolMessage(tool_content(outcome), name=call["name"], tool_call_id=call["id"], status="error")

    @hook_config(can_jump_to=["model"])
    def after_model(self, state: dict[str, Any], runtime: Any) -> dict[str, Any] | None:
        last = state["messages"][-1]
        if not isinstance(last, AIMessage):
            return None
        broken = [c for c in last.invalid_tool_calls if c.get("id")]
        if not broken:
            return None
        replies = []
        for bad in broken:
            error = malformed_json(shorten(bad.get("error") or "unparseable arguments"))
            raw = {"raw_arguments": shorten(bad.get("args") or "")}  # as the registry records non-dict args
            outcome = ToolOutcome(name=bad.get("name") or "", args=raw, error=error.to_dict())
            self.record.append(outcome)
            replies.append(ToolMessage(tool_content(outcome), name=outcome.name, tool_call_id=bad["id"], status="error"))
        update: dict[str, Any] = {"messages": replies}
        if not last.tool_calls:  # nothing for the tool node to run: give the model its turn directly
            update["jump_to"] = "model"
        return update
