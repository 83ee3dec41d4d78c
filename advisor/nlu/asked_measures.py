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
    found = [(match.start(), name) for name, pattern in _patterns().items() if (match := pattern.search(text))]
    return tuple(name for _, name in sorted(found))
