"""LLM mode: LangChain's ``create_agent`` over any OpenAI-compatible endpoint, tools from the registry."""

from __future__ import annotations

import json
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import StructuredTool

from advisor.agent.prompt import system_prompt
from advisor.config import LLMSettings
from advisor.contract import AdvisorResponse, ChatTurn, Language, Source, ToolCall
from advisor.registry import Registry, ToolOutcome


def build_chat_model(settings: LLMSettings) -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key,
        timeout=settings.timeout_s,
        max_retries=settings.max_retries,
        temperature=0.1,
    )


def registry_tools(registry: Registry, record: list[ToolOutcome]) -> list[StructuredTool]:
    """One LangChain tool per registry entry. The JSON schema is given as a dict so that
    validation (and its bilingual error) happens in the registry, where the model sees it."""

    def make(name: str) -> StructuredTool:
        spec = registry.spec(name)

        def run(**kwargs: Any) -> str:
            outcome = registry.call(name, kwargs)
            record.append(outcome)
            payload = outcome.result if outcome.ok else {"error": outcome.error}
            return json.dumps(payload, ensure_ascii=False, default=str)

        return StructuredTool.from_function(
            func=run,
            name=name,
            description=spec.description(),
            args_schema=spec.request_model.model_json_schema(),
        )

    return [make(name) for name in registry.names()]


class LLMAgent:
    def __init__(self, registry: Registry, model: BaseChatModel, max_steps: int = 8):
        self.registry = registry
        self.model = model
        self.max_steps = max_steps

    def answer(self, message: str, history: list[ChatTurn], language: Language) -> AdvisorResponse:
        """Raises whatever the endpoint raises; the caller falls back to offline mode."""
        record: list[ToolOutcome] = []
        agent = create_agent(self.model, registry_tools(self.registry, record), system_prompt=system_prompt(language))
        messages = [{"role": t.role, "content": t.content} for t in history]
        messages.append({"role": "user", "content": message})
        # Each step is a model call plus a tool call: bound the loop so a confused model cannot spin.
        state = agent.invoke({"messages": messages}, config={"recursion_limit": 2 * self.max_steps + 1})
        final = state["messages"][-1]
        text = final.content if isinstance(final.content, str) else _join_content(final.content)
        if not text.strip():
            raise RuntimeError("the model returned an empty answer")
        return AdvisorResponse(
            answer=text,
            language=language,
            mode="llm",
            tool_calls=[ToolCall(**o.model_dump()) for o in record],
            sources=sources_from(record),
        )


def _join_content(parts: list) -> str:
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in parts)


def sources_from(record: list[ToolOutcome]) -> list[Source]:
    seen: dict[str, Source] = {}
    for outcome in record:
        for hit in (outcome.result or {}).get("hits", []):
            seen.setdefault(hit["doc_id"], Source(doc_id=hit["doc_id"], title=hit["title"], section=hit.get("section", ""), urls=hit.get("sources", [])))
    return list(seen.values())
