"""The words the NLU's regular expressions are built from (``data/pattern_words.yaml``), read once, and the one
matcher that compiles a list: ``pattern(key)`` (the list's alternatives, optionally inside a template that places
them, e.g. after a run of spaces or at the end of the text before a number)."""

from __future__ import annotations

import re
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


@cache
def pattern(key: str, template: str = "{}", flags: int = 0) -> re.Pattern[str]:
    """The list ``key`` compiled: its alternatives (as one group) put in ``template`` at ``{}``
    (``r"[\\s-]*(?:{})"``: after spaces or a hyphen; ``"(?:{})$"``: ending the text searched)."""
    return re.compile(template.replace("{}", f"(?:{alternatives(key)})"), flags)
