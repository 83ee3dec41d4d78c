"""The slot schema (data/schema.yaml ``slots:``): one row per slot with everything the code knows of it: the value
kinds that can play it, whether it counts, its name in words, which follow-up values restate it, which values add to it,
which slots it replaces, why a stated value no tool used changes nothing, and the ``Slots`` property that reads it. The
tables the reader, the tagger and the answers use are built here from those rows, so adding a slot is adding a row.
The ``value_kinds:`` rows say, per value kind, what the tagger weighs beyond the slots the kind can play."""

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
    scored_as: str | None = None
    scored: bool = True
    kinds: list[str] = []
    integer: bool = False
    label: Words
    restated_by: list[str] = []
    adds: list[str] = []
    replaces: list[str] = []
    unused_because: Words | None = None
    read_as: str | None = None
    read: Literal["one", "each", "money"] = "one"


class KindRow(BaseModel):
    """One value kind of the schema's ``value_kinds:``; the header there says what each field means."""

    model_config = ConfigDict(extra="forbid")
    counted: bool = False
    in_context: bool = False


class SlotSchema:
    def __init__(self, rows: dict[str, SlotRow], kinds: dict[str, KindRow] | None = None):
        self.rows = rows
        self.kinds = kinds or {}
        unplayed = set(self.kinds) - set(self.roles_by_kind)
        if unplayed:
            raise ValueError(f"schema.yaml value_kinds: no slot row names the kinds {sorted(unplayed)}")
        scored_as_unlabelled = {slot: row.scored_as for slot, row in rows.items() if row.scored_as and not rows.get(row.scored_as, row).labelled}
        if scored_as_unlabelled:
            raise ValueError(f"schema.yaml: a slot is scored as a labelled slot, which these are not: {scored_as_unlabelled}")

    @classmethod
    def read(cls, path: Path = SCHEMA_FILE) -> SlotSchema:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        slots = {slot: SlotRow.model_validate(row) for slot, row in raw["slots"].items()}
        return cls(slots, {kind: KindRow.model_validate(row) for kind, row in raw.get("value_kinds", {}).items()})

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
    def counted_kinds(self) -> frozenset[str]:
        """Amounts and counts of cards, servers or users: in a question stating a setup, never noise."""
        return frozenset(kind for kind, row in self.kinds.items() if row.counted)

    @cached_property
    def context_roled_kinds(self) -> frozenset[str]:
        """Kinds whose slot, or none, the words around the value decide even when one slot alone takes them."""
        return frozenset(kind for kind, row in self.kinds.items() if row.in_context)

    def scored_as(self, slot: str) -> str | None:
        """The labelled slot a held-out label gives this slot's value (itself unless the row says otherwise), or None
        for a slot no label marks."""
        row = self.rows.get(slot)
        if row is None:
            return slot
        return (row.scored_as or slot) if row.scored else None

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
        edited does not retrain them. The value kinds' rows steer the tagger too."""
        table = {slot: row.kinds for slot, row in self.rows.items()}
        kinds = {kind: row.model_dump() for kind, row in self.kinds.items()}
        return json.dumps({"slots": table, "value_kinds": kinds}, sort_keys=True).encode()


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
