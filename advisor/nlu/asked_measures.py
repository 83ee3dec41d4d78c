"""The measures a question asks for, in the order written ("power draw and network for 4x8 H100 nodes?" → power,
network): the parts of a question that one sentence asks several things of. The words are data
(``data/asked_measures.yaml``), matched as the Ask's cue words are (``facets.cue_pattern``)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict

from advisor.name_matcher import normalize_text
from advisor.nlu.facets import cue_pattern
from knowledge.bilingual import Phrases

MEASURES_FILE = Path(__file__).parent / "data" / "asked_measures.yaml"


class MeasureWords(BaseModel):
    model_config = ConfigDict(extra="forbid")
    said_of_another: list[str] = []
    between: list[str] = []
    measures: dict[str, Phrases]


@lru_cache(maxsize=1)
def measure_words() -> MeasureWords:
    return MeasureWords.model_validate(yaml.safe_load(MEASURES_FILE.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _patterns() -> dict[str, re.Pattern[str]]:
    return {name: cue_pattern(words) for name, words in measure_words().measures.items()}


def measures_asked(message: str) -> tuple[str, ...]:
    """The measures ``message`` asks for, each once, ordered by where it is first asked."""
    if not isinstance(message, str):
        return ()
    text = normalize_text(message)
    words = measure_words()
    spans = {name: [(m.start(), m.end()) for m in pattern.finditer(text)] for name, pattern in _patterns().items()}
    # words of two measures that overlap ("the power cost": power, and the power's cost) are the longer one's
    spans = {name: [(start, end) for start, end in found if not any(other != name and s < end and start < e and e - s > end - start
                                                                     for other, theirs in spans.items() for s, e in theirs)]
             for name, found in spans.items()}
    ends = {end for name, found in spans.items() if name not in words.said_of_another for _, end in found}
    found = []
    for name, places in spans.items():
        if name in words.said_of_another:  # "how much is the electricity cost": the bill asked with a price word
            places = [(start, end) for start, end in places if not any(_only_between(text[at:start], words.between) for at in ends if at <= start)]
        if places:
            found.append((places[0][0], name))
    return tuple(name for _, name in sorted(found))


def _only_between(gap: str, between: list[str]) -> bool:
    """``gap`` holds nothing but the joining words of ``between`` (or nothing at all)."""
    for word in sorted(between, key=len, reverse=True):
        gap = gap.replace(word, "")
    return not gap
