"""Concept cards: short bilingual answers to the questions this field asks most, with sources."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.bilingual import Text
from knowledge.catalog import CatalogError

CONCEPTS_FILE = Path(__file__).parent / "concepts.yaml"


class Questions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    en: list[str] = Field(min_length=1)
    zh: list[str] = Field(min_length=1)


class CardSource(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str
    url: str = Field(pattern=r"^https?://")


class ConceptCard(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: Text
    questions: Questions
    answer: Text = Field(description="First sentence answers directly (yes/no or the number), then the reason.")
    calculator: str | None = Field(None, description="The tool that can take the question further.")
    sources: list[CardSource] = Field(min_length=1)


class ConceptCards(BaseModel):
    cards: list[ConceptCard]

    def card(self, card_id: str) -> ConceptCard | None:
        return next((c for c in self.cards if c.id == card_id), None)


@lru_cache(maxsize=1)
def load_concepts(path: Path = CONCEPTS_FILE) -> ConceptCards:
    try:
        cards = ConceptCards.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as exc:
        raise CatalogError(f"{path}: not a valid concept-card file: {exc}") from exc
    ids = [c.id for c in cards.cards]
    if len(ids) != len(set(ids)):
        raise CatalogError(f"{path}: duplicate card ids")
    return cards
