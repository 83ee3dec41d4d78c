"""Slot names in words, for answers that mention what the user stated (wording in data/slot_labels.yaml)."""

from __future__ import annotations

from pathlib import Path

from knowledge.wording import Wording

WORDING = Wording(Path(__file__).parent / "data" / "slot_labels.yaml")
LABELS: dict[str, tuple[str, str]] = {slot: WORDING.pair(slot) for slot in WORDING.data}


def slot_label(slot: str, language: str) -> str:
    en, zh = LABELS.get(slot, (slot.replace("_", " "), slot.replace("_", " ")))
    return zh if language == "zh" else en


def said(slot: str, surface: str, language: str) -> str:
    """A stated value under its slot's name, as the user wrote it: 'number of GPUs “8 cards”'."""
    return f"{slot_label(slot, language)} “{surface}”"
