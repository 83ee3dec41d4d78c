"""Electricity and colocation prices by region (``region_tariffs.yaml``): dated, sourced, read by the rent-or-buy
calculator when the buyer says where the servers run. A region without a sourced figure for a price says so
(``None``), and the calculator falls back to its planning default and says which."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

from knowledge.bilingual import Phrases, Text
from knowledge.catalog import CatalogError, read_yaml
from knowledge.sources import DatedSource

DATA_FILE = Path(__file__).parent / "region_tariffs.yaml"


class RegionPrice(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    value: float = Field(gt=0, description="As published, in `currency`.")
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    usd: float = Field(gt=0, description="The same figure in US dollars.")
    global_average: bool = Field(False, description="The figure is a global average, not the region's own.")
    source: DatedSource


class Region(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Text
    words: Phrases
    electricity: RegionPrice | None = Field(description="Per kWh; None when no sourced figure was found.")
    colocation: RegionPrice | None = Field(description="Per kW-month; None when no sourced figure was found.")


class RegionTariffs(RootModel[dict[str, Region]]):
    def get(self, region: str) -> Region | None:
        return self.root.get(region)


@lru_cache(maxsize=1)
def region_tariffs(path: Path = DATA_FILE) -> RegionTariffs:
    try:
        return RegionTariffs.model_validate(read_yaml(path))
    except ValidationError as exc:
        raise CatalogError(f"{path}: invalid region tariffs:\n{exc}") from exc
