"""The cue words behind the Ask's yes/no flags (``data/ask_cues.yaml``), matched as facet cues are."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from advisor.name_matcher import normalize_text
from advisor.nlu.facets import cue_pattern
from knowledge.bilingual import Phrases

CUES_FILE = Path(__file__).parent / "data" / "ask_cues.yaml"
Flag = Literal["renting", "buying", "price_only", "price_per_card", "rental_price", "hyperscaler", "owning", "asks_why", "asks_count", "asks_price"]


class ExceptedCues(Phrases):
    """Cue words that do not count when the next word begins with one of ``not_before`` (``skipping`` may come between)."""

    not_before: list[str] = Field(min_length=1)
    skipping: list[str] = Field(default_factory=list)


class AskCues(BaseModel):
    """Every flag the Ask reads from words must have its cues here, in both languages; no other key is allowed."""

    model_config = ConfigDict(extra="forbid")
    renting: Phrases
    buying: Phrases
    price_only: Phrases
    price_per_card: Phrases
    rental_price: Phrases
    hyperscaler: Phrases
    owning: Phrases
    asks_why: Phrases
    asks_count: ExceptedCues
    asks_price: Phrases


@lru_cache(maxsize=1)
def _patterns() -> dict[str, re.Pattern[str]]:
    table = AskCues.model_validate(yaml.safe_load(CUES_FILE.read_text(encoding="utf-8")))
    patterns = {}
    for flag in AskCues.model_fields:
        cues = getattr(table, flag)
        if isinstance(cues, ExceptedCues):
            patterns[flag] = cue_pattern(cues, cues.not_before, cues.skipping)
        else:
            patterns[flag] = cue_pattern(cues)
    return patterns


def says(flag: Flag, *texts: str) -> bool:
    """Whether any of ``texts`` carries a cue of ``flag``."""
    pattern = _patterns()[flag]
    return any(pattern.search(normalize_text(text)) for text in texts if isinstance(text, str))


DIALOGUE_CUES_FILE = Path(__file__).parent / "data" / "dialogue_cues.yaml"
DialogueCue = Literal["aside", "courtesy", "refers_back", "choice"]


class DialogueCues(BaseModel):
    """The cue words of the continuation model's features (``data/dialogue_cues.yaml``), in both languages."""

    model_config = ConfigDict(extra="forbid")
    aside: Phrases
    courtesy: Phrases
    refers_back: Phrases
    choice: Phrases


@lru_cache(maxsize=1)
def _dialogue_patterns() -> dict[str, re.Pattern[str]]:
    table = DialogueCues.model_validate(yaml.safe_load(DIALOGUE_CUES_FILE.read_text(encoding="utf-8")))
    patterns = {}
    for cue in DialogueCues.model_fields:
        phrases = getattr(table, cue)
        english, chinese = (_alternatives(phrases.en), _alternatives(phrases.zh))
        patterns[cue] = re.compile(rf"\b(?:{english})\b|{chinese}")  # \b counts Chinese characters as letters too
    return patterns


def _alternatives(cues: list[str]) -> str:
    return "|".join(re.escape(cue.lower()) for cue in sorted(cues, key=len, reverse=True))


def dialogue_cue(cue: DialogueCue, text: str) -> bool:
    """Whether ``text`` (as written, lower-cased) carries a cue word of ``cue``."""
    return isinstance(text, str) and bool(_dialogue_patterns()[cue].search(text.lower()))
