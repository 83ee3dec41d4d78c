"""Sentences of answer text: where one ends, with the marks, abbreviations and brackets as data (sentences.yaml).

"Yes: the plugin runs on Atlas A2 hardware, i.e. the 910B (…). Its feature matrix …" has one sentence before "Its":
an abbreviation's full stop ("i.e.", "e.g.") and a mark inside brackets ("（即 910B。）") end none. Every reader of an
answer's first sentence (the several-question opening line, the fold of a part, a search snippet, a tool's one-line
description) cuts with these functions, so a new abbreviation is a line of the data file, not a pattern in code.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from knowledge.catalog import read_yaml

DATA_FILE = Path(__file__).parent / "sentences.yaml"
LEADING_MARKS = "*_\"'`"  # emphasis and quotes a word may start with ("**e.g.**")


class SentenceRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ends_closed: tuple[str, ...] = Field(min_length=1, description="Marks that end a sentence where they stand.")
    ends_spaced: tuple[str, ...] = Field(min_length=1, description="Marks that end one only before a space or the end.")
    abbreviations: frozenset[str] = Field(description="Words ending in a full stop that end no sentence, lower case.")
    brackets: dict[str, str] = Field(description="Opening mark → closing mark; nothing inside ends a sentence.")


@lru_cache(maxsize=1)
def rules() -> SentenceRules:
    data = read_yaml(DATA_FILE)
    data["abbreviations"] = frozenset(word.lower() for word in data["abbreviations"])
    return SentenceRules(**data)


def _word_before(text: str, end: int, openers: str) -> str:
    """The word that ends at ``end`` (inclusive of its full stop), without the brackets or marks it starts with."""
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start : end + 1].lstrip(openers + LEADING_MARKS).lower()


def _ends(text: str, nested: bool) -> list[int]:
    """Offsets just past each sentence end; with ``nested`` a mark inside brackets ends none."""
    found, r = [], rules()
    openers, closers = "".join(r.brackets), "".join(r.brackets.values())
    depth = 0
    for index, char in enumerate(text):
        if nested and char in openers:
            depth += 1
        elif nested and char in closers:
            depth = max(depth - 1, 0)
        elif depth:
            continue
        elif char in r.ends_closed:
            found.append(index + 1)
        elif char in r.ends_spaced and (index + 1 == len(text) or text[index + 1].isspace()):
            if not (char == "." and _word_before(text, index, openers) in r.abbreviations):
                found.append(index + 1)
    return found


def sentence_ends(text: str) -> list[int]:
    """Offsets just past each sentence end of ``text``, in order. Past a bracket that never closes, the marks end
    sentences again (an unclosed "(" must not hide every sentence after it)."""
    ends = _ends(text, nested=True)
    r = rules()
    if sum(text.count(mark) for mark in r.brackets) > sum(text.count(mark) for mark in r.brackets.values()):
        last = ends[-1] if ends else 0
        ends += [end for end in _ends(text, nested=False) if end > last]
    return ends


def sentences(text: str) -> list[str]:
    """``text`` cut into its sentences (each stripped); text after the last end is a sentence of its own."""
    cuts = [0, *sentence_ends(text)]
    if cuts[-1] < len(text):
        cuts.append(len(text))
    return [piece for start, end in zip(cuts, cuts[1:], strict=False) if (piece := text[start:end].strip())]


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (all of it when no sentence ends)."""
    found = sentences(text)
    return found[0] if found else ""
