"""The serving answers' wording (serving_text.yaml), shared by the speed and the memory answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from knowledge.bilingual import Text

TEXT = yaml.safe_load(Path(__file__).with_name("serving_text.yaml").read_text(encoding="utf-8"))


def serving_text(key: str, **values: Any) -> Text:
    """A phrase of serving_text.yaml with its blanks filled; a ``Text`` value fills each language with its own."""
    row = TEXT[key]
    return Text(
        en=row["en"].format(**{k: v.en if isinstance(v, Text) else v for k, v in values.items()}),
        zh=row["zh"].format(**{k: v.zh if isinstance(v, Text) else v for k, v in values.items()}),
    )
