"""The facet of a question: which side of the thing it names it asks about (its figures, whether it may be
bought, whether its output is good enough, the software around it, what to do, a vendor's number, where it
can stand). The cue words per facet are data (``data/facets.yaml``); a message with none asks for figures."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from advisor.name_matcher import normalize_text
from knowledge.bilingual import Phrases

FACETS_FILE = Path(__file__).parent / "data" / "facets.yaml"
SPECS = "specs"


class FacetEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    facet: str = Field(pattern=r"^[a-z_]+$")
    takes_over: list[str] = Field(min_length=1, description="Calculations whose answer would miss this facet.")
    yields_to_choice: bool = Field(False, description="A message naming two or more cards to choose between is the comparison, "
                                   "whose verdict answers this facet too.")
    cues: Phrases


class Facet(BaseModel):
    name: str = SPECS
    takes_over: tuple[str, ...] = ()
    cue: str | None = None  # the words that decided it, for tests and traces
    yields_to_choice: bool = False  # see FacetEntry

    def overrides(self, task: str | None) -> bool:
        """A message read as ``task`` that asks this facet is answered from the knowledge base instead."""
        return task in self.takes_over


class FacetTable(BaseModel):
    facets: list[FacetEntry] = Field(min_length=1)


def cue_pattern(phrases: Phrases, not_before: Sequence[str] = (), skipping: Sequence[str] = ()) -> re.Pattern[str]:
    """One pattern for a list of cue words in both languages, to search in ``normalize_text`` output.

    Shared by the facets and the Ask's flags (``ask_cues.yaml``) so that cue words mean the same everywhere.
    A cue followed by a word that begins with one of ``not_before`` (after any of ``skipping``) does not count."""
    cues = sorted({normalize_text(c) for c in (*phrases.en, *phrases.zh)}, key=len, reverse=True)
    # an ASCII cue is a whole word ("ban" is not in "bandwidth"); a Chinese cue stands anywhere
    alternatives = "|".join(rf"(?<![a-z0-9_]){re.escape(c)}(?![a-z0-9_])" if c.isascii() else re.escape(c) for c in cues)
    if not_before:  # "how many tokens" asks for a length, not a count: the cue is refused before those words
        # a Latin word follows after a space; a Chinese one may follow at once (no spaces between Chinese words)
        latin, chinese = [w for w in not_before if w.isascii()], [w for w in not_before if not w.isascii()]
        refused = []
        if latin:
            skipped = rf"(?:(?:{_any_of([w for w in skipping if w.isascii()])})\s+)?" if any(w.isascii() for w in skipping) else ""
            refused.append(rf"\s+{skipped}(?:{_any_of(latin)})")
        if chinese:
            skipped = rf"(?:(?:{_any_of([w for w in skipping if not w.isascii()])})\s*)?" if any(not w.isascii() for w in skipping) else ""
            refused.append(rf"\s*{skipped}(?:{_any_of(chinese)})")
        alternatives = rf"(?:{alternatives})(?!{'|'.join(refused)})"
    return re.compile(alternatives)


def _any_of(words: Sequence[str]) -> str:
    return "|".join(re.escape(normalize_text(word)) for word in sorted(words, key=len, reverse=True))


@lru_cache(maxsize=1)
def _patterns() -> list[tuple[FacetEntry, re.Pattern[str]]]:
    table = FacetTable.model_validate(yaml.safe_load(FACETS_FILE.read_text(encoding="utf-8")))
    return [(entry, cue_pattern(entry.cues)) for entry in table.facets]


def facet_of(text: str) -> Facet:
    """The facet ``text`` asks about: the first entry of the table with a cue in it, else the figures."""
    normal = normalize_text(text if isinstance(text, str) else "")
    for entry, pattern in _patterns():
        found = pattern.search(normal)
        if found:
            return Facet(name=entry.facet, takes_over=tuple(entry.takes_over), cue=found.group(0), yields_to_choice=entry.yields_to_choice)
    return Facet()
