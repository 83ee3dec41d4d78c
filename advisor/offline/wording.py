"""One task's answer wording: the {key: {en, zh}} YAML in its task package (named relative to ``advisor/offline/tasks``) (``knowledge.wording.Wording``),
with ``say`` to fill a phrase in the turn's language."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from knowledge.bilingual import Text
from knowledge.wording import Wording as WordingFile

if TYPE_CHECKING:
    from advisor.offline.turn import Turn


class Wording(WordingFile):
    def __init__(self, file_name: str):
        super().__init__(Path(__file__).parent / "tasks" / file_name)

    def say(self, turn: Turn, key: str, **values: Any) -> str:
        """The phrase in the turn's language with its blanks filled (only that language is formatted)."""
        row = self.entry(key)
        return turn.t(row["en"], row["zh"]).format(**{k: turn.text(v) if isinstance(v, Text) else v for k, v in values.items()})
