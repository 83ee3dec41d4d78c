"""What decides between the rent tiers besides the price (``rent_tiers.yaml``): availability, interruption, data egress
and SLA, one sourced line per tier of the price book, read by the rent-tier comparison."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.catalog import CatalogError, read_yaml
from knowledge.clouds import TIER_NAMES
from knowledge.sources import DatedSource

DATA_FILE = Path(__file__).parent / "rent_tiers.yaml"


class TierTradeOff(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    en: str = Field(min_length=10)
    zh: str = Field(min_length=5)
    source: DatedSource


@lru_cache(maxsize=1)
def rent_tier_trade_offs(path: Path = DATA_FILE) -> dict[str, TierTradeOff]:
    """Each tier's trade-off line; every tier of the price book has one."""
    raw = read_yaml(path)
    try:
        lines = {tier: TierTradeOff.model_validate(row) for tier, row in raw.items()}
    except ValidationError as exc:
        raise CatalogError(f"{path}: invalid rent tier trade-off:\n{exc}") from exc
    if set(lines) != set(TIER_NAMES):
        raise CatalogError(f"{path}: tiers {sorted(set(TIER_NAMES) ^ set(lines))} must each have one line")
    return lines
