"""Request and response bodies of the REST API (they become its OpenAPI schemas)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from advisor.contract import ChatTurn
from knowledge.models import ModelSpec


class ChatRequest(BaseModel):
    message: str = Field(min_length=1, max_length=20_000, description="The user's question, in Chinese or English.")
    history: list[ChatTurn] = Field(
        default_factory=list,
        max_length=100,
        description="Earlier turns of this conversation, oldest first. The server keeps no state: send them each time.",
    )


class ProposalRequest(ChatRequest):
    format: Literal["html", "pdf", "markdown"] = Field("html", description="html (self-contained page), pdf, or markdown (charts inline as data URIs).")
    language: Literal["zh", "en"] | None = Field(None, description="Language of the proposal; default: the question's.")


class ToolInfo(BaseModel):
    name: str
    summary_en: str
    summary_zh: str
    endpoint: str = Field(description="Where to POST the request body.")
    request_schema: dict[str, Any] = Field(description="JSON schema of the request body.")
    result_schema: dict[str, Any] = Field(description="JSON schema of the result.")


class ToolList(BaseModel):
    tools: list[ToolInfo]


class ModelList(BaseModel):
    models: list[ModelSpec]


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    mode: Literal["offline", "llm"] = Field(description="llm when a language-model endpoint is configured.")
    llm: Literal["off", "ok", "degraded", "unknown"] = Field(
        "off",
        description="off: no endpoint configured. degraded: answers fall back to the offline planner right now "
        "(circuit breaker open, or the last answer fell back); llm_reason says why.",
    )
    llm_reason: str | None = Field(None, description="Why llm is degraded (never the endpoint's address or key).")
    index: Literal["ready", "missing", "unavailable"] = Field(
        description="State of the knowledge vector index; without it, retrieval falls back to keyword search."
    )
    index_ready: bool
    tools: int = Field(description="Number of registered tools.")


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable machine-readable slug, e.g. invalid_arguments, unknown_gpu.")
    en: str
    zh: str
    suggestions: list[str] = Field(default_factory=list, description="Close matches or valid values to try instead.")
    message: str = Field(description="Same as `en` plus suggestions; what OpenAI client libraries display.")


class ErrorBody(BaseModel):
    error: ErrorDetail
    request_id: str | None = None


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in [
        (400, "Bad input or malformed JSON"),
        (401, "Missing or invalid bearer token (when ADVISOR_API_TOKEN is set)"),
        (413, "Body larger than ADVISOR_MAX_BODY_BYTES"),
        (422, "Arguments failed validation"),
        (429, "Rate limit exceeded; see Retry-After"),
    ]
}
