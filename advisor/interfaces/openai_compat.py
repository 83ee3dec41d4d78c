"""OpenAI-compatible chat endpoint, so chat front-ends and SDKs can use the advisor as a "model".

The advisor is stateless per request: the last user message is the question and earlier
user/assistant messages are its history. System and tool messages from the client are
ignored on purpose — the advisor's own instructions and tools are not negotiable.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from advisor.agent.service import Advisor
from advisor.contract import AdvisorResponse, ChatTurn
from advisor.validation import bilingual_validation_error
from knowledge.bilingual import AdvisorError

MODEL_ID = "gpu-advisor"
STREAM_PIECE_CHARS = 80


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str = Field(description="system, developer, user, assistant or tool; only user and assistant are used.")
    content: str | list[dict[str, Any]] | None = Field(None, description="Text, or a list of content parts of which the text parts are read.")


class ChatCompletionRequest(BaseModel):
    # Sampling options (temperature, max_tokens...) are accepted and ignored: answers come from tools.
    model_config = ConfigDict(extra="allow")

    model: str = Field(MODEL_ID, description=f"Any value is accepted; the advisor answers as '{MODEL_ID}'.")
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = False


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


def split_conversation(messages: list[ChatMessage]) -> tuple[str, list[ChatTurn]]:
    """(question, history): the last user message, and the user/assistant turns before it."""
    try:
        turns = [ChatTurn(role=m.role, content=_text(m.content)) for m in messages if m.role in ("user", "assistant")]
    except ValidationError as exc:  # e.g. a message over the length limit
        raise bilingual_validation_error(exc) from None
    last_user = max((i for i, turn in enumerate(turns) if turn.role == "user"), default=None)
    if last_user is None or not turns[last_user].content.strip():
        raise AdvisorError(
            "no_user_message",
            "The conversation has no user message to answer.",
            "对话中没有可回答的用户消息。",
        )
    return turns[last_user].content, turns[:last_user]


def stream_pieces(text: str) -> list[str]:
    """Cut the answer into short pieces at line ends or spaces; joined they give the text back."""
    return re.findall(rf".{{1,{STREAM_PIECE_CHARS}}}(?:\s|$)|.{{1,{STREAM_PIECE_CHARS}}}", text, flags=re.DOTALL)


def _chunk(completion_id: str, created: int, delta: dict, finish_reason: str | None = None) -> str:
    payload = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": MODEL_ID,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


async def sse_events(completion_id: str, created: int, answer: str) -> AsyncIterator[str]:
    # Async although nothing is awaited: the answer is complete before streaming starts, and
    # Starlette would run a sync iterator in the threadpool, one thread hop per piece, queueing
    # behind the chat handlers that need those threads (stream latency tripled under load).
    yield _chunk(completion_id, created, {"role": "assistant", "content": ""})
    for piece in stream_pieces(answer):
        yield _chunk(completion_id, created, {"content": piece})
    yield _chunk(completion_id, created, {}, "stop")
    yield "data: [DONE]\n\n"


def openai_router(advisor: Advisor) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["OpenAI-compatible"])

    @router.get("/models", response_model=ModelCardList)
    def list_models() -> ModelCardList:
        return ModelCardList(data=[ModelCard()])

    @router.post(
        "/chat/completions",
        response_model=ChatCompletion,
        responses={200: {"content": {"text/event-stream": {}}, "description": "JSON, or SSE chunks when stream is true."}},
    )
    def chat_completions(request: ChatCompletionRequest):
        # Sync handler: the advisor may take seconds, so it runs in the threadpool, not the event loop.
        question, history = split_conversation(request.messages)
        response = advisor.answer(question, history)
        completion_id, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
        if request.stream:
            return StreamingResponse(
                sse_events(completion_id, created, response.answer),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        return ChatCompletion(
            id=completion_id, created=created, choices=[Choice(message=AssistantMessage(content=response.answer))], advisor=response
        )

    return router
