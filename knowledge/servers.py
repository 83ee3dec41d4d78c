"""Server bills of materials per server class, and the rules that pick the recommended tier.

The figures live in ``servers.yaml`` beside this file; ``load_servers`` validates it once and fails loudly
(``CatalogError``) on a malformed row, a source that is not a web address, or a GPU left without a server class.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.bilingual import Text
from knowledge.catalog import CatalogError, company_prices, read_yaml, require_unique
from knowledge.gpus import GPU
from knowledge.price_overrides import PriceOverrides
from knowledge.sources import DATE_PATTERN, QuotedSource
from knowledge.tco_defaults import shipped_tco_defaults

DATA_FILE = Path(__file__).parent / "servers.yaml"
SoldAsName = str  # one of tools.recommend.schema.SoldAs; kept loose here so knowledge needs nothing from tools
Segment = str


class ServerClass(BaseModel):
    """One kind of machine GPUs go into, with what it costs and draws besides the GPUs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: Text
    holds: int = Field(ge=1, le=8, description="GPUs one machine of this class holds.")
    rack_server: bool = Field(True, description="Sold as a server: an order of one says \"in one server\"; a workstation or desktop "
                              "(False) is named by its class instead, since a buyer orders it as that.")
    sold_as: tuple[SoldAsName, ...] = Field(min_length=1, description="How the GPUs it holds are sold (board, server, pair).")
    segments: tuple[Segment, ...] = Field(min_length=1)
    max_by_segment: dict[Segment, int] = Field(default_factory=dict, description="Fewer GPUs than `holds` for a segment (power-hungry data-centre cards).")
    chassis: str
    cpus: str
    ram: str
    nics: str
    storage: str
    price_usd: float = Field(gt=0, description="The machine without its GPUs, USD.")
    price_cny: float | None = Field(None, gt=0, description="The same in CNY where a CNY figure is published.")
    power_w_excluding_gpus: float = Field(gt=0)
    rack_units: int = Field(ge=0, description="0 for a tower that stands beside a desk.")
    date: str = Field(pattern=DATE_PATTERN)
    overridden_by: str | None = Field(None, description="The company prices file the price comes from, when it does.")
    quoted_by: str | None = Field(None, description="Who quoted the company's price (its `source`).")
    basis: str = Field(min_length=3, description="How the figures were put together, in one line.")
    sources: tuple[QuotedSource, ...] = Field(min_length=1)
    assumption: Text | None = Field(None, description="Set when the price is not a figure of this class but one borrowed from "
                                    "another, with why: an answer showing it says so in its assumptions, never as a quote.")

    def price(self, currency: str, usd_to_cny: float) -> float:
        if currency == "CNY":
            return self.price_cny if self.price_cny is not None else self.price_usd * usd_to_cny
        return self.price_usd


class RecommendedRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min_headroom_pct: float = Field(ge=0, lt=100)
    recent_years: int = Field(ge=0)
    exotic_sold_as: tuple[str, ...]
    exotic_vendors: tuple[str, ...]
    value_users: int = Field(ge=1)  # a value-for-money question with no load is timed at this many concurrent users
    budget_count_factor: float = Field(gt=1)  # a budget pick needs at most this many times the fewest cards that work
    budget_count_floor: int = Field(ge=1)  # ... or this many (one standard server), whichever is more


class GrowRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    memory_factor: float = Field(gt=1)
    max_cost_factor: float = Field(gt=1, description="The room-to-grow tier costs at most this multiple of the recommended configuration.")
    fallback_memory_factor: float = Field(gt=1, description="Least memory multiple of a room-to-grow tier picked when none has memory_factor.")


