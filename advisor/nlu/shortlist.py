"""The user's own shortlist: "we got quotes for 2x H100, 4x L40S or 1x H200 — which?", "4 used 3090s or 2 4090s?".

Read once from the message's frame (the cards named, in order, and the count said with each) and the words between
them: every gap between two consecutive cards holds an alternative joiner ("or", "vs", Chinese forms) or a list
joiner (a comma, "and"), and at least one gap holds an alternative joiner or the message asks which. The words are
data (``data/ask_cues.yaml``: ``alternative_joiner``, ``list_joiner``, ``asks_which``). A card the tagger set aside
("MI300X instead of our H100?", the card to be replaced) is one of the options too: "X instead of Y" weighs both."""

from __future__ import annotations

from advisor.nlu.cues import says
from advisor.nlu.frame import Frame, SlotValue, counts_of

Candidate = tuple[str, int | None]  # (catalog GPU as named, cards said with it or None)
MAX_CANDIDATES = 4  # the comparison table shows at most four options


def candidate_configs(text: str, frame: Frame, aside: tuple[SlotValue, ...] = ()) -> tuple[Candidate, ...]:
    """The (card, count) pairs the message offers as alternatives, in the order written; () unless two or more.
    ``aside``: cards of the message that took no role (the one an "instead of" replaces)."""
    own = [v for v in frame.slots.get("gpu", []) if v.start >= 0]
    taken = {v.start for v in own}
    cards = sorted([*own, *(v for v in aside if v.start >= 0 and v.start not in taken)], key=lambda v: v.start)
    if len(cards) < 2:
        return ()
    gaps = [text[a.start + len(a.surface) : b.start] for a, b in zip(cards, cards[1:])]
    alternatives = [says("alternative_joiner", gap) for gap in gaps]
    if not all(alt or says("list_joiner", gap) for alt, gap in zip(alternatives, gaps)):
        return ()
    if not (any(alternatives) or says("asks_which", text)):
        return ()
    counts = counts_of(cards, [v for v in frame.slots.get("gpu_count", []) if v.start >= 0])
    found = tuple(dict.fromkeys((card.value, count) for card, count in zip(cards, counts)))
    return found[:MAX_CANDIDATES] if len(found) >= 2 else ()
