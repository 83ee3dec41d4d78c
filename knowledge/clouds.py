"""Cloud rental prices per GPU-hour by tier (hyperscaler on-demand and reserved, specialist GPU clouds, China).

The figures live in ``clouds.yaml`` beside this file, each with its date and a page a reader can open; a
company's own cloud contracts (``ADVISOR_PRICES``) are added on top and replace the shipped offer of the
same GPU and tier.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from knowledge.catalog import CatalogError, company_prices, load_catalog, priced_catalog, read_yaml
from knowledge.price_overrides import DATE_PATTERN, TIERS, PriceOverrides
from knowledge.servers import server_data
from knowledge.sources import TitledSource
from knowledge.tco_defaults import Default, shipped_tco_defaults, tco_defaults, with_company_power_prices

DATA_FILE = Path(__file__).parent / "clouds.yaml"
Tier = Literal["hyperscaler_on_demand", "hyperscaler_1yr", "hyperscaler_3yr", "specialist", "marketplace", "china"]
TIER_NAMES = {  # tier → (English, Chinese), for tables and the `prices` listing
    "hyperscaler_on_demand": ("Hyperscaler on-demand", "公有云按需"),
    "hyperscaler_1yr": ("Hyperscaler, 1-year commitment", "公有云 1 年承诺"),
    "hyperscaler_3yr": ("Hyperscaler, 3-year commitment", "公有云 3 年承诺"),
    "specialist": ("Specialist GPU cloud", "专业 GPU 云"),
    "marketplace": ("Marketplace / community hosts", "算力市场/社区主机"),
    "china": ("China cloud / lease", "国内云/租赁"),
}
assert set(TIER_NAMES) == set(TIERS)


class CloudRate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    gpu: str
    tier: Tier
    offer: str = Field(min_length=3, description="What is rented, from whom.")
    offer_zh: str = Field("", description="The same in Chinese; a company's own offer is shown as written.")
    price: float = Field(gt=0, description="Per GPU-hour in `currency`.")
    low: float | None = Field(None, gt=0, description="Low end of the band the same source gives (a lease band, a provider's spread).")
    high: float | None = Field(None, gt=0, description="High end of that band.")
    currency: Literal["USD", "CNY"]
    region: str
    date: str = Field(pattern=DATE_PATTERN)
    confidence: Literal["H", "M", "L"]
    source: TitledSource | None = Field(None, description="The page to check the price on (None for a company's own contract).")
    via: TitledSource | None = None
    derived: bool = False
    basis: str = Field("", description="How a derived price follows from a published one.")
    billing: Literal["hourly", "lease"] = Field("hourly", description="'lease': a term contract paid for every hour, used or not.")
    overridden_by: str = Field("", description="Set when the price is the company's own (the prices file).")
    quoted_by: str = Field("", description="The company's source for an override: quote or contract.")

    _dates = field_validator("date", mode="before")(lambda v: v.isoformat() if hasattr(v, "isoformat") else v)

    @model_validator(mode="after")
    def _band_holds_the_price(self) -> CloudRate:
        if (self.low is not None and self.low > self.price) or (self.high is not None and self.high < self.price):
            raise ValueError(f"the band {self.low}–{self.high} does not hold the price {self.price}")
        return self


class CloudCatalog:
    """The rates in force, looked up by GPU."""

    def __init__(self, rates: list[CloudRate]):
        self.rates = rates

    def offers(self, gpu_id: str) -> list[CloudRate]:
        """Every offer for the GPU, tier by tier (a tier may have several: its market range)."""
        order = {tier: i for i, tier in enumerate(TIERS)}
        return sorted((r for r in self.rates if r.gpu == gpu_id), key=lambda r: order[r.tier])

    def for_gpu(self, gpu_id: str) -> list[CloudRate]:
        """One offer per tier, the first listed (the reference offer a payback is worked against)."""
        seen: set[str] = set()
        return [r for r in self.offers(gpu_id) if not (r.tier in seen or seen.add(r.tier))]


def load_cloud_rates(path: Path = DATA_FILE, gpu_ids: set[str] | None = None) -> list[CloudRate]:
    raw = read_yaml(path)
    if not isinstance(raw, list):
        raise CatalogError(f"{path}: expected a list of cloud offers")
    rates = []
    for index, row in enumerate(raw, start=1):
        try:
            rate = CloudRate.model_validate(row)
        except ValidationError as exc:
            raise CatalogError(f"{path}: offer {index} is invalid:\n{exc}") from exc
        if gpu_ids is not None and rate.gpu not in gpu_ids:
            raise CatalogError(f"{path}: offer {index} names GPU {rate.gpu!r}, which is not in gpus.yaml")
        if rate.derived and not rate.basis:
            raise CatalogError(f"{path}: offer {index} is derived but says not from what (basis)")
        rates.append(rate)
    return rates


def with_company_rates(rates: list[CloudRate], overrides: PriceOverrides | None) -> list[CloudRate]:
    """The shipped rates with the company's contracts in place of the same GPU and tier."""
    if overrides is None or not overrides.clouds:
        return rates
    theirs = [
        CloudRate(gpu=q.gpu, tier=q.tier, offer=q.offer, price=q.amount, currency=q.currency, region="company",
                  date=q.date, confidence="H", overridden_by=overrides.label, quoted_by=q.source)
        for q in overrides.clouds
    ]  # fmt: skip
    replaced = {(r.gpu, r.tier) for r in theirs}
    return [r for r in rates if (r.gpu, r.tier) not in replaced] + theirs


