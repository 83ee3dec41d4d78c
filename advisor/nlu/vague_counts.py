"""Counts said as an order of magnitude ("dozens of users", "a few hundred people", the Chinese "some tens"): the range
the words span and the planning value the answers size for, from ``data/vague_counts.yaml``. The extractor claims the
words as a number of that planning value, so no digit inside them ("ten" in the Chinese "some tens") is read as the
count; the Ask keeps the range so an answer can say how the words were read."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

VAGUE_COUNTS_FILE = Path(__file__).parent / "data" / "vague_counts.yaml"


class VagueCount(BaseModel):
    """One count said as an order of magnitude, with the range it spans and the value planned for."""

    model_config = ConfigDict(frozen=True)

    surface: str = Field(description='The words as written ("dozens of").')
    start: int = Field(description="Where the words start in the normalised message.")
    end: int
    low: int = Field(description="The smallest count the words cover.")
    high: int = Field(description="The largest count the words cover.")
    plan: int = Field(description="The count the answers size for: inside the range, never its bottom.")


@lru_cache(maxsize=1)
def _table() -> tuple[tuple[re.Pattern[str], int, int, int], ...]:
    data = yaml.safe_load(VAGUE_COUNTS_FILE.read_text(encoding="utf-8"))
    blocked = "|".join(re.escape(word) for word in sorted(data["not_before"], key=len, reverse=True))
    rows = []
    for row in data["counts"]:
        for words in sorted(row["words"], key=len, reverse=True):
            edge = r"(?<![a-z])" if words.isascii() else ""
            end = r"(?![a-z])" if words.isascii() else ""
            # the words followed by a unit of a bigger number or a size are no count ("hundreds of GB", the Chinese "some tens of ten-thousands")
            rows.append((re.compile(rf"{edge}{re.escape(words)}{end}(?!\s*(?:of\s+)?(?:{blocked})(?![a-z]))"), row["low"], row["high"], row["plan"]))
    return tuple(sorted(rows, key=lambda r: len(r[0].pattern), reverse=True))


def vague_counts(text: str) -> tuple[VagueCount, ...]:
    """The counts ``text`` (normalised, lower case) says as an order of magnitude, longest words first, none overlapping."""
    found: list[VagueCount] = []
    for pattern, low, high, plan in _table():
        for match in pattern.finditer(text):
            if any(match.start() < f.end and f.start < match.end() for f in found):
                continue
            found.append(VagueCount(surface=match.group(0), start=match.start(), end=match.end(), low=low, high=high, plan=plan))
    return tuple(sorted(found, key=lambda f: f.start))
