"""The subjects a question or a concept card names besides GPUs: precisions, capabilities, engines and the
activity. The table is data (``subjects.yaml``); a subject that mirrors a capability takes its cues and label
from ``capabilities.yaml`` so the words are written once."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from knowledge.bilingual import Phrases, Text
from knowledge.capabilities import load_capabilities
from knowledge.catalog import read_table

SUBJECTS_FILE = Path(__file__).parent / "subjects.yaml"
Kind = Literal["gpu", "model", "precision", "capability", "engine", "activity", "topic", "ask"]


class Subject(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9_-]+$")
    kind: Kind
    capability: str | None = Field(None, description="The capability whose cues and label this subject takes.")
    label: Text | None = None
    cues: Phrases | None = None
    implies: list[str] = Field(default_factory=list, description="Subjects a cue of this one brings with it.")
    computed_by: list[str] = Field(
        default_factory=list, description="Tasks whose calculation works this topic out: a facet cue beside it (\"vs an API\") names "
        "the other side of that sum, so the facet does not take the calculation over.",
    )
    takes_figures: list[str] = Field(
        default_factory=list, description="For an ask: the catalog figures (advisor/nlu/data/spec_fields.yaml) whose words it "
        "uses in its own sense; named, it asks none of them of a card (a cooler choice speaks of cooling, not a card's cooler).",
    )
    vendor: str | None = Field(
        None, description="For a maker named as hardware: its catalog vendor. A text that names a catalog part of that vendor "
        "names that part, not one of the maker's parts without a row.",
    )

    @model_validator(mode="after")
    def _from_capability(self) -> Subject:
        if self.capability is not None:
            found = load_capabilities().get(self.capability)
            if found is None:
                raise ValueError(f"subject {self.id}: no capability {self.capability!r} in capabilities.yaml")
            self.label, self.cues = self.label or found.label, self.cues or found.cues
        if self.label is None or self.cues is None:
            raise ValueError(f"subject {self.id}: needs a label and cues, or a capability to take them from")
        return self


class SubjectTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    subjects: list[Subject] = Field(min_length=1)
    card_must_name: list[Kind] = Field(default_factory=list, description="Kinds a card must name itself when the question names them: "
                                       "a card silent on the topic asked (MFU, export rules, cost per token) is about something else.")
    card_covers_each: list[Kind] = Field(default_factory=list, description="Kinds where a card must cover every subject the "
                                         "question names: a card on one of two compared GPUs does not answer the comparison.")
    narrowing_asks: list[str] = Field(default_factory=list, description="Asks that narrow a card to questions asking them.")
    card_first: list[str] = Field(default_factory=list, description="Asks a card answers before any calculation: the judgement "
                                  "(which variant of one GPU, how big a UPS, a card with no fan, a daily volume as a rate) is the answer, "
                                  "and a calculation the question's values allow follows it.")
    serving_techniques: list[str] = Field(default_factory=list, description="Topics that are serving techniques: a message naming one "
                                          "with a judgement word (Ask.weighs_technique) is answered by the technique's card, not by triage.")

    @model_validator(mode="after")
    def _implied_exist(self) -> SubjectTable:
        ids = {s.id for s in self.subjects}
        missing = sorted({i for s in self.subjects for i in s.implies} - ids)
        if missing:
            raise ValueError(f"implied subjects not in the table: {missing}")
        asks = {s.id for s in self.subjects if s.kind == "ask"}
        if not set(self.card_first) <= asks:
            raise ValueError(f"card_first names subjects that are not asks: {sorted(set(self.card_first) - asks)}")
        topics = {s.id for s in self.subjects if s.kind == "topic"}
        if not set(self.serving_techniques) <= topics:
            raise ValueError(f"serving_techniques names subjects that are not topics: {sorted(set(self.serving_techniques) - topics)}")
        return self


def topics_computed_by(task: str | None) -> frozenset[str]:
    """The topics the calculation of ``task`` works out (the rows' ``computed_by``)."""
    return frozenset(s.id for s in load_subjects().subjects if task in s.computed_by)


@lru_cache(maxsize=1)
def load_subjects(path: Path = SUBJECTS_FILE) -> SubjectTable:
    return read_table(path, SubjectTable, "subject table")
