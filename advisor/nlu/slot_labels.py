"""The slot schema's per-slot data (data/slot_labels.yaml): each slot's name in words, for answers that mention what the
user stated, whether a follow-up's bare number restates it, and why a stated value no tool used changes nothing."""

from __future__ import annotations

from pathlib import Path

from knowledge.wording import Wording

WORDING = Wording(Path(__file__).parent / "data" / "slot_labels.yaml")
LABELS: dict[str, tuple[str, str]] = {slot: WORDING.pair(f"{slot}.label") for slot in WORDING.data}
# a bare number of the slot's shape in a follow-up restates the conversation's value ("and 64?" after a batch of 32)
RESTATABLE: frozenset[str] = frozenset(slot for slot, row in WORDING.data.items() if row.get("restatable"))
# slot → (en, zh): why a stated value no tool used changes nothing (Slots.unusable gives its reasons in the same form)
UNUSED_BECAUSE: dict[str, tuple[str, str]] = {slot: WORDING.pair(f"{slot}.unused_because") for slot, row in WORDING.data.items() if "unused_because" in row}


def slot_label(slot: str, language: str) -> str:
    en, zh = LABELS.get(slot, (slot.replace("_", " "), slot.replace("_", " ")))
    return zh if language == "zh" else en


def said(slot: str, surface: str, language: str) -> str:
    """A stated value under its slot's name, as the user wrote it: 'number of GPUs “8 cards”'."""
    return f"{slot_label(slot, language)} “{surface}”"
