"""The cue words behind the Ask's yes/no flags (``data/ask_cues.yaml``), matched as facet cues are."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

from advisor.name_matcher import normalize_text
from advisor.nlu.facets import cue_pattern
from knowledge.bilingual import Phrases

CUES_FILE = Path(__file__).parent / "data" / "ask_cues.yaml"
Flag = Literal["renting", "buying", "price_only", "price_per_card", "rental_price", "hyperscaler", "owning"]


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


@lru_cache(maxsize=1)
def _patterns() -> dict[str, re.Pattern[str]]:
    table = AskCues.model_validate(yaml.safe_load(CUES_FILE.read_text(encoding="utf-8")))
    return {flag: cue_pattern(getattr(table, flag)) for flag in AskCues.model_fields}


def says(flag: Flag, *texts: str) -> bool:
    """Whether any of ``texts`` carries a cue of ``flag``."""
    pattern = _patterns()[flag]
    return any(pattern.search(normalize_text(text)) for text in texts if isinstance(text, str))
