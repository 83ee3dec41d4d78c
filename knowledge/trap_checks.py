"""Checks made before a calculator's number becomes the verdict (``trap_checks.yaml``), as validated data."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.catalog import read_table
from knowledge.sources import DatedSource

DATA_FILE = Path(__file__).with_name("trap_checks.yaml")


class Failure(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    when: dict[Literal["segment", "ecc", "uptime"], str | bool]
    source: DatedSource | None = None  # the one source model (knowledge/sources.py): a title and a date to cite
    also: DatedSource | None = None


class Deployment(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    segments: list[str] = Field(min_length=1)
    failures: list[Failure] = Field(min_length=1)
    min_servers_for_uptime: int = Field(ge=2)
    alternatives: dict[Literal["global", "cn"], list[str]]


class Explanation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    when: Literal["board", "cn"] | None = None


class PriceCheck(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    low_ratio: float = Field(gt=0, lt=1)
    high_ratio: float = Field(gt=1)
    not_a_quote_ratio: float = Field(gt=0, lt=1, description="Below this share of the market the figure is no price of the machine (a rent or another amount read as one): no verdict on it.")
    explain_low: list[Explanation] = Field(min_length=1)
    explain_high: list[str] = Field(min_length=1)
    ask_low: list[str] = Field(min_length=1)
    ask_high: list[str] = Field(min_length=1)


class SpeedCheck(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    when: Literal["quantised", "tp_over_pcie", "consumer_tp"] | None = None


class SpeedChecks(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    band: float = Field(gt=0, lt=1)
    checks_low: list[SpeedCheck] = Field(min_length=1)
    checks_single: list[SpeedCheck] = Field(min_length=1)
    aggregate_batch: int = Field(gt=1)
    variants: dict[str, str] = Field(default_factory=dict)


class TrapChecks(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    deployment: Deployment
    price: PriceCheck
    speed: SpeedChecks


@lru_cache(maxsize=1)
def trap_checks(path: Path = DATA_FILE) -> TrapChecks:
    return read_table(path, TrapChecks, "trap-check table")
