"""Which vendor or market a question wants a part from, and what answers the software side of moving to it.

The words and thresholds live in ``equivalents.yaml`` beside this file; ``equivalents`` validates it once and
fails loudly (``CatalogError``) on a malformed row or a card id that does not exist.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.bilingual import Phrases, Text
from knowledge.catalog import CatalogError, read_yaml
from knowledge.concepts import load_concepts
from knowledge.export_rules import load_export_rules
from knowledge.sources import DatedSource

DATA_FILE = Path(__file__).parent / "equivalents.yaml"
Job = Literal["training", "serving"]


class VendorGroup(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    vendors: tuple[str, ...] = Field(min_length=1, description="Catalog vendor names (gpus.yaml `vendor`).")
    label: Text = Field(description="How the answer names this side.")
    cues: Phrases


class AbroadNote(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    en: str
    zh: str
    source: DatedSource

    @property
    def text(self) -> Text:
        return Text(en=self.en, zh=self.zh)


class JobVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    figure: Literal["bf16", "bandwidth"] = Field(description="The figure the job leans on.")
    full: float = Field(gt=0, description="At or above this share of the part in place the substitute is a yes.")
    partly: float = Field(gt=0, description="At or above this share, a partly; below, a no.")


class Verdicts(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    training: JobVerdict
    serving: JobVerdict
    memory_full: float = Field(gt=0, le=1, description="Below this share of memory a yes becomes a partly.")

    def of(self, job: Job) -> JobVerdict:
        return getattr(self, job)


class Equivalents(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    vendor_groups: tuple[VendorGroup, ...] = Field(min_length=1)
    software_cards: dict[str, str]
    abroad: dict[str, AbroadNote]
    verdict: Verdicts

    def side_label(self, vendors: list[str]) -> Text:
        """The name of the side searched: its group's label when one group holds exactly those vendors ("国产")."""
        wanted = set(vendors)
        found = next((group.label for group in self.vendor_groups if set(group.vendors) == wanted), None)
        return found or Text(en=", ".join(vendors), zh="、".join(vendors))

    def is_domestic(self, vendor: str) -> bool:
        return vendor in load_export_rules().domestic_vendors  # one list: the export rules say which makers are domestic


@lru_cache(maxsize=1)
def equivalents() -> Equivalents:
    try:
        table = Equivalents.model_validate(read_yaml(DATA_FILE))
    except ValidationError as exc:
        raise CatalogError(f"{DATA_FILE.name}: {exc}") from exc
    missing = [card for card in table.software_cards.values() if load_concepts().card(card) is None]
    if missing:
        raise CatalogError(f"{DATA_FILE.name}: software_cards names cards that do not exist: {missing}")
    return table
