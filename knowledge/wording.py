"""Wording kept as data: a {key: {en, zh}} YAML file read once, its phrases filled on use.

Keys may nest ("general_checklist.lead"); a value may be a plain string or a ``Text`` that fills each
language with its own form. Entries that are not phrases (word lists, table headers) are read through ``data``.
The answer writers use it through ``advisor/offline/wording.py``; other modules name their file directly.
"""

from __future__ import annotations

from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:  # imported on use: the CLI reads its help wording without loading pydantic
    from knowledge.bilingual import Text


@cache
def _parsed(path: Path) -> dict:
    """A text file parsed once, however many writers read a section of it (a task's text.yaml serves several)."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


class Wording:
    def __init__(self, path: Path):
        self.path = path

    @cached_property
    def data(self) -> dict:
        return _parsed(self.path.resolve())

    def entry(self, key: str) -> Any:
        node = self.data
        for part in key.split("."):
            node = node[part]
        return node

    def text(self, key: str, **values: Any) -> Text:
        """The phrase in both languages with its blanks filled."""
        from knowledge.bilingual import Text

        row = self.entry(key)
        values = {k: as_text(v) for k, v in values.items()}
        return Text(
            en=row["en"].format(**{k: v.en if isinstance(v, Text) else v for k, v in values.items()}),
            zh=row["zh"].format(**{k: v.zh if isinstance(v, Text) else v for k, v in values.items()}),
        )

    def pair(self, key: str) -> tuple[str, str]:
        """The phrase as an (en, zh) pair, blanks unfilled: for code that takes the two languages apart."""
        row = self.entry(key)
        return row["en"], row["zh"]

    def both(self, key: str, **values: Any) -> tuple[str, str]:
        """The phrase as an (en, zh) pair with its blanks filled: for code that takes the two languages apart."""
        filled = self.text(key, **values)
        return filled.en, filled.zh

    def pick(self, key: str, language: str, **values: Any) -> str:
        """The phrase in ``language`` with its blanks filled (only that language is formatted)."""
        from knowledge.bilingual import Text

        template = self.entry(key)["zh" if language == "zh" else "en"]
        values = {k: as_text(v) for k, v in values.items()}
        return template.format(**{k: v.pick(language) if isinstance(v, Text) else v for k, v in values.items()})


def as_text(value: Any) -> Any:
    """A label as a tool result carries it ({"en": ..., "zh": ...}, a Text dumped to JSON) is filled in as that Text,
    never as the dict's own spelling."""
    from knowledge.bilingual import Text

    if isinstance(value, dict) and set(value) == {"en", "zh"}:
        return Text(**value)
    return value


@cache
def shipped(file_name: str) -> Wording:
    """A text file shipped in knowledge/, for the calculators (which read no files themselves)."""
    return Wording(Path(__file__).with_name(file_name))
