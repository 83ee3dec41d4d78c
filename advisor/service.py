"""The facade every interface calls: LLM mode when an endpoint is configured, offline planner otherwise.

LLM mode gets one deadline per answer and runs in its own thread, so the answer arrives in time
even if a request to the endpoint hangs past its timeout. A circuit breaker skips an endpoint that
keeps failing, and ``health()`` tells /healthz whether answers really come from the model.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.contract import AdvisorResponse, ChatTurn, Grounding
from advisor.events import AnswerOptions, Deadline, EventSink, ProgressEvent, ignore
from advisor.failure import LLMFailure
from advisor.language import detect_language
from advisor.llm.history import ToolMemory, with_tool_calls
from advisor.llm.resilience import ENDPOINT_FAILURES, CircuitBreaker
from advisor.offline.planner import OfflinePlanner
from advisor.proposal.wording import is_proposal_command
from knowledge.catalog import pasted_prices
from knowledge.price_overrides import session_prices
from knowledge.wording import Wording

if TYPE_CHECKING:  # LangChain is imported only when an LLM endpoint is configured
    from advisor.llm.agent import LLMAgent

log = logging.getLogger(__name__)
GRACE_S = 0.25  # past the deadline, the answer thread is abandoned (it stops at its next step)

TEXT = Wording(Path(__file__).with_name("messages_text.yaml"))


def fallback_notice(reason: str, language: str, *, seconds: float = 0, figures: Sequence[str] = ()) -> str:
    if reason == "ungrounded":
        return TEXT.pick("fallback.ungrounded", language, figures=", ".join(figures))
    known = reason if reason in TEXT.entry("fallback.reasons") else "error"
    return TEXT.pick("fallback.notice", language, reason=TEXT.pick(f"fallback.reasons.{known}", language, seconds=seconds))


def answer_with(
    advisor, message: str, history: Sequence[ChatTurn], options: AnswerOptions | None = None, on_event: EventSink | None = None
):
    """``advisor.answer`` with client options and a progress listener, when that advisor takes them
    (an advisor in another process, or a test double, may answer with the question and history only)."""
    try:
        accepted = inspect.signature(advisor.answer).parameters
    except (TypeError, ValueError):
        accepted = {}
    extra = {name: value for name, value in (("options", options), ("on_event", on_event)) if name in accepted and value is not None}
    with session_prices(pasted_prices(options.prices) if options is not None and options.prices else None):
        return advisor.answer(message, list(history), **extra)


def llm_health(advisor) -> LLMHealth:
    """The advisor's LLM health without building anything: an advisor that cannot tell reports "unknown"."""
    if callable(getattr(type(advisor), "health", None)):
        return advisor.health()
    return LLMHealth("off" if getattr(advisor, "mode", "offline") == "offline" else "unknown")


@dataclass(frozen=True)
class LLMHealth:
    status: str  # "off" | "ok" | "degraded" | "unknown"
    reason: str | None = None


