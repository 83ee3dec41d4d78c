"""What a caller can pass into one answer (client options, a deadline) and what it hears back while it runs."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from advisor.contract import ToolCall
from advisor.failure import LLMFailure

EventKind = Literal["tool_start", "tool_end", "retry", "repair", "fallback"]


@dataclass(frozen=True)
class AnswerOptions:
    """Per-request settings from the client (the OpenAI-compatible API passes its own)."""

    temperature: float | None = None
    max_tokens: int | None = None
    instructions: str = ""  # the client's system message; the advisor's rules come first
    request_id: str = ""
    prices: str = ""  # prices YAML pasted in the web UI's settings (already validated): in force for this answer only


@dataclass(frozen=True)
class ProgressEvent:
    """One step of an answer in progress: a tool starting or finishing, a retry, a repair, a fallback."""

    kind: EventKind
    name: str = ""
    call_id: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    call: ToolCall | None = None  # tool_end: what the tool returned
    detail: str = ""


EventSink = Callable[[ProgressEvent], None]


def ignore(event: ProgressEvent) -> None:
    pass


class Deadline:
    """One wall-clock limit for a whole answer; ``expire()`` lets the caller stop a run it gave up on."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic):
        self.seconds = seconds
        self.clock = clock
        self.at = clock() + seconds
        self._expired = threading.Event()

    def remaining(self) -> float:
        return 0.0 if self._expired.is_set() else max(0.0, self.at - self.clock())

    def passed(self) -> bool:
        return self.remaining() <= 0

    def expire(self) -> None:
        self._expired.set()

    def check(self) -> None:
        """Raise ``LLMFailure("deadline")`` once the time is up; called before every model and tool call."""
        if self.passed():
            raise LLMFailure("deadline", f"no answer within {self.seconds:g} s")

    def sleep(self, seconds: float) -> bool:
        """Wait ``seconds`` unless that would pass the deadline (then return False at once, without waiting)."""
        if seconds >= self.remaining():
            return False
        return not self._expired.wait(seconds)
