"""Bilingual domain glossary: expands queries across languages and teaches jieba our words.

The English embedder cannot read "out of GPU memory" written in Chinese, and the Chinese half of the lexical index never
sees "VRAM", so each query is expanded with the other language's terms for the concepts it
mentions. The same Chinese terms are registered as jieba user words so "throttling" or "gradient
accumulation" in Chinese segment as one token instead of being cut apart or merged with neighbours.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from pathlib import Path

import jieba
import yaml
from pydantic import BaseModel, Field, field_validator

from knowledge.catalog import DATA_DIR

GLOSSARY_PATH = DATA_DIR / "glossary.yaml"
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class Term(BaseModel):
    """One concept, named in both languages."""

    zh: list[str] = Field(min_length=1, description="Ways Chinese users say it.")
    en: list[str] = Field(min_length=1, description="Ways English users and docs say it.")

    @field_validator("zh", "en")
    @classmethod
    def _strip(cls, values: list[str]) -> list[str]:
        cleaned = [str(v).strip() for v in values if str(v).strip()]
        if not cleaned:
            raise ValueError("needs at least one non-empty phrase")
        return cleaned


class Expansion(BaseModel):
    """Terms from the other language for the concepts a query mentions."""

    english: list[str] = Field(default_factory=list, description="English terms for Chinese phrases found.")
    english_main: list[str] = Field(
        default_factory=list, description="Only the first two English terms of each concept: a short query for the embedder."
    )
    chinese: list[str] = Field(default_factory=list, description="Chinese terms for English phrases found.")


class Glossary:
    def __init__(self, terms: list[Term]):
        self.terms = terms
        # Longest phrases first so "out of memory" wins over "memory" when both are listed.
        self._zh = sorted(((p, t) for t in terms for p in t.zh), key=lambda item: -len(item[0]))
        self._en = [(re.compile(rf"(?<![\w-]){re.escape(p.lower())}(?![\w-])"), t) for t in terms for p in t.en]

    def expand(self, query: str) -> Expansion:
        lowered = query.lower()
        english: dict[str, None] = {}
        english_main: dict[str, None] = {}
        chinese: dict[str, None] = {}
        for phrase, term in self._zh:
            if phrase.lower() in lowered:
                english.update(dict.fromkeys(term.en))
                english_main.update(dict.fromkeys(term.en[:2]))
        for pattern, term in self._en:
            if pattern.search(lowered):
                chinese.update(dict.fromkeys(term.zh))
        return Expansion(english=list(english), english_main=list(english_main), chinese=list(chinese))

    def chinese_words(self) -> list[str]:
        """Chinese phrases without spaces: the ones jieba can hold as single words."""
        return sorted({p for t in self.terms for p in t.zh if CJK.search(p) and " " not in p})


def load_glossary(path: Path = GLOSSARY_PATH) -> Glossary:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict) or not isinstance(raw.get("terms"), list):
        raise ValueError(f"{path}: expected a mapping with a 'terms' list")
    return Glossary([Term.model_validate(item) for item in raw["terms"]])


@lru_cache(maxsize=1)
def default_glossary() -> Glossary:
    return load_glossary()


_jieba_lock = threading.Lock()
_jieba_ready = False


def ensure_jieba() -> None:
    """Initialise jieba once per process, with the glossary's Chinese terms as user words."""
    global _jieba_ready
    if _jieba_ready:
        return
    with _jieba_lock:
        if _jieba_ready:
            return
        import logging

        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()
        for word in default_glossary().chinese_words():
            # Without a frequency jieba picks the smallest one that keeps the word whole.
            jieba.add_word(word)
        _jieba_ready = True
