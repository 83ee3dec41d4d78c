"""A task's answer wording: the {key: {en, zh}} ``text.yaml`` of its package under ``advisor/offline/tasks``, one
section per answer module (``knowledge.wording.Wording``), with ``say`` to fill a phrase in the turn's language."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knowledge.bilingual import Text
from knowledge.wording import Wording as WordingFile, as_text

if TYPE_CHECKING:
    from advisor.offline.turn import Turn

TASKS = Path(__file__).parent / "tasks"


class Wording(WordingFile):
    def __init__(self, package: str, section: str | None = None):
        """``package``: the task package whose text.yaml holds the wording (or a file path under tasks/, for a package
        not yet merged into one file); ``section``: the answer module's section of it."""
        path = TASKS / package if package.endswith(".yaml") else TASKS / package / "text.yaml"
        super().__init__(path)
        self.section = section

    @cached_property
    def data(self) -> dict:
        whole = WordingFile.data.func(self)
        return whole[self.section] if self.section else whole

    def say(self, turn: Turn, key: str, **values: Any) -> str:
        """The phrase in the turn's language with its blanks filled (only that language is formatted)."""
        row = self.entry(key)
        values = {k: as_text(v) for k, v in values.items()}
        return turn.t(row["en"], row["zh"]).format(**{k: turn.text(v) if isinstance(v, Text) else v for k, v in values.items()})
