"""LLM mode: LangChain's ``create_agent`` over any OpenAI-compatible endpoint, tools from the registry."""

from __future__ import annotations

import sys
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import ModelCallLimitMiddleware
from langchain.agents.middleware.model_call_limit import ModelCallLimitExceededError
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import StructuredTool
from langgraph.errors import GraphRecursionError
from pydantic import SecretStr

from advisor.agent.failure import LLMFailure
from advisor.agent.prompt import system_prompt
from advisor.agent.tool_guard import RegistryToolGuard, tool_content
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
        # Not model_kwargs: those land at the top level, where non-OpenAI fields are rejected.
        extra_body=settings.extra_body or None,
    )


def registry_tools(registry: Registry, record: list[ToolOutcome]) -> list[StructuredTool]:
    """One LangChain tool per registry entry. The JSON schema is given as a dict so that
    validation (and its bilingual error) happens in the registry, where the model sees it."""

    def make(name: str) -> StructuredTool:
        spec = registry.spec(name)

        def run(**kwargs: Any) -> str:
            outcome = registry.call(name, kwargs)
            record.append(outcome)
            return tool_content(outcome)

        return StructuredTool.from_function(
            func=run,
            name=name,
            description=spec.description(),
            args_schema=spec.request_model.model_json_schema(),
        )

    return [make(name) for name in registry.names()]


def failure_reason(exc: Exception) -> str:
    if isinstance(exc, (ModelCallLimitExceededError, GraphRecursionError)):
        return "step_limit"
    openai = sys.modules.get("openai")  # not imported yet: the error cannot be the SDK's, skip the slow import
    if openai is None:
        return "error"
    if isinstance(exc, openai.APITimeoutError):  # before APIConnectionError: it is a subclass
        return "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return "unreachable"
    if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
        return "auth"
    if isinstance(exc, openai.RateLimitError):
        return "rate_limited"
    if isinstance(exc, openai.APIStatusError):
        return "server_error"
    return "error"


def secret_values(model: BaseChatModel) -> list[str]:
    """The keys a chat model holds (its ``SecretStr`` fields, e.g. ChatOpenAI's API key)."""
    values = (v.get_secret_value() for v in vars(model).values() if isinstance(v, SecretStr))
    return [v for v in values if len(v) >= 4]  # a one-letter "key" would blank out ordinary text


def redact(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "[redacted]")
    return text


def recursion_limit(max_steps: int) -> int:
    """Backstop on graph super-steps; the exact bound is the model-call limit.

    A tool round takes five super-steps (limit check, model, two after-model hooks, tools);
    twice that leaves room for broken calls, which skip the tool node.
    """
    return 10 * (max_steps + 1) + 1


class LLMAgent:
    def __init__(self, registry: Registry, model: BaseChatModel, max_steps: int = 8):
        self.registry = registry
        self.model = model
        self.max_steps = max_steps

    def answer(self, message: str, history: list[ChatTurn], language: Language) -> AdvisorResponse:
        """Raises ``LLMFailure`` when the endpoint fails; the caller falls back to offline mode."""
        record: list[ToolOutcome] = []
        agent = create_agent(
            self.model,
            registry_tools(self.registry, record),
            system_prompt=system_prompt(language),
            # The guard comes first so its after-model hook runs last (hooks run in reverse)
            # and its jump back to the model cannot skip the call counter's hook.
            middleware=[
                RegistryToolGuard(self.registry, record),
                # max_steps tool rounds, plus the call that writes the answer.
                ModelCallLimitMiddleware(run_limit=self.max_steps + 1, exit_behavior="error"),
            ],
        )
        messages = [{"role": t.role, "content": t.content} for t in history]
        messages.append({"role": "user", "content": message})
        try:
            # Bounded twice so a confused model cannot spin: each step costs an endpoint call.
            state = agent.invoke({"messages": messages}, config={"recursion_limit": recursion_limit(self.max_steps)})
        except Exception as exc:
            # Providers may quote the rejected key in their error; the detail ends up in the log.
            # ``from None``: a chained original would carry the unredacted text into tracebacks.
            raise LLMFailure(failure_reason(exc), redact(str(exc), secret_values(self.model))) from None
        final = state["messages"][-1]
        text = final.content if isinstance(final.content, str) else _join_content(final.content)
        if not text.strip():
            raise LLMFailure("empty_answer")
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
            seen.setdefault(hit["doc_id"], Source.from_hit(hit))
    return list(seen.values())
