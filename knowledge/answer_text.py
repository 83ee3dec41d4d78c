"""Focus words kept as data: the words that ask for one item of an answer by name ("and the electricity?" → the
energy line), read from ``answer_text.yaml`` (``focus.<kind>``: item → words). The answers' own wording lives in each
task package's ``text.yaml`` (``advisor/offline/wording.py``).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from knowledge.catalog import read_yaml

DATA_FILE = Path(__file__).parent / "answer_text.yaml"
FOCUS_PREFIX = "focus."


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
