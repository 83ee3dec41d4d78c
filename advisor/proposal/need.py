"""From a question and its conversation to the typed need a proposal is built for.

The offline understanding reads the conversation exactly as it does for a chat answer, and the
recommend answer's own argument builder (``recommend.plan.recommend_args``) turns it into the recommender's
request, so a proposal sizes the same need as the answer above it. Each field says whether the
user stated it or the proposal assumed it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from advisor.contract import ChatTurn, Language
from advisor.offline.tasks.recommend.plan import recommend_args
from advisor.offline.planner import OfflinePlanner
from advisor.offline.turn import Turn
from advisor.offline.workload import model_of, task_of
from advisor.proposal.wording import facts, is_proposal_command, phrase
from knowledge.bilingual import AdvisorError

Task = Literal["inference", "lora", "qlora", "full_finetune", "pretrain"]


class NeedItem(BaseModel):
    value: Any = None
    stated: bool = Field(description="The user said it; otherwise the proposal assumed it.")
    said: str = Field("", description="The user's own words for it, when stated.")


class Need(BaseModel):
    question: str = Field(description="The messages the need was read from, joined.")
    language: Language
    model: str = Field(description="What the tools are asked to size: a catalog id, a bare size or config.json text.")
    task: NeedItem
    concurrency: NeedItem
    context: NeedItem
    speed_target: NeedItem
    tokens: NeedItem
    deadline_days: NeedItem
    budget: NeedItem = Field(description="{'amount', 'currency'} when stated.")
    currency: str
    recommend_args: dict[str, Any] = Field(description="The recommender's request, as the chat answer would send it.")
    assumptions: list[str] = Field(default_factory=list, description="What the understanding assumed, in the user's language.")

    @property
    def training(self) -> bool:
        return self.task.value != "inference"


class NeedMissing(AdvisorError):
    """Nothing sized yet: the proposal needs a model and a task at least."""


def questions_of(message: str, history: Sequence[ChatTurn]) -> list[str]:
    """The user's messages, oldest first, without the proposal request itself ("make this a proposal")."""
    said = [turn.content for turn in history if turn.role == "user"] + [message if isinstance(message, str) else ""]
    return [text for text in said if text.strip() and not is_proposal_command(text)]


def read_need(message: str, history: Sequence[ChatTurn], planner: OfflinePlanner, language: Language | None = None) -> Need:
    questions = questions_of(message, history)
    if not questions:
        raise need_missing(language or "en")
    *before, last = questions
    reading = planner.understanding.read(last, before)
    turn = Turn(message=last, reading=reading, registry=planner.registry, catalog=planner.catalog)
    language = language or turn.language
    model = model_of(turn)
    if model is None:
        raise need_missing(language)
    task, task_named = task_of(turn)
    args = recommend_args(turn, model, task)
    args["top"] = 5  # the recommendation, two alternatives, and room for the nearest options when none fits
    frame, slots = turn.slots.frame, turn.slots
    budget = slots.budget

    def item(slot: str, value: Any, assumed: Any = None) -> NeedItem:
        stated = frame.has(slot) and value is not None
        return NeedItem(value=value if stated else assumed, stated=stated, said=frame.surface(slot) if stated else "")

    target = args.get("tokens_per_s_per_user")
    tokens = slots.tokens
    deadline = slots.deadline_hours
    return Need(
        question="\n".join(questions),
        language=language,
        model=model,
        task=NeedItem(value=task, stated=task_named),
        concurrency=item("concurrency", slots.concurrency, 1)
        if not slots.load_from_headcount
        else NeedItem(value=slots.concurrency, stated=True, said=slots.load_from_headcount),
        context=item("context", slots.context_length, 4096),
        speed_target=item("speed_target", target, facts()["speed_target_tokens_per_s"]["value"]),
        tokens=item("training_tokens", tokens, facts()["training_tokens"]["value"]),
        deadline_days=item("deadline", deadline / 24 if deadline else None),
        budget=NeedItem(value={"amount": budget.amount, "currency": budget.currency}, stated=True, said=frame.surface("budget"))
        if budget
        else NeedItem(stated=False),
        currency=args["currency"],
        recommend_args={k: v for k, v in args.items() if v is not None},
        assumptions=list(turn.assumptions),
    )


def need_missing(language: Language) -> NeedMissing:
    en, zh = phrase("need_missing", "en"), phrase("need_missing", "zh")
    return NeedMissing("proposal_needs_model", en, zh)
