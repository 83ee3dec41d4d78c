"""One task's answer wording: the {key: {en, zh}} YAML beside its answer module, read once, filled on use.

Keys may nest ("general_checklist.lead"); a value may be a plain string or a ``Text`` that fills each
language with its own form. Entries that are not phrases (word lists, table headers) are read through ``data``.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from knowledge.bilingual import Text

if TYPE_CHECKING:
    from advisor.offline.turn import Turn


class Wording:
    def __init__(self, file_name: str):
        self.path = Path(__file__).with_name(file_name)

    @cached_property
    def data(self) -> dict:
        return yaml.safe_load(self.path.read_text(encoding="utf-8"))

    def entry(self, key: str) -> Any:
        node = self.data
        for part in key.split("."):
            node = node[part]
        return node

    def text(self, key: str, **values: Any) -> Text:
        """The phrase in both languages with its blanks filled."""
        row = self.entry(key)
        return Text(
            en=row["en"].format(**{k: v.en if isinstance(v, Text) else v for k, v in values.items()}),
            zh=row["zh"].format(**{k: v.zh if isinstance(v, Text) else v for k, v in values.items()}),
        )

    def say(self, turn: Turn, key: str, **values: Any) -> str:
        """The phrase in the turn's language with its blanks filled (only that language is formatted)."""
        row = self.entry(key)
        return turn.t(row["en"], row["zh"]).format(**{k: turn.text(v) if isinstance(v, Text) else v for k, v in values.items()})
