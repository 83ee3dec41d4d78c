"""The table that maps checkpoint-name suffixes and Ollama tag words to a precision (checkpoint_names.yaml)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict

TABLE_PATH = Path(__file__).parent / "checkpoint_names.yaml"


class Suffix(BaseModel):
    model_config = ConfigDict(extra="forbid")

    suffix: str
    precision: str | None


class CheckpointNames(BaseModel):
    model_config = ConfigDict(extra="forbid")

    suffixes: list[Suffix]
    tag_words: list[str]


@lru_cache(maxsize=1)
def load_checkpoint_names(path: Path = TABLE_PATH) -> CheckpointNames:
    table = CheckpointNames.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    table.suffixes.sort(key=lambda s: -len(s.suffix))  # "-GPTQ-Int4" before "-GPTQ"
    return table
