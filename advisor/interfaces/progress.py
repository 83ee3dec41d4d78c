"""Progress of an answer in words, and a runner that hands its events to a synchronous consumer.

The OpenAI-compatible stream sends these lines as ``reasoning_content`` (chat front ends show it
as the model's "thinking"); the web chat shows the same steps as collapsible tool messages.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from advisor.contract import AdvisorResponse, ChatTurn
from advisor.events import AnswerOptions, ProgressEvent
from advisor.interfaces.door_text import TEXT
from advisor.service import answer_with

ARGS_SHOWN_CHARS = 120


def progress_line(event: ProgressEvent, language: str) -> str:
    """One line for a stream, in the user's language; "" for events not worth showing."""
    if event.kind == "tool_start":
        args = json.dumps(event.args, ensure_ascii=False, default=str)
        args = args if len(args) <= ARGS_SHOWN_CHARS else args[: ARGS_SHOWN_CHARS - 1] + "…}"
        return f"🔧 {event.name} {args}\n"
    if event.kind == "tool_end":
        if event.call is not None and event.call.error:
            return f"⚠️ {event.name}: {event.call.error.get('code', 'error')}\n"
        return f"✓ {event.name}\n"
    if event.kind not in TEXT.entry("progress"):
        return ""
    return TEXT.pick(f"progress.{event.kind}", language, detail=event.detail) + "\n"


def event_payload(event: ProgressEvent) -> dict[str, Any]:
    """The event as JSON for clients that read it programmatically (``advisor_event`` on a chunk)."""
    payload: dict[str, Any] = {"kind": event.kind}
    if event.name:
        payload["name"] = event.name
    if event.call_id:
        payload["call_id"] = event.call_id
    if event.kind == "tool_start":
        payload["args"] = event.args
    if event.call is not None:
        payload["ok"] = event.call.error is None
    if event.detail:
        payload["detail"] = event.detail
    return payload


def run_with_progress(
    advisor, message: str, history: Sequence[ChatTurn], options: AnswerOptions | None = None, poll_s: float = 0.1
) -> Iterator[ProgressEvent | AdvisorResponse | BaseException | None]:
    """Answer in a worker thread; yield its events as they happen, ``None`` every ``poll_s`` while
    nothing happens, and finally the response (or the exception it raised)."""
    events: queue.Queue = queue.Queue()

    def work() -> None:
        try:
            events.put(answer_with(advisor, message, history, options, events.put))
        except BaseException as exc:  # handed to the consumer
            events.put(exc)

    threading.Thread(target=work, name="answer-progress", daemon=True).start()
    while True:
        try:
            item = events.get(timeout=poll_s)
        except queue.Empty:
            yield None
            continue
        yield item
        if not isinstance(item, ProgressEvent):
            return
