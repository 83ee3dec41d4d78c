"""What a follow-up asks of the thread's setup besides a changed value (``data/follow_up_subjects.yaml``): "so will 4
cards be 4x faster?" asks whether the speed scales, "and does that need NVLink?" asks about the link of the layout
just given. A question's form is needed too: "and with 4 cards?" only changes a value."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict

from advisor.name_matcher import normalize_text
from advisor.nlu.facets import cue_pattern
from knowledge.bilingual import Phrases

SUBJECTS_FILE = Path(__file__).parent / "data" / "follow_up_subjects.yaml"
QUESTION_MARKS = ("?", "\uff1f")  # the ASCII and the full-width question mark


class NewSubject(Phrases):
    """A side of the thread's configuration a follow-up may ask, with the answer it gets."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = ""  # its key in the table
    route: str
    not_after: list[str] = []
    rerun_with_rate: list[str] = []  # thread tasks a stated rate re-runs instead
    query: Phrases | None = None  # the knowledge search a card answer runs, in each language


class FollowUpSubjects(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question_form: Phrases
    subjects: dict[str, Phrases]
    confirmation: Phrases
    new_subjects: dict[str, NewSubject]


@lru_cache(maxsize=1)
def new_subjects() -> dict[str, NewSubject]:
    """The table's new subjects by name, in the order they are tried."""
    return {name: subject.model_copy(update={"name": name}) for name, subject in _table().new_subjects.items()}


@lru_cache(maxsize=1)
def _table() -> FollowUpSubjects:
    return FollowUpSubjects.model_validate(yaml.safe_load(SUBJECTS_FILE.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _patterns() -> tuple:
    table = _table()
    subjects = tuple((subject, cue_pattern(cues)) for subject, cues in table.subjects.items())
    news = tuple((subject, cue_pattern(cues)) for subject, cues in table.new_subjects.items())
    return cue_pattern(table.question_form), subjects, cue_pattern(table.confirmation), news


def follow_up_asks(message: str) -> str | None:
    """The subject ``message`` asks about in a question's form, the first of the table's ``subjects`` it names; None
    for a message that only states values or asks nothing of the setup."""
    text = normalize_text(message)
    form, subjects, _, _ = _patterns()
    if not form.search(text):
        return None
    return next((subject for subject, pattern in subjects if pattern.search(text)), None)


def is_question(message: str) -> bool:
    """The message is put as a question: a question mark, a yes/no form or a question word ("that covers it, thanks" is not)."""
    return message.rstrip().endswith(QUESTION_MARKS) or bool(_patterns()[0].search(normalize_text(message)))


def asks_to_confirm(message: str) -> bool:
    """The message states something and asks to have it confirmed ("so buying is cheaper, right?", "owning wins, correct?")."""
    return bool(_patterns()[2].search(normalize_text(message)))


def follow_up_subject(message: str) -> str | None:
    """The new subject (``new_subjects``) ``message`` asks in a question's form, the first of the table that it names:
    "how much power would that draw?" → "site", "and what would that cost?" → "price"; None for a message that asks none."""
    text = normalize_text(message)
    form, _, _, news = _patterns()
    if not form.search(text) and not message.rstrip().endswith(QUESTION_MARKS):  # a question mark alone puts it as a question
        return None
    return next((subject for subject, pattern in news if pattern.search(text)), None)
