"""Answer wording kept as data: ``phrase("tco.claim.holds_at_use", claimed=8, ...)`` → a bilingual ``Text``.

The phrases live in ``answer_text.yaml``; logic fills the blanks and never writes the sentence itself.
"""

from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path

from knowledge.bilingual import Text
from knowledge.catalog import CatalogError, read_yaml

DATA_FILE = Path(__file__).parent / "answer_text.yaml"
FOCUS_PREFIX = "focus."


def _blanks(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@lru_cache(maxsize=1)
def phrases() -> dict[str, Text]:
    raw = _data()
    found = {}
    for key, row in (raw or {}).items():
        if key.startswith(FOCUS_PREFIX):
            continue
        if not isinstance(row, dict) or set(row) != {"en", "zh"}:
            raise CatalogError(f"{DATA_FILE}: {key} needs exactly an en and a zh text")
        if _blanks(row["en"]) != _blanks(row["zh"]):
            raise CatalogError(f"{DATA_FILE}: {key} has different blanks in English and Chinese")
        found[key] = Text(en=row["en"], zh=row["zh"])
    return found


def phrase(key: str, **values) -> Text:
    """The phrase with its blanks filled; a value may itself be a ``Text`` (each language takes its own)."""
    text = phrases()[key]
    values = {k: Text.model_validate(v) if isinstance(v, dict) else v for k, v in values.items()}  # a Text from a tool's JSON
    en = {k: v.en if isinstance(v, Text) else v for k, v in values.items()}
    zh = {k: v.zh if isinstance(v, Text) else v for k, v in values.items()}
    return Text(en=text.en.format(**en), zh=text.zh.format(**zh))


@lru_cache(maxsize=None)  # one entry a kind; a smaller cache re-read the whole file whenever more kinds were asked
def focus_words(kind: str) -> dict[str, tuple[str, ...]]:
    """``focus.<kind>`` of the data file: line item → the words that ask for it alone (lower case)."""
    raw = _data().get(FOCUS_PREFIX + kind) or {}
    return {item: tuple(word.casefold() for word in words) for item, words in raw.items()}


@lru_cache(maxsize=1)
def _data() -> dict:
    return read_yaml(DATA_FILE)


def asked_line(kind: str, message: str) -> str | None:
    """The line item a message asks for by name, if any ("电费多少?" → 'energy')."""
    found = word_positions(kind, message)
    return found[0][0] if found else None


def word_positions(kind: str, message: str) -> list[tuple[str, int]]:
    """(item, character offset) of every focus word of ``kind`` in ``message``, in order."""
    text = message.casefold()
    found = [(item, match) for item, words in focus_words(kind).items() for word in words if (match := text.find(word)) >= 0]
    return sorted(found, key=lambda pair: pair[1])