class TierText(BaseModel):
    """The tiers' names and one-line reasons, with {placeholders} the recommender fills."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    labels: dict[str, Text]
    reasons: dict[str, Text]
    load: Text
    ranked_by: Text
    line: Text
    line_no_server: Text
    speed: Text
    price_basis: Text
    quoted: Text = Field(description="A configuration priced from a published whole-server quote ({what}, {price}, {date}).")


class ServerQuote(BaseModel):
    """A whole machine's price quoted for one card (a distributor's price for the pre-configured server): a better
    default than the card's price plus its class's host, where one is published."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gpu: str
    gpus: int = Field(ge=1, le=8)
    price: float = Field(gt=0, description="The whole server, GPUs included, in `currency` (the typical figure of the source).")
    low: float | None = Field(None, gt=0, description="The low end of the range the source gives, same currency, when it gives one.")
    high: float | None = Field(None, gt=0, description="The high end of that range.")
    currency: Literal["USD", "CNY"]
    date: str = Field(pattern=DATE_PATTERN)
    what: Text
    source: QuotedSource


class ServingFloor(BaseModel):
    """The note a recommendation for several users says when the chat floor (knowledge/traffic.yaml) was applied."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: Text = Field(description="The note saying the floor was applied ({floor}, {title}, {url}).")


class ServerData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    classes: tuple[ServerClass, ...] = Field(min_length=1)
    recommended: RecommendedRules
    grow: GrowRules
    tier_text: TierText
    serving_floor: ServingFloor
    quotes: tuple[ServerQuote, ...] = ()

    def quote_for(self, gpu_id: str, gpus: int) -> ServerQuote | None:
        """The published price of a whole server of ``gpus`` of this card, if there is one."""
        return next((q for q in self.quotes if q.gpu == gpu_id and q.gpus == gpus), None)

    def default_quote(self, gpu: GPU, gpus: int, host: ServerClass | None) -> ServerQuote | None:
        """The whole-server quote a price defaults to: none when the buyer priced the machine themselves. A card price,
        or a price of ``host`` (the server class the cards go in), from the company's prices file or the session's
        pasted prices is the buyer's own figure, and a price of ours never replaces it (their cards + their host)."""
        if (gpu.purchase_price is not None and gpu.purchase_price.overridden_by) or (host is not None and host.overridden_by):
            return None
        return self.quote_for(gpu.id, gpus)

    def for_gpus(self, sold_as: str, segment: str, count: int) -> ServerClass | None:
        """The smallest class that takes this part and this many of it in one machine; beyond 8, the 8-GPU class
        (several machines); None for parts that come in their own machine (racks, Macs, laptops, modules, cloud)."""
        fitting = [c for c in self.classes if sold_as in c.sold_as and segment in c.segments]
        if not fitting:
            return None
        holding = [c for c in fitting if min(c.holds, c.max_by_segment.get(segment, c.holds)) >= count]
        return min(holding, key=lambda c: c.holds) if holding else max(fitting, key=lambda c: c.holds)


def load_servers(path: Path = DATA_FILE) -> ServerData:
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise CatalogError(f"{path}: expected a mapping with 'classes', 'recommended' and 'grow'")
    try:
        data = ServerData.model_validate(raw)
    except ValidationError as exc:
        raise CatalogError(f"{path}: invalid server data:\n{exc}") from exc
    require_unique(path, [c.id for c in data.classes], "server class")
    return data


@lru_cache(maxsize=1)
def shipped_server_data() -> ServerData:
    """The shipped server classes, loaded once."""
    return load_servers()


def with_company_server_prices(data: ServerData, overrides: PriceOverrides | None, usd_to_cny: float) -> ServerData:
    """The classes with the company's price per machine; a price in one currency gives the other at ``usd_to_cny``."""
    if overrides is None or not overrides.servers:
        return data
    classes = []
    for server in data.classes:
        quote = overrides.servers.get(server.id)
        if quote is not None:
            usd = quote.amount if quote.currency == "USD" else quote.amount / usd_to_cny
            cny = quote.amount if quote.currency == "CNY" else None  # None: CNY answers convert at the request's rate
            server = server.model_copy(update={"price_usd": usd, "price_cny": cny, "date": quote.date,
                                               "overridden_by": overrides.label, "quoted_by": quote.source})  # fmt: skip
        classes.append(server)
    return data.model_copy(update={"classes": tuple(classes)})


def server_data() -> ServerData:
    """The server classes in force: shipped, with the company's server prices (ADVISOR_PRICES)."""
    return with_company_server_prices(shipped_server_data(), company_prices(), shipped_tco_defaults()["usd_to_cny"].value)
