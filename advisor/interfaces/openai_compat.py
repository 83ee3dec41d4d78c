"""OpenAI-compatible chat endpoint, so chat front-ends and SDKs can use the advisor as a "model".

The advisor is stateless per request: the last user message is the question and earlier
user/assistant messages are its history. In LLM mode the client's ``temperature``,
``max_tokens`` and system message are passed on (the system message after the advisor's own
rules, which it cannot override); the offline planner ignores them. Tool messages from the
client are ignored: the advisor's tools are its own.

With ``stream: true`` the role chunk goes out at once, tool steps follow as they happen (as
``reasoning_content``, which chat front ends show as thinking, plus an ``advisor_event``
extension), SSE comment lines keep idle proxies from closing the stream, and the answer comes
last: it is only sent once its figures have been checked against the tool results.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from advisor.contract import AdvisorResponse, ChatTurn
from advisor.events import AnswerOptions, ProgressEvent
from advisor.interfaces.door_text import TEXT, worded_error
from advisor.interfaces.http_errors import request_id_of
from advisor.interfaces.progress import event_payload, progress_line
from advisor.language import detect_language
from advisor.service import Advisor, answer_with
from advisor.validation import bilingual_validation_error

log = logging.getLogger(__name__)
MODEL_ID = "gpu-advisor"
STREAM_PIECE_CHARS = 80
KEEPALIVE_S = 15.0  # under the 60 s idle timeout of common proxies (nginx proxy_read_timeout, ALBs)
FAILED_ANSWER = TEXT.entry("errors.failed_answer")


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str = Field(description="system, developer, user, assistant or tool; only user and assistant are used.")
    content: str | list[dict[str, Any]] | None = Field(None, description="Text, or a list of content parts of which the text parts are read.")


class ChatCompletionRequest(BaseModel):
    # Other sampling options (top_p, stop...) are accepted and ignored: the figures come from tools.
    model_config = ConfigDict(extra="allow")

    model: str = Field(MODEL_ID, description=f"Any value is accepted; the advisor answers as '{MODEL_ID}'.")
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = False
    temperature: float | None = Field(None, ge=0, le=2, description="Passed to the language model in LLM mode.")
    max_tokens: int | None = Field(
        None, ge=1, validation_alias=AliasChoices("max_tokens", "max_completion_tokens"),
        description="Upper bound on the answer's tokens in LLM mode (at least 256 are allowed, so tool calls stay whole).",
    )  # fmt: skip


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str = MODEL_ID
    choices: list[Choice]
    advisor: AdvisorResponse = Field(description="Extension: the full response contract (tool calls, sources, mode).")


class ModelCard(BaseModel):
    id: str = MODEL_ID
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "gpu-advisor"


class ModelCardList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


def _text(content: str | list[dict[str, Any]] | None) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or () if part.get("type") == "text")


def client_instructions(messages: list[ChatMessage]) -> str:
    """The client's system and developer messages, joined: the LLM reads them after the advisor's rules."""
    return "\n\n".join(_text(m.content).strip() for m in messages if m.role in ("system", "developer") and _text(m.content).strip())


def split_conversation(messages: list[ChatMessage]) -> tuple[str, list[ChatTurn]]:
    """(question, history): the last user message, and the user/assistant turns before it."""
    try:
        turns = [ChatTurn(role=m.role, content=_text(m.content)) for m in messages if m.role in ("user", "assistant")]
    except ValidationError as exc:  # e.g. a message over the length limit
        raise bilingual_validation_error(exc) from None
    last_user = max((i for i, turn in enumerate(turns) if turn.role == "user"), default=None)
    if last_user is None or not turns[last_user].content.strip():
        raise worded_error("no_user_message")
    return turns[last_user].content, turns[:last_user]


def stream_pieces(text: str) -> list[str]:
    """Cut the answer into short pieces at line ends or spaces; joined they give the text back."""
    return re.findall(rf".{{1,{STREAM_PIECE_CHARS}}}(?:\s|$)|.{{1,{STREAM_PIECE_CHARS}}}", text, flags=re.DOTALL)


def _chunk(completion_id: str, created: int, delta: dict, finish_reason: str | None = None, **extra: Any) -> str:
    payload = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": MODEL_ID,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        **extra,
    }
    return f"data: {json.dumps(payload, ensure_ascii=False, default=str)}\n\n"


async def answer_events(
    advisor: Advisor, question: str, history: list[ChatTurn], options: AnswerOptions, keepalive_s: float = KEEPALIVE_S
) -> AsyncIterator[str]:
    """The SSE stream of one answer: role at once, progress while the advisor works, then the answer."""
    completion_id, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
    language = detect_language(question)
    yield _chunk(completion_id, created, {"role": "assistant", "content": ""})
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue = asyncio.Queue()

    def on_event(event: ProgressEvent) -> None:  # called on the answer's worker thread
        loop.call_soon_threadsafe(inbox.put_nowait, event)

    async def work() -> None:
        try:
            response = await anyio.to_thread.run_sync(lambda: answer_with(advisor, question, history, options, on_event), abandon_on_cancel=True)
        except Exception as exc:  # the planner should never raise; if it does, the client still gets an ending
            log.exception("request %s: answer failed while streaming", options.request_id or "-")
            response = exc
        inbox.put_nowait(response)

    task = asyncio.create_task(work())
    try:
        while True:
            try:
                item = await asyncio.wait_for(inbox.get(), keepalive_s)
            except TimeoutError:
                yield ": keep-alive\n\n"  # an SSE comment: clients ignore it, proxies see traffic
                continue
            if isinstance(item, ProgressEvent):
                line = progress_line(item, language)
                if line:
                    yield _chunk(completion_id, created, {"reasoning_content": line}, advisor_event=event_payload(item))
                continue
            answer = item.answer if isinstance(item, AdvisorResponse) else FAILED_ANSWER[language]
            for piece in stream_pieces(answer):
                yield _chunk(completion_id, created, {"content": piece})
            extension = {"advisor": item.model_dump(mode="json")} if isinstance(item, AdvisorResponse) else {}
            yield _chunk(completion_id, created, {}, "stop", **extension)
            yield "data: [DONE]\n\n"
            return
    finally:
        if not task.done():  # the client left: the answer finishes in its thread and is dropped
            task.cancel()


def openai_router(advisor: Advisor, keepalive_s: float = KEEPALIVE_S) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["OpenAI-compatible"])

    @router.get("/models", response_model=ModelCardList)
    def list_models() -> ModelCardList:
        return ModelCardList(data=[ModelCard()])

    @router.post(
        "/chat/completions",
        response_model=ChatCompletion,
        responses={200: {"content": {"text/event-stream": {}}, "description": "JSON, or SSE chunks when stream is true."}},
    )
    async def chat_completions(body: ChatCompletionRequest, request: Request):
        # Async so a stream starts at once even when every worker thread is busy; the answer itself
        # runs on the threadpool, never on the event loop.
        question, history = split_conversation(body.messages)
        options = AnswerOptions(
            temperature=body.temperature, max_tokens=body.max_tokens,
            instructions=client_instructions(body.messages), request_id=request_id_of(request),
        )  # fmt: skip
        if body.stream:
            return StreamingResponse(
                answer_events(advisor, question, history, options, keepalive_s),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        response = await anyio.to_thread.run_sync(lambda: answer_with(advisor, question, history, options), abandon_on_cancel=True)
        completion_id, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
        return ChatCompletion(
            id=completion_id, created=created, choices=[Choice(message=AssistantMessage(content=response.answer))], advisor=response
        )

    return router
