"""The bilingual sentences calculators add when a catalog fact changes an assumption (fact_notes.yaml)."""

from __future__ import annotations

from knowledge.bilingual import Text
from knowledge.wording import shipped

NOTES_FILE = "fact_notes.yaml"


def fact_note(key: str, **values: object) -> Text:
    """The note ``key`` with its placeholders filled; ``values`` may be a ``Text`` to use each language's form."""
    return shipped(NOTES_FILE).text(key, **values)
