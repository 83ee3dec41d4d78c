"""Concept cards: short bilingual answers to the questions this field asks most, with sources.

``concepts.yaml`` holds the first cards; ``concept_cards/<family>.yaml`` holds one family each
(interconnects, precision, ...). A family card cites dated sources, so a reader can tell how old a
figure is, and the loader tags it with its family so tests and answers can ask for one family.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.bilingual import Phrases, Text
from knowledge.catalog import CatalogError
from knowledge.sources import DatedSource, Source
from knowledge.subjects import Kind

CONCEPTS_FILE = Path(__file__).parent / "concepts.yaml"
FAMILIES_DIR = Path(__file__).parent / "concept_cards"
Family = Literal["interconnects", "precision", "china", "datacentre", "market", "amd-intel", "training", "serving"]
# The tools a card may offer; the answer turns the name into the matching "tell me X and I compute Y".
Calculator = Literal["recommend", "estimate_memory", "estimate_throughput", "estimate_training_time", "compute_tco", "compare_gpus", "plan_facility", "diagnose"]


class ConceptCard(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: Text
    questions: Phrases = Field(description="The colloquial phrasings users type: the card's own retrieval text.")
    answer: Text = Field(description="First sentence answers directly (yes/no or the number), then the reason.")
    calculator: Calculator | None = Field(None, description="The tool that can take the question further.")
    facets: list[str] = Field(default_factory=list, description="The sides of a subject this card answers (advisor/nlu/data/facets.yaml): "
                              "whether it may be bought, its quality, its software, what to do, a vendor's claim, where it can stand.")
    sources: list[Source] = Field(min_length=1)
    about: dict[Kind, list[str]] | None = Field(
        None, description="What the card is about, by kind (gpu: catalog families such as h100; precision, capability, engine, "
        "activity: ids of knowledge/subjects.yaml). Omitted: read from the card's title and questions (advisor/nlu/subjects.py). "
        "Written out only where that reading is wrong; an empty list says the card holds for any subject of that kind.",
    )
    verdict_by: dict[str, dict[str, Text]] = Field(
        default_factory=dict, description="The facts a user states that change this card's verdict: an Ask field (advisor/nlu/ask.py) → "
        "its value → the sentence that opens the answer for it ({timeline: {near: ..., open: ...}}: a go-live next month means "
        "buy what ships now). A value not listed, or not stated, leaves the card's own first sentence to open it.",
    )
    family: Family | None = Field(None, description="Set by the loader from the family file the card is in.")


class FamilyCard(ConceptCard):
    sources: list[DatedSource] = Field(min_length=1)


class FamilyFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    family: Family
    cards: list[FamilyCard] = Field(min_length=1)


class ConceptCards(BaseModel):
    cards: list[ConceptCard]

    def card(self, card_id: str) -> ConceptCard | None:
        return next((c for c in self.cards if c.id == card_id), None)

    def family(self, family: Family) -> list[ConceptCard]:
        return [c for c in self.cards if c.family == family]


def _read(path: Path) -> object:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise CatalogError(f"{path}: not a valid concept-card file: {exc}") from exc


@lru_cache(maxsize=1)
def load_concepts(path: Path = CONCEPTS_FILE, families_dir: Path | None = FAMILIES_DIR) -> ConceptCards:
    try:
        cards = ConceptCards.model_validate(_read(path)).cards
        for family_path in sorted(families_dir.glob("*.yaml")) if families_dir else ():
            family = FamilyFile.model_validate(_read(family_path))
            if family.family != family_path.stem:
                raise CatalogError(f"{family_path}: declares family {family.family!r}; the file name says {family_path.stem!r}")
            cards += [ConceptCard.model_validate(c.model_dump() | {"family": family.family}) for c in family.cards]
    except ValidationError as exc:
        raise CatalogError(f"not a valid concept-card file: {exc}") from exc
    ids = [c.id for c in cards]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise CatalogError(f"duplicate concept card ids: {', '.join(duplicates)}")
    return ConceptCards(cards=cards)
