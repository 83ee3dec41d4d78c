"""Bilingual base types shared by the data loaders, the calculators and the interfaces.

``Text`` is a sentence in both languages; ``AdvisorError`` is the one error raised for bad input,
explained in both. They live at the bottom layer so ``knowledge`` needs nothing from ``tools``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Text(BaseModel):
    """A sentence in both languages; interfaces pick the user's."""

    en: str
    zh: str

    def pick(self, language: str) -> str:
        return self.zh if language == "zh" else self.en


class Phrases(BaseModel):
    """Several ways of saying something in each language (a card's questions, a facet's cue words); none empty."""

    model_config = ConfigDict(extra="forbid")
    en: list[str] = Field(min_length=1)
    zh: list[str] = Field(min_length=1)


class AdvisorError(ValueError):
    """Bad or contradictory input, explained in both English and Chinese.

    ``code`` is a stable machine-readable slug (e.g. ``unknown_gpu``); ``suggestions``
    lists close catalog matches or valid values the user can try instead.
    """

    def __init__(self, code: str, en: str, zh: str, suggestions: list[str] | tuple[str, ...] = ()):
        super().__init__(en)
        self.code = code
        self.en = en
        self.zh = zh
        self.suggestions = list(suggestions)

    def message(self, language: str = "en") -> str:
        text = self.zh if language == "zh" else self.en
        if self.suggestions:
            joiner = "、" if language == "zh" else ", "
            label = "您是不是想找：" if language == "zh" else "Did you mean: "
            text = f"{text} {label}{joiner.join(self.suggestions)}"
        return text

    def to_dict(self) -> dict:
        return {"code": self.code, "en": self.en, "zh": self.zh, "suggestions": self.suggestions}
