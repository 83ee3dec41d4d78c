"""The state of one LLM answer, carried as the agent graph's runtime context.

Kept apart from ``loop`` (which reads it) so ``tool_guard`` can name it without importing ``loop``,
which imports ``tool_guard``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from advisor.events import AnswerOptions, Deadline, EventSink, ProgressEvent, ignore
from advisor.llm.resilience import Quirks
from advisor.registry import Registry, ToolOutcome

log = logging.getLogger(__name__)


@dataclass
class LoopSettings:
    """The endpoint-facing knobs of LLM mode (``LLMSettings`` without the connection details)."""

    timeout_s: float = 60.0
    max_retries: int = 2
    max_steps: int = 8
    max_tokens: int = 2048
    deadline_s: float = 45.0
    tool_mode: str = "auto"
    extra_body: dict[str, Any] = field(default_factory=dict)


@dataclass
class AnswerRun:
    """The state of one answer: the agent graph's runtime context, read by its middleware."""

    registry: Registry
    tools: list[dict[str, Any]]  # the LLM-facing schemas, OpenAI format
    language: str
    loop: LoopSettings
    quirks: Quirks
    deadline: Deadline
    system: str = ""  # the system prompt of this answer (language, client instructions)
    options: AnswerOptions = field(default_factory=AnswerOptions)
    on_event: EventSink = ignore
    record: list[ToolOutcome] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # about the endpoint, for /healthz
    tool_rounds: int = 0
    max_steps: int = 8

    @property
    def request_id(self) -> str:
        return self.options.request_id

    @property
    def tool_names(self) -> set[str]:
        return {t["function"]["name"] for t in self.tools}

    def emit(self, event: ProgressEvent) -> None:
        try:
            self.on_event(event)
        except Exception:  # a listener that went away (closed stream) must not fail the answer
            log.debug("progress listener failed", exc_info=True)
