"""The bilingual sentences calculators add when a catalog fact changes an assumption (fact_notes.yaml)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

from knowledge.bilingual import Text

NOTES_PATH = Path(__file__).parent / "fact_notes.yaml"


@lru_cache(maxsize=1)
def _notes() -> dict[str, dict[str, str]]:
    return yaml.safe_load(NOTES_PATH.read_text(encoding="utf-8"))


def fact_note(key: str, **values: object) -> Text:
    """The note ``key`` with its placeholders filled; ``values`` may be a ``Text`` to use each language's form."""
    entry = _notes()[key]
    pick = {lang: {k: (v.pick(lang) if isinstance(v, Text) else v) for k, v in values.items()} for lang in ("en", "zh")}
    return Text(en=entry["en"].format(**pick["en"]), zh=entry["zh"].format(**pick["zh"]))
