"""Default inputs of the rent-vs-buy calculator, each with the public pages it comes from.

The figures live in ``tco_defaults.yaml`` beside this file: value, unit, a one-line basis and the
sources (URL, what the page says, its date). ``load_tco_defaults`` validates the file once and fails
loudly (``CatalogError``) on a malformed row, a missing key or a source that is not a web address.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.bilingual import Text
from knowledge.catalog import CatalogError, company_prices, read_yaml
from knowledge.fact_gaps import ReferenceLine
from knowledge.price_overrides import PriceOverrides, Quote
from knowledge.sources import DatedQuote

DATA_FILE = Path(__file__).parent / "tco_defaults.yaml"
# Every key the calculator reads; a row missing from the file is an error, not a silent 0.
KEYS = (
    "gpus_per_server", "servers", "network_overhead_pct", "lifetime_years", "residual_value_pct", "load_factor_pct",
    "pue", "electricity_price_usd", "electricity_price_cny", "colo_price_per_kw_month_usd", "maintenance_pct_per_year",
    "staff_cost_per_month_usd", "utilisation_pct", "cloud_discount_pct", "server_price_per_gpu_price",
    "server_power_per_gpu_power", "usd_to_cny",
)  # fmt: skip


class Default(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    value: float
    unit: str
    basis: str = Field(min_length=3, description="Why this value, in one line.")
    sources: tuple[DatedQuote, ...] = ()
    overridden_by: str = Field("", description="Set when the value is the company's own (ADVISOR_PRICES file).")
    date: str = Field("", description="When a company's value was quoted; shipped values carry their sources' dates.")
    reference: tuple[ReferenceLine, ...] = Field((), description="The shared-reference lines the value stands on (tests re-read them).")

    @property
    def source(self) -> str:
        """The basis, for an assumption line; ``links`` carries the pages."""
        return self.basis

    @property
    def links(self) -> list[str]:
        return [s.url for s in self.sources]


def load_tco_defaults(path: Path = DATA_FILE) -> dict[str, Default]:
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise CatalogError(f"{path}: expected a mapping of default name to row")
    missing = [key for key in KEYS if key not in raw]
    unknown = [key for key in raw if key not in KEYS]
    if missing or unknown:
        raise CatalogError(f"{path}: missing defaults {missing}, unknown defaults {unknown}")
    try:
        return {key: Default.model_validate(row) for key, row in raw.items()}
    except ValidationError as exc:
        raise CatalogError(f"{path}: invalid TCO default:\n{exc}") from exc


@lru_cache(maxsize=1)
def shipped_tco_defaults() -> dict[str, Default]:
    """The defaults as shipped, loaded once (the exchange rate and anything read at import time)."""
    return load_tco_defaults()


def with_company_power_prices(defaults: dict[str, Default], overrides: PriceOverrides | None) -> dict[str, Default]:
    """The defaults with the company's electricity and colocation prices; the other currency's figure is
    converted at the shipped exchange rate so USD and CNY answers agree."""
    if overrides is None:
        return defaults
    rate = defaults["usd_to_cny"].value
    updated = dict(defaults)

    def company(key: str, quote: Quote, currency: str, unit: str) -> None:
        amount = quote.amount if quote.currency == currency else (quote.amount * rate if currency == "CNY" else quote.amount / rate)
        converted = "" if quote.currency == currency else f", converted from {quote.currency} at {rate:g} CNY/USD"
        updated[key] = Default(value=amount, unit=unit, basis=f"company price: {quote.source}, {quote.date}{converted}",
                               overridden_by=overrides.label, date=quote.date)  # fmt: skip

    power = overrides.power
    if power.electricity_per_kwh is not None:
        company("electricity_price_usd", power.electricity_per_kwh, "USD", "USD/kWh")
        company("electricity_price_cny", power.electricity_per_kwh, "CNY", "CNY/kWh")
    if power.colocation_per_kw_month is not None:
        company("colo_price_per_kw_month_usd", power.colocation_per_kw_month, "USD", "USD/kW-month")
    return updated


def tco_defaults() -> dict[str, Default]:
    """The defaults in force: shipped, with the company's power and colocation prices (ADVISOR_PRICES)."""
    return with_company_power_prices(shipped_tco_defaults(), company_prices())


OWN_MACHINE_FILE = Path(__file__).parent / "own_machine.yaml"


class OwnMachineValue(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    value: float
    basis: str = Field(min_length=3)
    assumption: Text | None = Field(None, description="Set on a value no source gives: the answer's assumption line, with why and what moves it.")


class OwnMachine(BaseModel):
    """How a desktop or workstation the user runs differs from a data-centre server (own_machine.yaml)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    site: dict[str, OwnMachineValue | str]
    concurrency: OwnMachineValue
    utilisation_pct: OwnMachineValue = Field(description="Busy share of the box's hours when none is said (an assumption).")

    def tco_args(self, gpus: int) -> dict[str, float | int]:
        """compute_tco's site arguments for a box holding ``gpus`` cards."""
        return {key: (gpus if isinstance(row, str) else row.value) for key, row in self.site.items()}


@lru_cache(maxsize=1)
def own_machine_defaults(path: Path = OWN_MACHINE_FILE) -> OwnMachine:
    try:
        return OwnMachine.model_validate(read_yaml(path))
    except ValidationError as exc:
        raise CatalogError(f"{path}: invalid own-machine default:\n{exc}") from exc
