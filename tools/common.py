"""How every tool shows its working: one figure with the formula that produced it, in both languages."""

from __future__ import annotations

from pydantic import BaseModel, Field

from knowledge.bilingual import Text
from knowledge.wording import shipped

FIELDS = shipped("tool_field_descriptions.yaml")


class LineItem(BaseModel):
    """One figure of a result with the formula that produced it, for traceable answers."""

    key: str = Field(description="Stable identifier, e.g. 'weights', 'kv_cache'.")
    label: Text
    value: float
    unit: str = Field(description="Unit of `value`, e.g. 'GB', 'GiB', 'USD', 'hours'.")
    formula: str = Field(description="The formula with the numbers substituted, e.g. '8.03e9 × 2 B = 16.06 GB'.")
    formula_zh: str = Field(description=FIELDS.entry("common.formula_zh"))

    def formula_in(self, language: str) -> str:
        return self.formula_zh if language == "zh" else self.formula


def formula_fields(formula: Text) -> dict[str, str]:
    """A bilingual formula as the ``formula`` / ``formula_zh`` pair of a LineItem (or any result row with the two)."""
    return {"formula": formula.en, "formula_zh": formula.zh}
