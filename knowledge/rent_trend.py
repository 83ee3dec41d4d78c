"""How GPU rents have moved (``rent_trend.yaml``): dated, sourced, read by the rent-or-buy answer to say that a
payback worked at today's rent for every year of the horizon assumes the rent will hold."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from knowledge.catalog import CatalogError, read_yaml
from knowledge.sources import DATE_PATTERN, DatedSource

DATA_FILE = Path(__file__).parent / "rent_trend.yaml"


class RentPoint(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    price: float = Field(gt=0)
    date: str = Field(pattern=DATE_PATTERN)
    what: str = Field(min_length=3)


class Driver(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    en: str = Field(min_length=10)
    zh: str = Field(min_length=5)


class Outlook(BaseModel):
    """Where the rent is heading: the direction the market's prices imply, how far a year ahead, and what drives it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    direction: str = Field(pattern="^(down|up|flat)$")
    forward_fall_pct: float = Field(ge=-100, le=100, description="How much lower a year ahead the market's prices imply, in %.")
    en: str = Field(min_length=10)
    zh: str = Field(min_length=5)
    drivers: tuple[Driver, ...] = Field(min_length=1)
    sources: tuple[DatedSource, ...] = Field(min_length=1)


class RentTrend(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    gpu: str
    currency: str
    then: RentPoint
    now: RentPoint
    swing_pct: float = Field(gt=0, le=100)
    sources: tuple[DatedSource, ...] = Field(min_length=1)
    outlook: Outlook | None = None

    @model_validator(mode="after")
    def _now_after_then(self) -> RentTrend:
        if self.now.date <= self.then.date:
            raise ValueError("the 'now' point must be later than the 'then' point")
        return self

    @property
    def fall_pct(self) -> float:
        """How far the rent fell between the two points, in % of the earlier price."""
        return (1 - self.now.price / self.then.price) * 100


@lru_cache(maxsize=1)
def rent_trend(path: Path = DATA_FILE) -> RentTrend:
    try:
        return RentTrend.model_validate(read_yaml(path))
    except ValidationError as exc:
        raise CatalogError(f"{path}: invalid rent trend:\n{exc}") from exc
