"""The response every interface returns: web chat, REST, OpenAI-compatible API, Slack and CLI."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

Language = Literal["zh", "en"]


class ToolCall(BaseModel):
    name: str
    args: dict[str, Any]
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class ChatTurn(BaseModel):
    role: Literal["user", "assistant"]
    content: str = Field(max_length=200_000)
    tool_calls: list[ToolCall] = Field(
        default_factory=list,
        max_length=64,  # an answer that weighs many setups makes 20-odd calls; its own history must be accepted back
        description="Assistant turns: the tool calls behind the answer (results may be compacted). Send them back "
        "with the history so a follow-up can reuse the figures instead of recomputing them.",
    )


class Grounding(BaseModel):
    """The check that every figure in an LLM answer comes from a tool result or the user's message."""

    checked: bool = Field(False, description="True when an LLM answer was checked (offline answers come from the tools directly).")
    ungrounded: list[str] = Field(default_factory=list, description="Figures with units that no tool result or user message contained.")
    repaired: bool = Field(False, description="True when the model fixed them in one repair turn.")


class Source(BaseModel):
    doc_id: str
    title: str
    section: str = ""
    urls: list[str] = Field(default_factory=list)
    citation: str = Field("", description="Free-text citation when the source is not a web page (e.g. a datasheet).")

    @classmethod
    def from_hit(cls, hit: dict[str, Any]) -> Source:
        """A knowledge-search hit (``search_knowledge`` result) as a citation."""
        return cls(doc_id=hit["doc_id"], title=hit["title"], section=hit.get("section", ""), urls=hit.get("sources", []))


class AdvisorResponse(BaseModel):
    answer: str = Field(description="Markdown answer in the user's language: `summary` then `details`, whole.")
    summary: str = Field("", description="What is read first: the verdict with its number, the reasoning and the alternatives (about one phone screen).")
    details: str = Field("", description="Below the fold: formula tables, every default and assumption, sources (interfaces fold it).")
    language: Language
    mode: Literal["llm", "offline"]
    tool_calls: list[ToolCall] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    notice: str | None = Field(None, description="e.g. why the LLM endpoint was not used for this answer.")
    grounding: Grounding = Field(default_factory=Grounding)

    @model_validator(mode="after")
    def _folded(self) -> AdvisorResponse:
        """An engine that did not split its answer (LLM mode, a test double) gets the size-based fold."""
        if not self.summary and self.answer:
            from advisor.markdown import fold  # noqa: PLC0415  (the contract stays import-light)

            self.summary, self.details = fold(self.answer)
        return self
