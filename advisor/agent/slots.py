"""Conversation slots: what the user has established so far, later turns overriding earlier ones."""

from __future__ import annotations

from advisor.entities import Entities

# Per-message facts that must not leak into the next question.
NOT_CARRIED = {"language", "language_info", "intent_cues"}


def merge_slots(turns: list[Entities]) -> Entities:
    """The last turn as the base; empty fields filled from the most recent earlier turn that had them."""
    merged = turns[-1].model_copy(deep=True)
    for earlier in reversed(turns[:-1]):
        for name in Entities.model_fields:
            if name in NOT_CARRIED or _filled(getattr(merged, name)):
                continue
            value = getattr(earlier, name)
            if _filled(value):
                setattr(merged, name, value)
    return merged


def _filled(value: object) -> bool:
    return value not in (None, [], {}, "")