class Advisor:
    def __init__(
        self,
        planner: OfflinePlanner,
        llm: LLMAgent | None = None,
        *,
        deadline_s: float | None = None,
        breaker: CircuitBreaker | None = None,
        memory: ToolMemory | None = None,
    ):
        self.planner = planner
        self.llm = llm
        self.deadline_s = deadline_s if deadline_s is not None else (llm.loop.deadline_s if llm else 45.0)
        self.breaker = breaker or CircuitBreaker()
        self.memory = memory or ToolMemory()
        self._last_fallback: str | None = None

    @property
    def mode(self) -> str:
        return "llm" if self.llm else "offline"

    def health(self) -> LLMHealth:
        """Whether answers come from the model right now; cheap enough for every /healthz call."""
        if self.llm is None:
            return LLMHealth("off")
        state, reason, wait = self.breaker.state()
        if state == "open":
            return LLMHealth(
                "degraded", f"circuit open after {self.breaker.streak} failures in a row (last: {reason}); next try in {wait:.0f} s"
            )
        if state == "half_open":
            return LLMHealth("degraded", f"circuit half-open after failures (last: {reason}); the next answer probes the endpoint")
        if self._last_fallback:
            return LLMHealth("degraded", f"the last answer fell back to offline mode ({self._last_fallback})")
        if self.llm.warning:
            return LLMHealth("degraded", self.llm.warning)
        return LLMHealth("ok")

    def answer(
        self,
        message: str,
        history: Sequence[ChatTurn] = (),
        options: AnswerOptions | None = None,
        on_event: EventSink | None = None,
    ) -> AdvisorResponse:
        """Answer ``message``; ``on_event`` hears about tool steps while LLM mode works (never raises)."""
        history = list(history)
        if is_proposal_command(message):  # "make this a proposal": the document for the conversation so far, in either mode
            from advisor.proposal.chat import proposal_reply  # matplotlib and fpdf2 load only when a proposal is asked for

            return proposal_reply(self.planner, message, history)
        if self.llm is None or not message.strip():
            response = self.planner.answer(message, history)
        else:
            response = self._llm_answer(message, with_tool_calls(history, self.memory), options or AnswerOptions(), on_event or ignore)
        self.memory.remember(response.answer, response.tool_calls, response.language)
        return response

    def _llm_answer(self, message: str, history: list[ChatTurn], options: AnswerOptions, emit: EventSink) -> AdvisorResponse:
        if not self.breaker.allow():
            log.info("request %s: circuit open, answering offline", options.request_id or "-")
            return self._fallback(message, history, "circuit_open", emit)
        try:
            response = self._within_deadline(message, history, options, emit)
        except Exception as exc:  # any endpoint failure (or agent bug): the user still gets an answer
            failure = exc if isinstance(exc, LLMFailure) else LLMFailure("error", type(exc).__name__)
            if failure.reason in ENDPOINT_FAILURES:
                self.breaker.record_failure(failure.reason, failure.retry_after)
            else:  # the endpoint answered; the model did not manage
                self.breaker.record_success()
            self._last_fallback = failure.reason
            log.warning("request %s: LLM mode failed (%s); falling back to offline mode", options.request_id or "-", failure)
            return self._fallback(message, history, failure.reason, emit, failure.ungrounded)
        self.breaker.record_success()
        self._last_fallback = None
        return response

    def _within_deadline(self, message: str, history: list[ChatTurn], options: AnswerOptions, emit: EventSink) -> AdvisorResponse:
        deadline = Deadline(self.deadline_s)
        language = detect_language(message)
        finished = threading.Event()
        abandoned = threading.Event()
        box: dict[str, object] = {}

        def relay(event: ProgressEvent) -> None:
            if not abandoned.is_set():
                emit(event)

        def work() -> None:
            try:
                box["response"] = self.llm.answer(message, history, language, options=options, deadline=deadline, on_event=relay)
            except BaseException as exc:  # handed to the caller's thread
                box["error"] = exc
            finally:
                finished.set()

        # run in a copy of this context: a web session's pasted prices stay in force for the model's tool calls
        threading.Thread(target=contextvars.copy_context().run, args=(work,), name=f"llm-answer-{options.request_id or 'local'}", daemon=True).start()
        if not finished.wait(deadline.remaining() + GRACE_S):
            abandoned.set()
            deadline.expire()  # the thread stops at its next model or tool call
            raise LLMFailure("deadline", f"no answer within {self.deadline_s:g} s")
        if "error" in box:
            raise box["error"]  # type: ignore[misc]
        return box["response"]  # type: ignore[return-value]

    def _fallback(
        self, message: str, history: list[ChatTurn], reason: str, emit: EventSink, ungrounded: Sequence[str] = ()
    ) -> AdvisorResponse:
        emit(ProgressEvent("fallback", detail=reason))
        response = self.planner.answer(message, history)
        notice = fallback_notice(reason, response.language, seconds=self.deadline_s, figures=ungrounded)
        update = {"notice": notice, "answer": f"> {notice}\n\n{response.answer}"}
        if reason == "ungrounded":
            update["grounding"] = Grounding(checked=True, ungrounded=list(ungrounded))
        return response.model_copy(update=update)
