"""Answers for messages we should not (or cannot) act on: unreadable, off-topic, injection."""

from __future__ import annotations

from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("dialogue", "guard")


def capabilities(turn: Turn) -> str:
    """What the advisor does, with an example question per kind, in the turn's language."""
    return WORDING.say(turn, "capabilities")


def unreadable(turn: Turn) -> str | None:
    """A reply for empty, emoji-only, nonsense or unsupported-language messages; None if readable."""
    flags = set(turn.reading.language_info.flags)
    if "empty" in flags:
        lead = WORDING.say(turn, "empty")
    elif "emoji_only" in flags:
        lead = WORDING.say(turn, "emoji_only")
    elif "unsupported" in flags:
        lead = WORDING.entry("unsupported_language")["en"]  # said in both languages at once: the question's language is neither
    elif "nonsense" in flags and not (turn.entities.models or turn.entities.gpus or turn.entities.params):
        lead = WORDING.say(turn, "nonsense")
    else:
        return None
    return f"{lead}\n\n{capabilities(turn)}"


def out_of_scope(turn: Turn) -> str:
    """What the advisor does, briefly, with three questions it answers, in the user's language."""
    lead = WORDING.say(turn, "out_of_scope")
    return f"{lead}\n\n{WORDING.say(turn, 'scope_examples')}"


def injection(turn: Turn) -> str:
    return f"{WORDING.say(turn, 'injection')} {WORDING.say(turn, 'scope')}"


def greeting(turn: Turn) -> str:
    lead = WORDING.say(turn, "greeting")
    return f"{lead}\n\n{capabilities(turn)}"
