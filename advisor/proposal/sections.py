"""The pieces of a proposal, as data: each section's series and the lines that carry a date and a source."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from advisor.contract import ChatTurn, Language
from knowledge.bilingual import Text

Images = Literal["files", "inline", "none"]  # how a Markdown proposal carries its charts
ATTACHMENT = "proposal.json"  # the PDF's attached file with the inputs
INPUTS_ID = "proposal-inputs"  # the HTML page's <script type="application/json"> with the inputs


class ProposalInputs(BaseModel):
    """What rebuilds the proposal (``--from``): the conversation, the language and when it was built."""

    message: str
    history: list[ChatTurn] = Field(default_factory=list)
    language: Language
    built_on: str
    version: str


class MemoryBar(BaseModel):
    option: Text
    parts: list[tuple[Text, float]] = Field(description="Memory per GPU by component, GB.")
    total_gb: float
    capacity_gb: float


class SpeedSeries(BaseModel):
    option: Text
    concurrency: list[int]
    per_user: list[float]
    total: list[float]
    target: float
    target_stated: bool
    users: int


class TrainingSeries(BaseModel):
    gpu_name: str
    gpus: list[int]
    days: list[float]
    deadline_days: float | None
    tokens: float
    chosen: int


class PriceLine(BaseModel):
    what: Text
    amount: float
    currency: str
    date: str
    age: Text | None = Field(None, description="How old the price is, when older than the stale threshold (knowledge/price_age.yaml).")
    note: str = ""
    source: str


class SourcedFigure(BaseModel):
    label: Text
    value: str
    basis: Text
    url: str = ""
    title: str = ""
    date: str = ""


class ChinaLine(BaseModel):
    gpu_name: str
    status: Text
    buyable: bool
    detail: Text


class BenchStep(BaseModel):
    key: str
    values: dict[str, Any]
