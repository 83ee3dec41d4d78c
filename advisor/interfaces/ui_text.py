"""Every label the web UI shows, in English and Chinese (ui_text.yaml); the language toggle relabels from this table."""

from __future__ import annotations

from pathlib import Path

from advisor.contract import Language
from advisor.labels import label
from knowledge.wording import Wording

DEFAULT_LANGUAGE: Language = "zh"
WORDING = Wording(Path(__file__).with_name("ui_text.yaml"))
TEXT: dict[str, tuple[str, str]] = {key: (row["en"], row["zh"]) for key, row in WORDING.data["labels"].items()}  # key: (English, Chinese)
EXAMPLES: list[str] = WORDING.data["examples"]


def t(key: str, language: str) -> str:
    return label(TEXT[key], language)
