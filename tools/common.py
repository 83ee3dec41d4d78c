"""Small shared output types, so every tool shows its working the same way."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Text(BaseModel):
    """A sentence in both languages; interfaces pick the user's."""

    en: str
    zh: str

    def pick(self, language: str) -> str:
        return self.zh if language == "zh" else self.en


class LineItem(BaseModel):
    """One figure of a result with the formula that produced it, for traceable answers."""

    key: str = Field(description="Stable identifier, e.g. 'weights', 'kv_cache'.")
    label: Text
    value: float
    unit: str = Field(description="Unit of `value`, e.g. 'GB', 'GiB', 'USD', 'hours'.")
    formula: str = Field(description="The formula with the numbers substituted, e.g. '8.03e9 × 2 B = 16.06 GB'.")
