"""The serving answers' wording (the package text.yaml, section serving), shared by the speed and the memory answers."""

from __future__ import annotations

from typing import Any

from advisor.offline.wording import Wording
from knowledge.bilingual import Text

WORDING = Wording("serving", "serving")


def serving_text(key: str, **values: Any) -> Text:
    """A phrase of the serving section with its blanks filled; a ``Text`` value fills each language with its own."""
    return WORDING.text(key, **values)
