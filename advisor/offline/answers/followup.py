"""What a follow-up changed in the thread's calculation, said before the re-run answer: "and with 16?" after a
sizing for 50 users is answered "With concurrent users 16 instead of 50 (everything else as before): …", so the
reader knows the model, precision and load of the earlier turns were kept and only that value moved."""

from __future__ import annotations

from dataclasses import dataclass

from advisor.nlu.frame import SlotValue
from advisor.nlu.slot_labels import slot_label
from advisor.offline.answers.wording import Wording
from advisor.offline.turn import Turn

WORDING = Wording("followup_text.yaml")
NOT_TOLD = {"already_tried", "claim"}  # facts of a story, not values of a calculation
PROBLEM = "troubleshoot"  # a problem thread gathers facts: only a value it replaces is a change


@dataclass(frozen=True)
class Change:
    slot: str
    new: str  # as the user wrote it in this message
    old: str | None  # as the thread had it; None when it was a default


def changes(turn: Turn) -> list[Change]:
    """The values this follow-up states that differ from what the thread held before it."""
    reading = turn.reading
    continues = reading.follow_up or (reading.intent == PROBLEM and len(reading.task_messages) > 1)
    if not continues:
        return []
    found = []
    for slot in reading.frame.names():
        values = reading.frame.slots[slot]
        # a value carried beside the new one ("vs L40S" keeps the A6000, start -1) sets cards side by side: nothing replaced
        if slot in NOT_TOLD or any(v.start < 0 for v in values):
            continue
        if reading.before.all(slot) == [v.value for v in values]:  # said again, unchanged
            continue
        old = _surface(reading.before.slots.get(slot, []))
        if old is None and reading.task == PROBLEM:
            continue
        found.append(Change(slot, _surface(values) or "", old))
    return found


def lead(turn: Turn) -> str:
    """"With GPU L40S instead of H100 (everything else as before): " or "" when the message changed nothing."""
    found = changes(turn)
    if not found:
        return ""
    parts = [
        WORDING.say(turn, "changed" if c.old is not None else "added", label=slot_label(c.slot, turn.language), new=c.new, old=c.old)
        for c in found
    ]
    return WORDING.say(turn, "lead", changes=WORDING.say(turn, "joiner").join(parts))


def _surface(values: list[SlotValue]) -> str | None:
    said = [v.surface.strip() for v in values if v.surface.strip()]
    return " + ".join(said) if said else None
