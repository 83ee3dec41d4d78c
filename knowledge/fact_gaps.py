"""Facts the shared references do not give (``fact_gaps.yaml``, issue #37): what is missing, its status (unknown,
unverified, estimate, converted), why, what the data and answers do instead, and the reference lines read, so a gap is
data a test re-checks against the reference instead of a comment that goes stale."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.catalog import read_table, require_unique
from knowledge.sources import DATE_PATTERN

DATA_FILE = Path(__file__).parent / "fact_gaps.yaml"
# The shared references the gaps cite, beside the repository (../shared/reference).
REFERENCE_DIR = Path(__file__).resolve().parents[2] / "shared" / "reference"


class ReferenceLine(BaseModel):
    """One line of a reference file that was read, and words it must still carry."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str = Field(min_length=3, description="File name under the shared reference folder.")
    line: int = Field(ge=1)
    says: str = Field(min_length=3, description="Words that line carries, as written there.")


class FactGap(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9-]+$")
    status: Literal["unknown", "unverified", "estimate", "converted", "outside", "secondary", "assumption"]
    what: str = Field(min_length=10, description="The missing fact, in words.")
    reason: str = Field(min_length=20, description="Why the reference does not give it.")
    instead: str = Field(min_length=20, description="What the data and the answers do without it.")
    gpus: list[str] = Field(default_factory=list, description="Catalog rows the gap concerns.")
    names: list[str] = Field(default_factory=list, description="Parts the gap concerns that have no catalog row.")
    fields: list[str] = Field(default_factory=list, description="Data fields left empty for it ('region_tariffs.cn.colocation').")
    labelled: list[str] = Field(default_factory=list, description="Data values kept with an assumption label for it "
                                "('own_machine.utilisation_pct'): file stem, then the keys down to the labelled row.")
    subjects: list[str] = Field(default_factory=list, description="Subjects (knowledge/subjects.yaml) a question names the parts by "
                                "('hygon-dcu'): a figure asked of one of them is answered with the gap.")
    known_instead: list[str] = Field(default_factory=list, description="Catalog rows whose sourced figures are offered instead.")
    reference: list[ReferenceLine] = Field(min_length=1, description="The reference lines read that show the gap.")
    absent: list[str] = Field(default_factory=list, description="Terms no reference file contains (case-insensitive).")


class FactGaps(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    checked: str = Field(pattern=DATE_PATTERN, description="When the reference was last read for these gaps.")
    gaps: list[FactGap]

    def gap(self, gap_id: str) -> FactGap:
        return next(g for g in self.gaps if g.id == gap_id)

    def of_subject(self, subject: str) -> FactGap | None:
        """The gap of the parts a question names by ``subject`` ('hygon-dcu'), if one is recorded."""
        return next((g for g in self.gaps if subject in g.subjects), None)

    def secondary_price(self, gpu_id: str) -> FactGap | None:
        """The gap saying a row's price page is a secondary report (no primary page in the references), if recorded."""
        return next((g for g in self.gaps if g.status == "secondary" and gpu_id in g.gpus), None)

    def covers(self, field: str) -> FactGap | None:
        """The gap that explains why the data field ``field`` is empty, if one is recorded."""
        return next((g for g in self.gaps if field in g.fields), None)


@lru_cache(maxsize=1)
def fact_gaps(path: Path = DATA_FILE) -> FactGaps:
    data = read_table(path, FactGaps, "fact gaps file")
    require_unique(path, [g.id for g in data.gaps], "gap")
    return data
