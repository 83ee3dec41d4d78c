"""Capabilities a buyer asks a named GPU about (FP8, FP4, NVLink, PCIe generation, memory, power...): which
catalog field decides each, the words that name it, and the verdict's wording. The table is data
(``capabilities.yaml``); ``tools/capability.py`` computes verdicts from it and the catalog."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from knowledge.bilingual import Phrases, Text
from knowledge.catalog import read_table
from knowledge.gpus import GPU

CAPABILITIES_FILE = Path(__file__).parent / "capabilities.yaml"


class Capability(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    field: str = Field(description="The GPU catalog field that decides it.")
    kind: Literal["presence", "minimum", "value"]
    unit: str
    label: Text
    cues: Phrases
    has: Text
    lacks: Text
    meaning_has: Text
    meaning_lacks: Text
    unknown: Text | None = Field(None, description="Said when the field is empty but the interconnect text names such a link.")
    unknown_if_unsourced: bool = Field(False, description="An empty field means 'not in our sources' (unknown); 0 or false is a no.")
    premise: Text | None = Field(None, description="Leads any answer whose question relies on this capability of a card that lacks it.")
    unknown_when: list[str] = Field(default_factory=list, description="Interconnect words meaning 'has it, figure unpublished'.")
    unknown_for_segments: list[str] = Field(
        default_factory=list, description="Catalog segments whose vendor publishes no such figure: an empty field there is not a 'no'."
    )
    figure: Text | None = Field(None, description="A minimum asked without a size: the figure alone.")
    threshold_slot: str | None = Field(None, description="The reading's slot that states the size asked about.")
    absorbs: list[str] = Field(default_factory=list, description="Capabilities whose cues, beside this one's, ask about this one.")
    not_with: list[str] = Field(default_factory=list, description="Slots that make the question one about a setup, not this card.")

    @model_validator(mode="after")
    def _field_exists(self) -> Capability:
        if self.field not in GPU.model_fields:
            raise ValueError(f"capability {self.id}: {self.field!r} is not a GPU catalog field")
        if self.premise is not None and self.kind != "presence":
            raise ValueError(f"capability {self.id}: only a presence capability can be a premise a card lacks")
        if (self.unknown_if_unsourced or self.unknown_for_segments) and self.unknown is None:
            raise ValueError(f"capability {self.id}: an unsourced field needs the `unknown` wording")
        if self.kind == "minimum" and self.figure is None:
            raise ValueError(f"capability {self.id}: a minimum needs the `figure` wording for a question without a size")
        return self


class CapabilityTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    capabilities: list[Capability] = Field(min_length=1)

    def get(self, capability_id: str) -> Capability | None:
        return next((c for c in self.capabilities if c.id == capability_id), None)


@lru_cache(maxsize=1)
def load_capabilities(path: Path = CAPABILITIES_FILE) -> CapabilityTable:
    return read_table(path, CapabilityTable, "capability table")
