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

from advisor.nlu.facets import cue_pattern
from knowledge.bilingual import Phrases

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
    """Each row's words as one cue pattern (the Ask's cue matcher: whole ASCII words, Chinese anywhere), refused before a
    word of a bigger number or a size ("hundreds of GB", "tens of thousands" is a row of its own), longest words first."""
    data = yaml.safe_load(VAGUE_COUNTS_FILE.read_text(encoding="utf-8"))
    rows = []
    for row in data["counts"]:
        # built unchecked: a row may hold words of one language only ("hundreds of" has no Chinese form of its own)
        words = Phrases.model_construct(en=[w for w in row["words"] if w.isascii()], zh=[w for w in row["words"] if not w.isascii()])
        longest = max(len(w) for w in row["words"])
        rows.append((longest, cue_pattern(words, not_before=data["not_before"], skipping=data["skipping"]), row["low"], row["high"], row["plan"]))
    return tuple(row[1:] for row in sorted(rows, key=lambda r: r[0], reverse=True))


def vague_counts(text: str) -> tuple[VagueCount, ...]:
    """The counts ``text`` (normalised, lower case) says as an order of magnitude, longest words first, none overlapping."""
    found: list[VagueCount] = []
    for pattern, low, high, plan in _table():
        for match in pattern.finditer(text):
            if any(match.start() < f.end and f.start < match.end() for f in found):
                continue
            found.append(VagueCount(surface=match.group(0), start=match.start(), end=match.end(), low=low, high=high, plan=plan))
    return tuple(sorted(found, key=lambda f: f.start))
