"""The slot schema (data/schema.yaml ``slots:``): one row per slot with everything the code knows of it: the value
kinds that can play it, whether it counts, its name in words, which follow-up values restate it, which values add to it,
which slots it replaces, why a stated value no tool used changes nothing, and the ``Slots`` property that reads it. The
tables the reader, the tagger and the answers use are built here from those rows, so adding a slot is adding a row."""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

SCHEMA_FILE = Path(__file__).parent / "data" / "schema.yaml"


class Words(BaseModel):
    model_config = ConfigDict(extra="forbid")
    en: str
    zh: str


class SlotRow(BaseModel):
    """One slot of the schema; the header of data/schema.yaml says what each field means."""

    model_config = ConfigDict(extra="forbid")
    about: str
    labelled: bool = True
    kinds: list[str] = []
    integer: bool = False
    label: Words
    restated_by: list[str] = []
    adds: list[str] = []
    replaces: list[str] = []
    unused_because: Words | None = None
    read_as: str | None = None
    read: Literal["one", "each", "money"] = "one"


class SlotSchema:
    def __init__(self, rows: dict[str, SlotRow]):
        self.rows = rows

    @classmethod
    def read(cls, path: Path = SCHEMA_FILE) -> SlotSchema:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))["slots"]
        return cls({slot: SlotRow.model_validate(row) for slot, row in raw.items()})

    @cached_property
    def roles_by_kind(self) -> dict[str, set[str]]:
        """value kind → the slots a value of that kind can play (a kind no row names plays none)."""
        roles: dict[str, set[str]] = {}
        for slot, row in self.rows.items():
            for kind in row.kinds:
                roles.setdefault(kind, set()).add(slot)
        return roles

    def of_kind(self, kind: str) -> set[str]:
        return set(self.roles_by_kind.get(kind, ()))

    @cached_property
    def integer(self) -> set[str]:
        return {slot for slot, row in self.rows.items() if row.integer}

    @cached_property
    def labelled(self) -> dict[str, str]:
        """slot → description, for the slots training labels may use."""
        return {slot: row.about for slot, row in self.rows.items() if row.labelled}

    @cached_property
    def restated_by(self) -> dict[str, frozenset[str]]:
        """value kind → the slots a follow-up's lone value of that kind restates."""
        restated: dict[str, set[str]] = {}
        for slot, row in self.rows.items():
            for kind in row.restated_by:
                restated.setdefault(kind, set()).add(slot)
        return {kind: frozenset(slots) for kind, slots in restated.items()}

    def adds(self, slot: str) -> frozenset[str]:
        return frozenset(self.rows[slot].adds) if slot in self.rows else frozenset()

    def replaces(self, slot: str) -> tuple[str, ...]:
        """The slots a follow-up stating ``slot`` drops without naming them."""
        return tuple(self.rows[slot].replaces) if slot in self.rows else ()

    @cached_property
    def adding_values(self) -> frozenset[str]:
        """Values a follow-up adds beside a slot's value instead of replacing it, whatever their slot."""
        return frozenset(value for row in self.rows.values() for value in row.adds)

    @cached_property
    def labels(self) -> dict[str, tuple[str, str]]:
        return {slot: (row.label.en, row.label.zh) for slot, row in self.rows.items()}

    @cached_property
    def unused_because(self) -> dict[str, tuple[str, str]]:
        return {slot: (row.unused_because.en, row.unused_because.zh) for slot, row in self.rows.items() if row.unused_because}

    @cached_property
    def readers(self) -> dict[str, tuple[str, str]]:
        """Slots property name → (slot, how it is read)."""
        return {row.read_as: (slot, row.read) for slot, row in self.rows.items() if row.read_as}

    def training_key(self) -> bytes:
        """What the trained models depend on (the tagger's role sets), for the cache key: a label or a description
        edited does not retrain them."""
        table = {slot: row.kinds for slot, row in self.rows.items()}
        return json.dumps(table, sort_keys=True).encode()


SLOT_SCHEMA = SlotSchema.read()
LABELS: dict[str, tuple[str, str]] = SLOT_SCHEMA.labels
# slot → (en, zh): why a stated value no tool used changes nothing (Slots.unusable gives its reasons in the same form)
UNUSED_BECAUSE: dict[str, tuple[str, str]] = SLOT_SCHEMA.unused_because


def slot_label(slot: str, language: str) -> str:
    en, zh = LABELS.get(slot, (slot.replace("_", " "), slot.replace("_", " ")))
    return zh if language == "zh" else en


def said(slot: str, surface: str, language: str) -> str:
    """A stated value under its slot's name, as the user wrote it: 'number of GPUs “8 cards”'."""
    return f"{slot_label(slot, language)} “{surface}”"
