"""The proposal's wording (text.yaml) and added figures (facts.yaml), loaded once."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from advisor.name_matcher import normalize_text
from knowledge.catalog import read_yaml

HERE = Path(__file__).parent


@lru_cache(maxsize=1)
def texts() -> dict[str, dict[str, str]]:
    return read_yaml(HERE / "text.yaml")


@lru_cache(maxsize=1)
def facts() -> dict[str, Any]:
    return read_yaml(HERE / "facts.yaml")


def phrase(key: str, language: str, **values: Any) -> str:
    """One text in ``language``, its {placeholders} filled."""
    text = texts()[key][language if language == "zh" else "en"]
    return text.format(**values) if values else text


@lru_cache(maxsize=1)
def _commands() -> tuple[str, ...]:
    return tuple(normalize_text(c) for c in texts()["commands"]["phrases"])


def is_proposal_command(message: str) -> bool:
    """ "make this a proposal" (in either language): the chat's request for the document, not a question to size."""
    if not isinstance(message, str) or len(message) > texts()["commands"]["max_length"]:
        return False
    said = normalize_text(message)
    return any(command in said for command in _commands())
