"""Test doubles for LLM mode, shipped with the package so any interface's tests can use them.

``ScriptedChatModel`` replays ``AIMessage``s inside the process (unit tests of the agent loop).
``ScriptedOpenAIServer`` is a real HTTP server on 127.0.0.1 that speaks the OpenAI
chat-completions protocol, so the production ``ChatOpenAI`` client, its timeouts, retries and
JSON parsing are exercised exactly as against vLLM or DeepSeek.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

_ids = itertools.count(1)  # tool-call and completion ids, unique across a test session


def tool_call(name: str, args: dict[str, Any], call_id: str | None = None) -> dict[str, Any]:
    """A LangChain tool call for a scripted ``AIMessage``; ids default to a fresh ``call_N``."""
    return {"name": name, "args": args, "id": call_id or f"call_{next(_ids)}", "type": "tool_call"}


class ScriptedChatModel(BaseChatModel):
    """Replays ``replies`` in order and records every message list it was called with.

    ``bind_tools`` records the tools and returns the model itself: the replies already carry
    their tool calls. Running out of replies is an error, so an agent that loops more often
    than the script expects fails loudly instead of cycling.
    """

    replies: list[AIMessage]
    received: list[list[BaseMessage]] = Field(default_factory=list)
    bound_tools: list[Any] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        self.bound_tools = list(tools)
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.received.append(list(messages))
        if len(self.received) > len(self.replies):
            raise RuntimeError(f"ScriptedChatModel was called {len(self.received)} times but has {len(self.replies)} replies")
        return ChatResult(generations=[ChatGeneration(message=self.replies[len(self.received) - 1])])


Check = Callable[[dict[str, Any]], None]


@dataclass
class Step:
    """One reply of ``ScriptedOpenAIServer``: a tool call, a final text, or a fault.

    ``check`` runs on the request body before replying; if it raises, the server answers 500 and
    re-raises the failure when its ``with`` block ends, so the test fails with the check's message.
    ``raw`` replaces the whole body (a proxy's HTML page, broken JSON); ``reasoning`` is sent as
    ``reasoning_content`` (DeepSeek, Qwen thinking models); ``headers`` go with the reply
    (e.g. ``Retry-After``); ``error`` is the error message of a non-200 reply.
    """

    text: str = ""
    tool: str | None = None
    args: dict[str, Any] | str = field(default_factory=dict)  # a str is sent verbatim: malformed JSON
    status: int = 200
    delay_s: float = 0.0
    check: Check | None = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: str | None = None
    reasoning: str | None = None
    error: str = "scripted failure"
    prompt_tokens: int | None = None  # default: the request's size / 4, as a real server roughly counts


def call(tool: str, args: dict[str, Any] | str, check: Check | None = None) -> Step:
    return Step(tool=tool, args=args, check=check)


def reply(text: str, check: Check | None = None) -> Step:
    return Step(text=text, check=check)


def fail(status: int = 500, retry_after: float | None = None, error: str = "scripted failure") -> Step:
    headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
    return Step(status=status, headers=headers, error=error)


def stall(seconds: float, then: Step | None = None) -> Step:
    """Answer only after ``seconds`` (with ``then``'s reply, or "too late"); a slow model."""
    step = then or Step(text="too late")
    return Step(**{**step.__dict__, "delay_s": seconds})


# A provider hook sees each request (body, headers) before the script does. It returns None to let
# the script answer, a Step to answer with instead (without using up the script), or (status, payload)
# to reject the request the way that server would. ``advisor.testing_providers`` has one per provider.
Provider = Callable[[dict[str, Any], dict[str, str]], "Step | tuple[int, dict[str, Any]] | None"]


class ScriptedOpenAIServer:
    """An OpenAI-compatible ``/v1/chat/completions`` endpoint on a free 127.0.0.1 port.

    Use as a context manager; ``base_url`` is what ``ADVISOR_LLM_BASE_URL`` would hold.
    ``requests`` holds every request body received, in order (tool schemas, tool results);
    ``rejected`` the bodies a provider hook refused. ``repeat_last`` answers any request past the
    script with its last step (many concurrent clients on one script).
    """

    def __init__(self, steps: Sequence[Step], provider: Provider | None = None, repeat_last: bool = False):
        self.steps = list(steps)
        self.provider = provider
        self.repeat_last = repeat_last
        self.requests: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.failures: list[str] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False  # a stalled reply must not hold up the test
        # A short poll interval: shutdown() waits for the serving loop's next poll.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), name="scripted-openai", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ScriptedOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if exc_type is None and self.failures:
            raise AssertionError("ScriptedOpenAIServer: " + "; ".join(self.failures))

    def next_step(self, body: dict[str, Any], headers: dict[str, str] | None = None) -> Step | tuple[int, dict[str, Any]]:
        if self.provider is not None:
            override = self.provider(body, headers or {})
            if isinstance(override, tuple):
                with self._lock:
                    self.rejected.append(body)
                return override
            if override is not None:
                with self._lock:
                    self.requests.append(body)
                return override
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers or {})
            index = len(self.requests) - 1
        if index >= len(self.steps):
            if self.repeat_last and self.steps:
                return self.steps[-1]
            self.failures.append(f"request {index + 1} arrived but the script has {len(self.steps)} steps")
            return fail(500)
        step = self.steps[index]
        if step.check is not None:
            try:
                step.check(body)
            except Exception as exc:  # a broken check must fail the test, not kill the handler thread
                self.failures.append(f"check of step {index + 1} failed: {type(exc).__name__}: {exc}")
                return fail(500)
        return step

    def wait(self, seconds: float) -> None:
        self._closing.wait(seconds)


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default 5 drops connections when dozens of chats call at once


def _handler_for(server: ScriptedOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if not self.path.endswith("/chat/completions"):
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            step = server.next_step(body, {k.lower(): v for k, v in self.headers.items()})
            try:
                if isinstance(step, tuple):
                    self._send_json(*step)
                    return
                if step.delay_s:
                    server.wait(step.delay_s)
                if step.status != 200:
                    self._send_json(step.status, {"error": {"message": step.error, "type": "server_error"}}, step.headers)
                elif step.raw is not None:
                    self._send(200, step.raw.encode(), "text/html; charset=utf-8", step.headers)
                elif body.get("stream"):
                    self._send_stream(_chunks(step, body))
                else:
                    self._send_json(200, _completion(step, body), step.headers)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and left: that is the point of a stalled step

        def _send(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(payload).encode(), "application/json", headers)

        def _send_stream(self, chunks: list[dict[str, Any]]) -> None:
            data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
            self._send(200, data.encode(), "text/event-stream")

    return Handler


def _openai_tool_calls(step: Step) -> list[dict[str, Any]]:
    arguments = step.args if isinstance(step.args, str) else json.dumps(step.args)
    return [{"id": f"call_{next(_ids)}", "type": "function", "function": {"name": step.tool, "arguments": arguments}}]


def _envelope(body: dict[str, Any], kind: str) -> dict[str, Any]:
    return {"id": f"chatcmpl-{next(_ids)}", "object": kind, "created": int(time.time()), "model": body.get("model", "")}


def _completion(step: Step, body: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
    if step.reasoning is not None:
        message["reasoning_content"] = step.reasoning
    if step.tool:
        message["tool_calls"] = _openai_tool_calls(step)
    finish = "tool_calls" if step.tool else "stop"
    prompt = step.prompt_tokens if step.prompt_tokens is not None else max(1, len(json.dumps(body)) // 4)
    usage = {"prompt_tokens": prompt, "completion_tokens": 1, "total_tokens": prompt + 1}
    return {**_envelope(body, "chat.completion"), "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}


def _chunks(step: Step, body: dict[str, Any]) -> list[dict[str, Any]]:
    """Server-sent chunks: the role, then the text or the whole tool call in one delta, then the stop."""
    delta: dict[str, Any] = {"role": "assistant", "content": step.text or None}
    if step.tool:
        delta["tool_calls"] = [{"index": 0, **c} for c in _openai_tool_calls(step)]
    finish = "tool_calls" if step.tool else "stop"
    envelope = _envelope(body, "chat.completion.chunk")
    return [
        {**envelope, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**envelope, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
    ]


def unused_base_url() -> str:
    """The URL of a 127.0.0.1 port nobody listens on: requests to it are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