def load_clouds() -> CloudCatalog:
    """The shipped cloud rates with the company's own on top (its file's, and a web session's pasted ones)."""
    return _priced_clouds(company_prices())


@lru_cache(maxsize=1)
def _shipped_rates() -> list[CloudRate]:
    return load_cloud_rates(DATA_FILE, {g.id for g in priced_catalog(None).gpus})


@lru_cache(maxsize=16)  # one per set of prices in force, as the catalog
def _priced_clouds(overrides: PriceOverrides | None) -> CloudCatalog:
    return CloudCatalog(with_company_rates(_shipped_rates(), overrides))


@dataclass(frozen=True)
class PriceBook:
    """Every price the cost tools default to: cloud tiers and the TCO defaults (power, colocation, ...), with
    the company's own figures applied. Tools receive it; they do not read the files."""

    clouds: CloudCatalog
    defaults: dict[str, Default]


def load_price_book() -> PriceBook:
    return _price_book(company_prices())


@lru_cache(maxsize=16)  # one per set of prices in force, as the catalog
def _price_book(overrides: PriceOverrides | None) -> PriceBook:
    return PriceBook(_priced_clouds(overrides), with_company_power_prices(shipped_tco_defaults(), overrides))


class PriceInForce(BaseModel):
    """One price the tools use, for the `gpu-advisor prices` listing."""

    kind: Literal["gpu_purchase", "gpu_cloud", "power", "cloud_tier", "server"]
    item: str
    amount: float
    currency: str
    unit: str
    date: str
    source: str
    company: bool = Field(description="True when it comes from the company's prices file.")


def prices_in_force() -> list[PriceInForce]:
    """Every GPU price, power and colocation default and cloud tier rate in force, the company's marked."""
    rows = []
    for gpu in load_catalog().gpus:
        for kind, price, unit in (("gpu_purchase", gpu.purchase_price, "per GPU"), ("gpu_cloud", gpu.cloud_price, "per GPU-hour")):
            if price is not None:
                rows.append(PriceInForce(kind=kind, item=gpu.name, amount=price.amount, currency=price.currency, unit=unit,
                                         date=price.date, source=price.cited, company=bool(price.overridden_by)))  # fmt: skip
    defaults = tco_defaults()
    for key, item in (("electricity_price_usd", "electricity"), ("electricity_price_cny", "electricity"), ("colo_price_per_kw_month_usd", "colocation")):
        d = defaults[key]
        currency, unit = d.unit.split("/", 1)
        dates = [s.date for s in d.sources]
        rows.append(PriceInForce(kind="power", item=item, amount=d.value, currency=currency, unit=f"per {unit}",
                                 date=d.date or (max(dates) if dates else "—"), source=d.basis if d.overridden_by else "; ".join(d.links) or d.basis,
                                 company=bool(d.overridden_by)))  # fmt: skip
    for server in server_data().classes:
        rows.append(PriceInForce(kind="server", item=server.name.en, amount=server.price_usd, currency="USD", unit="per server, without GPUs",
                                 date=server.date, source=server.quoted_by or "; ".join(f"{s.title} {s.url}" for s in server.sources),
                                 company=bool(server.overridden_by)))  # fmt: skip
    for rate in load_clouds().rates:
        rows.append(PriceInForce(kind="cloud_tier", item=f"{rate.gpu} · {TIER_NAMES[rate.tier][0]} · {rate.offer}", amount=rate.price,
                                 currency=rate.currency, unit="per GPU-hour", date=rate.date,
                                 source=rate.quoted_by if rate.overridden_by else (f"{rate.source.title} {rate.source.url}" if rate.source else ""),
                                 company=bool(rate.overridden_by)))  # fmt: skip
    return rows
