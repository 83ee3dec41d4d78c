"""The words the NLU's regular expressions are built from (``data/pattern_words.yaml``), read once."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

WORDS_FILE = Path(__file__).parent / "data" / "pattern_words.yaml"


@cache
def _words() -> dict[str, Any]:
    return yaml.safe_load(WORDS_FILE.read_text(encoding="utf-8"))


def pattern_words(key: str) -> Any:
    """One entry as written: a list of alternatives, or a word → value table."""
    return _words()[key]


def alternatives(key: str) -> str:
    """A list's alternatives as one regex alternation, in the file's order (the earlier is tried first)."""
    return "|".join(pattern_words(key))
