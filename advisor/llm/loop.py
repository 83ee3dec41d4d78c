"""One answer's model calls: deadline, retries with Retry-After, provider quirks, text tool calls, step limit.

``EndpointMiddleware`` wraps every model call of the agent graph. Before the call it sets the
per-call timeout to what is left of the answer's deadline, the token limit and the client's
temperature, and (for servers that refuse ``tools``) writes the tools and earlier calls as text.
After it, tool calls the model wrote as text become real ones, oversized arguments become an
error for the model, and a model that keeps calling tools past ``max_steps`` is stopped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import ModelResponse
from langchain_core.messages import AIMessage, SystemMessage

from advisor.events import ProgressEvent
from advisor.failure import LLMFailure
from advisor.llm.answer_run import AnswerRun
from advisor.llm.resilience import backoff_s, brief, failure_reason, is_retryable, quirk_of, retry_after_s
from advisor.llm.text_tools import parse_message, textify, tools_prompt
from advisor.llm.tool_guard import TOO_LARGE
from advisor.validation import shorten

log = logging.getLogger(__name__)
MAX_TOOL_ARGS_CHARS = 50_000  # a pasted log fits; a 1 MB argument is refused before it runs or goes back to the model
MIN_CLIENT_TOKENS = 256  # a client's tiny max_tokens must not cut a tool call in half
TRUNCATION_RATIO = 0.8  # the server counted under 80% of chars/4: it cut the prompt to fit its context window
MIN_CHECKED_PROMPT_TOKENS = 1500


class EndpointMiddleware(AgentMiddleware):
    """Stateless: the answer's state is the graph's runtime context (an ``AnswerRun``), so one
    compiled agent serves every answer."""

    # --- before the call -----------------------------------------------------------------------
    def _settings(self, run: AnswerRun, model: Any) -> dict[str, Any]:
        options = run.options
        tokens = run.loop.max_tokens
        if options.max_tokens:
            tokens = min(tokens, max(MIN_CLIENT_TOKENS, options.max_tokens))
        settings: dict[str, Any] = {"max_tokens": tokens, "timeout": max(0.05, min(run.loop.timeout_s, run.deadline.remaining()))}
        if options.temperature is not None:
            settings["temperature"] = min(2.0, max(0.0, options.temperature))
        if run.quirks.no_thinking and hasattr(model, "extra_body"):
            settings["extra_body"] = {**run.loop.extra_body, "enable_thinking": False}
        if run.quirks.completion_tokens and hasattr(model, "completion_tokens_field"):
            model.completion_tokens_field = True
        return settings

    def _prepare(self, run: AnswerRun, request: Any) -> Any:
        settings = self._settings(run, request.model)
        if not (run.quirks.text_tools or run.loop.tool_mode == "text"):
            return request.override(system_message=SystemMessage(content=run.system), model_settings=settings)
        return request.override(
            tools=[],
            messages=textify(list(request.messages)),
            system_message=SystemMessage(content=f"{run.system}{tools_prompt(run.tools)}"),
            model_settings=settings,
        )

    # --- the call, retried within the deadline ---------------------------------------------------
    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        run: AnswerRun = request.runtime.context
        attempt = 0
        while True:
            run.deadline.check()
            prepared = self._prepare(run, request)
            try:
                response = handler(prepared)
                break
            except LLMFailure:
                raise
            except Exception as exc:
                self._recover(run, request.model, exc, attempt)
                attempt += 0 if quirk_of(exc) else 1
        message = response.result[-1] if response.result else None
        if not isinstance(message, AIMessage):
            return response
        self._check_truncation(run, message, prepared)
        message = self._bound_arguments(run, parse_message(message, run.tool_names))
        if message.tool_calls or message.invalid_tool_calls:
            if run.tool_rounds >= run.max_steps:
                raise LLMFailure("step_limit", f"still calling tools after {run.max_steps} rounds")
            run.tool_rounds += 1
            for call in message.tool_calls:
                run.emit(ProgressEvent("tool_start", name=call["name"], call_id=call["id"] or "", args=call["args"]))
        return ModelResponse(result=[*response.result[:-1], message], structured_response=response.structured_response)

    def _recover(self, run: AnswerRun, model: Any, exc: Exception, attempt: int) -> None:
        """Return to try again (after any wait); raise ``LLMFailure`` when this answer must give up."""
        reason = failure_reason(exc)
        quirk = quirk_of(exc)
        if quirk and run.quirks.learn(quirk):
            log.warning(
                "request %s: endpoint rejected the request (%s); switching to %s and retrying",
                run.request_id or "-",
                brief(exc),
                quirk,
            )
            return
        if run.deadline.passed():
            raise LLMFailure("deadline", f"last error {reason}") from None
        wait = retry_after_s(exc)
        if not is_retryable(exc) or attempt >= run.loop.max_retries:
            raise LLMFailure(reason, brief(exc), retry_after=wait) from None
        wait = backoff_s(attempt) if wait is None else wait
        log.info("request %s: endpoint %s, attempt %d; retrying in %.1f s", run.request_id or "-", reason, attempt + 1, wait)
        run.emit(ProgressEvent("retry", detail=reason))
        if not run.deadline.sleep(wait):  # the wait would pass the deadline: give up now rather than at it
            raise LLMFailure(reason, f"asked to wait {wait:.0f} s, {run.deadline.remaining():.1f} s left", retry_after=wait) from None

    # --- after the call -------------------------------------------------------------------------
    def _bound_arguments(self, run: AnswerRun, message: AIMessage) -> AIMessage:
        calls, invalid = [], list(message.invalid_tool_calls)
        for call in message.tool_calls:
            size = len(json.dumps(call["args"], ensure_ascii=False, default=str))
            if size <= MAX_TOOL_ARGS_CHARS:
                calls.append(call)
                continue
            log.warning("request %s: tool call %s with %d characters of arguments refused", run.request_id or "-", call["name"], size)
            invalid.append({"name": call["name"], "args": shorten(json.dumps(call["args"], default=str), 200), "id": call["id"],
                            "error": f"{TOO_LARGE}:{size}/{MAX_TOOL_ARGS_CHARS}", "type": "invalid_tool_call"})  # fmt: skip
        if len(calls) == len(message.tool_calls):
            return message
        return message.model_copy(update={"tool_calls": calls, "invalid_tool_calls": invalid})

    def _check_truncation(self, run: AnswerRun, message: AIMessage, request: Any) -> None:
        """Ollama cuts prompts longer than its context window silently; its token count gives it away.

        Only a warning (log and /healthz): token counts are the server's word, and the grounding
        check already stops the invented figures a model that lost its tools would write.
        """
        reported = (message.usage_metadata or {}).get("input_tokens") or 0
        sent = sum(len(str(m.content)) for m in request.messages) + len(
            str(request.system_message.content if request.system_message else "")
        )
        sent += len(json.dumps(run.tools)) if request.tools else 0
        estimate = sent // 4
        if estimate >= MIN_CHECKED_PROMPT_TOKENS and 0 < reported < TRUNCATION_RATIO * estimate:
            warning = (f"the endpoint counted {reported} prompt tokens for about {estimate} sent: it truncates prompts, "
                       "so raise the model's context window (Ollama: OLLAMA_CONTEXT_LENGTH or num_ctx)")  # fmt: skip
            log.warning("request %s: %s", run.request_id or "-", warning)
            run.warnings.append(warning)
