"""Facility figures: published server power, cooling thresholds, planning defaults and electricity tariffs.

The figures live in ``facility.yaml`` beside this file; ``shipped_facility_data`` validates it once and fails
loudly (``CatalogError``) on a malformed row, a source that is not a web address, or a system naming a GPU the
catalog lacks.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.bilingual import Text
from knowledge.catalog import CatalogError, load_catalog, read_yaml
from knowledge.servers import ServerData, shipped_server_data
from knowledge.sources import DATE_PATTERN, TitledSource
from knowledge.tco_defaults import shipped_tco_defaults

DATA_FILE = Path(__file__).parent / "facility.yaml"


class SystemPower(BaseModel):
    """A whole server (or rack) whose maker publishes its maximum power."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: Text
    gpus: tuple[str, ...] = Field(min_length=1, description="Catalog GPU ids this system is the reference server for.")
    gpus_per_server: int = Field(ge=1, le=72)
    max_kw: float = Field(gt=0, le=500)
    rack_units: int = Field(ge=1, le=48)
    liquid_cooled: bool
    date: str = Field(pattern=DATE_PATTERN)
    source: TitledSource


class Cooling(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    air_limit_kw: float = Field(gt=0)
    liquid_above_kw: float = Field(gt=0)
    date: str = Field(pattern=DATE_PATTERN)
    sources: tuple[TitledSource, ...] = Field(min_length=1)


class PlanningDefault(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    value: float = Field(gt=0)
    date: str = Field(pattern=DATE_PATTERN)
    assumed: bool = Field(False, description="No published figure gives the value: answers call it an assumption; `basis` says what moves it.")
    basis: Text
    source: TitledSource


class Planning(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rack_power_kw: PlanningDefault
    largest_rack_kw: PlanningDefault
    network_storage_pct: PlanningDefault
    rack_units: PlanningDefault
    rack_headroom_pct: PlanningDefault = Field(description="Share of a stated rack budget a plan keeps free: a rack loaded closer than this is tight.")


class Tariff(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    region: str
    name: Text
    price: float = Field(gt=0, lt=5, description="Per kWh, in `currency`.")
    currency: str = Field(pattern=r"^(USD|CNY)$")
    date: str = Field(pattern=DATE_PATTERN)
    source: TitledSource


class WallSocket(BaseModel):
    """An ordinary wall socket where the servers would stand ("in the office on a normal socket?"): its rating, by the
    market it is read for ("default" where none is known)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    market: str
    amps: float = Field(gt=0, le=32)
    volts: float = Field(ge=100, le=250)
    name: Text
    source: TitledSource
    source_quality: Literal["primary", "secondary"] = Field(
        "primary", description="'secondary' where no standards body or maker page gives the rating; the answer's sources say so."
    )
    standard: TitledSource | None = Field(None, description="The standard's own text, where it backs part of the figure.")


class Circuits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    continuous_derating: PlanningDefault
    wall_sockets: tuple[WallSocket, ...] = Field(min_length=1)

    def wall_socket(self, market: str | None) -> WallSocket:
        """The wall socket of ``market``, else the default row."""
        return next((w for w in self.wall_sockets if w.market == market), None) or next(w for w in self.wall_sockets if w.market == "default")


class Fabric(BaseModel):
    """A scale-out fabric option: its leaf/spine switch and how many 400 Gb/s ports that switch has."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: Text
    switch: str
    ports_400g: int = Field(ge=8, le=1024)
    rack_units: int = Field(ge=1, le=48)
    date: str = Field(pattern=DATE_PATTERN)
    strengths: Text
    caveats: Text
    source: TitledSource


class FacilityData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    systems: tuple[SystemPower, ...] = Field(min_length=1)
    system_words: tuple[str, ...] = Field(min_length=1, description="Words naming a whole system: a count before them counts servers.")
    cooling: Cooling
    planning: Planning
    tariffs: tuple[Tariff, ...] = Field(min_length=1)
    circuits: Circuits
    china_air_cooled: dict[str, tuple[str, ...]] = Field(
        min_length=1, description="By segment: catalog GPUs a mainland buyer can get, in air-cooled servers."
    )
    fabrics: tuple[Fabric, ...] = Field(min_length=1)

    def fabric(self, fabric_id: str) -> Fabric | None:
        return next((f for f in self.fabrics if f.id == fabric_id), None)

    def system_for(self, gpu_id: str) -> SystemPower | None:
        return next((s for s in self.systems if gpu_id in s.gpus), None)

    def tariff(self, region: str | None, currency: str) -> Tariff:
        """The tariff of the region when one is listed, else the first listed in the currency."""
        listed = next((t for t in self.tariffs if t.region == region and t.currency == currency), None)
        return listed or next(t for t in self.tariffs if t.currency == currency)


def load_facility(path: Path = DATA_FILE) -> FacilityData:
    try:
        data = FacilityData.model_validate(read_yaml(path))
    except ValidationError as exc:
        raise CatalogError(f"{path}: invalid facility data:\n{exc}") from exc
    known = {g.id for g in load_catalog().gpus}
    unknown = sorted(({g for s in data.systems for g in s.gpus} | {g for gpus in data.china_air_cooled.values() for g in gpus}) - known)
    if unknown:
        raise CatalogError(f"{path}: systems name GPUs the catalog lacks: {unknown}")
    if data.cooling.air_limit_kw >= data.cooling.liquid_above_kw:
        raise CatalogError(f"{path}: the air limit must be below the liquid threshold")
    if {t.currency for t in data.tariffs} != {"USD", "CNY"}:
        raise CatalogError(f"{path}: tariffs need at least one USD and one CNY row")
    return data


@lru_cache(maxsize=1)
def shipped_facility_data() -> FacilityData:
    return load_facility()


class FacilityBook:
    """What the facility planner reads besides the GPU catalog: the facility figures, the server classes (for a
    GPU without a published system) and the rent-vs-buy defaults it shares (PUE, average draw)."""

    def __init__(self, data: FacilityData, servers: ServerData, pue: float, load_factor_pct: float):
        self.data = data
        self.servers = servers
        self.pue = pue
        self.load_factor_pct = load_factor_pct


@lru_cache(maxsize=1)
def shipped_facility_book() -> FacilityBook:
    defaults = shipped_tco_defaults()
    return FacilityBook(shipped_facility_data(), shipped_server_data(), defaults["pue"].value, defaults["load_factor_pct"].value)
