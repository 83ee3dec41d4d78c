"""The doors' wording (interfaces_text.yaml), read once for every interface module, and errors worded from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from knowledge.bilingual import AdvisorError
from knowledge.wording import Wording

TEXT = Wording(Path(__file__).with_name("interfaces_text.yaml"))


def worded_error(code: str, key: str | None = None, **values: Any) -> AdvisorError:
    """An ``AdvisorError`` whose two languages are the phrase ``errors.<key>`` (the code itself when no key is given)."""
    return AdvisorError(code, *TEXT.both(f"errors.{key or code}", **values))
