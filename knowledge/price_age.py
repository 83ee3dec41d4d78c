"""When a shown price is old enough to say so, and from what age it is said in years (``price_age.yaml``): the thresholds
are data with their reference lines (and, for an assumption, its reasoning), so no answer keeps its own."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from knowledge.catalog import read_table
from knowledge.fact_gaps import ReferenceLine

DATA_FILE = Path(__file__).parent / "price_age.yaml"


class Threshold(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    value: float = Field(gt=0, description="Months.")
    assumption: str | None = Field(None, min_length=20, description="Why this value, when no reference line gives it.")
    reference: list[ReferenceLine] = Field(min_length=1, description="The reference lines it stands on.")


class PriceAge(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    stale_after_months: Threshold = Field(description="Older than this, a shown price carries the age note.")
    years_after_months: Threshold = Field(description="From this age on, the age is said in years.")


@lru_cache(maxsize=1)
def price_age(path: Path = DATA_FILE) -> PriceAge:
    data = read_table(path, PriceAge, "price age file")
    if data.years_after_months.value < data.stale_after_months.value:
        raise ValueError(f"{path}: years_after_months is below stale_after_months")
    return data
