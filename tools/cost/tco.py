"""Rent or buy: total cost of owning GPU servers versus renting the same GPU-hours in the cloud.

Model (the usual owned-vs-rented TCO; defaults and their public sources in knowledge/tco_defaults.yaml), per month:
  capex       = servers × server price × (1 + network/storage overhead)          paid up front
  owned opex  = energy (avg kW × PUE × 730 h × price) + colocation (max kW × price/kW-month)
                + maintenance (% of capex / 12) + staff
  owned cost  = (capex − resale value) / lifetime months + owned opex             (amortised view)
  cloud cost  = GPUs × 730 h × billed share × cloud price × (1 − discount)
                billed share = utilisation on demand; 100% for reserved/committed capacity, which is paid
                for every hour whether used or not. A monthly bill the user pays is that cost as is.
Owning pays back in capex / (cloud − opex) months (cash view, resale ignored), where the cloud bill is the rent
the owned GPUs avoid: GPU-hours actually used × the rate. It is worked out against every cloud tier the user could
rent from (hyperscaler on-demand and committed, specialist GPU clouds, China clouds for CNY answers); break-even
utilisation is where the amortised owned cost equals the cloud bill. Energy is charged whether or
not the GPUs are busy, as the reference does: an idle server still draws power and rent.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.clouds import TIER_NAMES, CloudRate, PriceBook
from knowledge.gpus import GPU
from knowledge.servers import server_data
from knowledge.tco_defaults import Default, shipped_tco_defaults
from knowledge.wording import shipped
from tools.checks import INPUT_NAMES, check_range
from tools.common import LineItem, formula_fields
from tools.cost.money import (
    DEFAULT_USD_TO_CNY,
    USD_TO_CNY_NOTE,
    Currency,
    check_exchange_rate,
    convert,
    money,
    normalize_currency,
    price_in,
)
from tools.cost.price_age import machine_dates, price_date
from tools.cost.rental_market import buyer_tier, rent_market
from tools.cost.tco_model import HOURS_PER_MONTH, TcoInputs, TcoNumbers, evaluate
from tools.cost.tco_region import COLOCATION_KEY, regional_defaults
from tools.cost.tco_sensitivity import SensitivityDetail, rank_sensitivities
from tools.cost.tco_tiers import ClaimCheck, RatioCheck, StalePrice, TierPayback, claim_check, ratio_check, stale_prices, tier_paybacks
from tools.recommend.configs import sold_as
from tools.recommend.price_estimate import card_price

TEXT = shipped("tco_text.yaml")
COST_TEXT = shipped("cost_text.yaml")
FIELDS = shipped("tool_field_descriptions.yaml")

MAX_HOURS_PER_MONTH = 744  # a 31-day month
MAX_TOTAL_GPUS = 1_000_000
MIN_UTILISATION_PCT = 0.01  # under 5 minutes a month per GPU
MIN_CLOUD_PRICE = 0.001
MIN_CLAIMED_MONTHS = 0.1  # a tenth of a cent (or fen) per GPU-hour
# A service life shorter than a quarter is no ownership to weigh against renting ("a month" is the period a rent is
# asked for); longer than 15 years outlives any GPU generation.
MIN_LIFETIME_YEARS, MAX_LIFETIME_YEARS = 1 / 12, 15.0  # a month: "we need them for two months" is compared over those months


class TcoRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str | None = Field(None, description="GPU name or alias; supplies default server price, power and cloud price from the catalog.")
    gpus_per_server: int = Field(8, description="GPUs per server (1–128).")
    servers: int = Field(1, description="Number of servers to buy (1–100,000).")
    server_price: float | None = Field(None, description="Price of one server in `currency`, before network/storage overhead.")
    server_price_each: bool | None = Field(
        None, description="True: `server_price` is one server's; None with several servers: whichever of one server's or "
        "all servers' price is closer to the catalog's price for one is taken, and the assumption says so."
    )
    network_overhead_pct: float | None = Field(None, description="Network, cabling and storage as % of server capex (default 15).")
    lifetime_years: float | None = Field(None, description="Years you will use the servers; also the comparison horizon (default 4).")
    residual_value_pct: float | None = Field(None, description="Resale value at the end, % of capex (default 20).")
    server_max_kw: float | None = Field(None, description="Maximum power of one server, kW (default: GPU TDP × GPUs × 1.8).")
    load_factor_pct: float | None = Field(None, description="Average draw as % of maximum power (default 75).")
    pue: float | None = Field(None, description="Facility PUE, 1.0–3.0 (default 1.3).")
    electricity_price: float | None = Field(None, description="Electricity per kWh in `currency` (default $0.10 or ¥0.63).")
    colo_price_per_kw_month: float | None = Field(None, description="Colocation/facility price per kW-month in `currency` (default $180).")
    colo_per_month: float | None = Field(
        None, description="Colocation billed per month for all the servers (per rack or for the space), in `currency`: spread over "
        "their maximum kW. Give this or colo_price_per_kw_month."
    )
    colo_includes_power: bool = Field(False, description="True when the colocation price already includes electricity.")
    maintenance_pct_per_year: float | None = Field(None, description="Support and maintenance, % of capex per year (default 8).")
    staff_cost_per_month: float | None = Field(None, description="Operations staff cost per month in `currency` (default 0).")
    utilisation_pct: float | None = Field(None, description="Share of hours the GPUs do useful work, 0–100 (default 70). Give this or hours_per_month.")
    hours_per_month: float | None = Field(None, description="GPU-busy hours per month (0–744); alternative to utilisation_pct.")
    cloud_price_per_gpu_hour: float | None = Field(None, description="Cloud on-demand price per GPU-hour in `currency` (default: catalog).")
    cloud_discount_pct: float | None = Field(None, description="Reserved/committed or spot discount off the cloud price, % (default 0).")
    cloud_committed: bool = Field(False, description=FIELDS.entry("tco.cloud_committed"))
    cloud_monthly_bill: float | None = Field(
        None, description="What is paid the cloud per month for all the GPUs compared, in `currency`: used as is, never scaled by "
        "utilisation. Give this or cloud_price_per_gpu_hour.",
    )
    lifetime_bounds_years: tuple[float, float] | None = Field(
        None, description="Shortest and longest time the servers may be kept ('2 to 3 years'): the sensitivity moves the lifetime between them."
    )
    currency: str = Field("USD", description="'USD' or 'CNY'; all money inputs and outputs are in this currency.")
    usd_to_cny: float = Field(DEFAULT_USD_TO_CNY, description="Exchange rate, CNY per USD, for converting defaults and catalog prices.")
    claimed_payback_months: float | None = Field(
        None, description="A payback someone quoted ('pays back in 8 months'), to check against each cloud tier; never the service life."
    )
    claimed_cloud_ratio: float | None = Field(
        None, description="A quoted multiple ('cloud is 3x more expensive than owning'), checked against each tier's rent for the hours used."
    )
    rent_tier: Literal["auto", "hyperscaler_on_demand", "hyperscaler_1yr", "hyperscaler_3yr", "specialist", "china"] | None = Field(
        None, description="'auto': with no rent given, price it at the tier a buyer of this size would use (the China market for a "
        "China buyer, a specialist cloud for 64 GPUs or more) instead of the catalog's on-demand price, which stays the upper bound. "
        "A tier name prices the rent at that tier when it has a figure for the GPU (a 3-year reservation: 'hyperscaler_3yr')."
    )
    owned: bool = Field(
        False, description="The GPUs are already owned: the purchase is sunk and not a cost; keeping them is compared on running cost "
        "(power, colocation, maintenance, staff) against renting the same GPU-hours at each tier."
    )
    rent_needed: bool = Field(
        True, description="False when only owning's cost is wanted (a cost per GPU-hour of owning): a card with no rental price is then no error."
    )
    region: Literal["cn", "global"] | None = Field(None, description="'cn' adds the China cloud tier to a USD answer (CNY answers always have it).")
    site_region: Literal["us", "cn", "uk", "eu", "sg", "jp"] | None = Field(
        None, description="Where the servers run: electricity and colocation default to that region's sourced prices "
        "(knowledge/region_tariffs.yaml); a price the region has no source for falls back to the planning default, and the result says so."
    )
    rents_out: bool = Field(
        False, description="The owner rents the GPUs out to others: the rent is revenue at `cloud_price_per_gpu_hour` for the share "
        "of hours rented (`utilisation_pct`), and the result's `lessor` view gives margin, payback and the break-even rate."
    )
    today: str | None = Field(None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="Today's date, YYYY-MM-DD: prices older than 6 months are flagged.")


class KeepTier(BaseModel):
    tier: str
    tier_name: Text
    price_per_gpu_hour: float
    monthly_rent: float = Field(description="The same GPU-hours used per month, rented at this tier.")
    keeping_saves: float = Field(description="monthly_rent − running cost: positive means keeping the owned GPUs is cheaper.")


class Assumption(BaseModel):
    key: str
    value: float
    unit: str
    source: str = Field(description="'given' for user input, otherwise why the default has this value.")
    links: list[str] = Field(default_factory=list, description="Public pages the default comes from (empty when given).")
    date: str = Field("", description="When the default's first source was published or fetched ('' when given or not dated).")


class MonthPoint(BaseModel):
    month: int
    own_cumulative: float = Field(description="Capex plus owned opex paid so far (cash; resale not credited).")
    cloud_cumulative: float


class KeepOrRent(BaseModel):
    """Owned GPUs: keep running them or hand them back and rent, per cloud tier (the purchase is sunk)."""

    running_cost_per_month: float = Field(description="Power, colocation, maintenance and staff a month: what keeping them costs.")
    running_cost_per_used_gpu_hour: float
    resale_now: float = Field(description="What selling them would fetch, at the resale share of the purchase: the only capital still in play.")
    tiers: list[KeepTier]
    keep: bool = Field(description="Keeping costs less than renting at the cheapest tier with a price.")


class RentQuoted(BaseModel):
    """A rent as its market publishes it (the answer converts it; the reader sees both)."""

    price: float
    currency: Currency
    date: str
    usd_to_cny: float = Field(description="The CNY per USD it was converted at.")


class RegionUsed(BaseModel):
    """Whose electricity and colocation prices the comparison used, and which of them fell back to a default."""

    region: str
    name: Text
    electricity_fallback: bool = Field(description="No sourced tariff for the region: the planning default was used.")
    colocation_fallback: bool = Field(description="No sourced colocation price for the region: the planning default was used.")
    colocation_global_average: bool = Field(False, description="The colocation price is a global average, not the region's own.")
    electricity_source: str = Field("", description="The region's tariff: '<date>, [title](url)', empty when it fell back.")
    colocation_source: str = Field("", description="The region's colocation price: '<date>, [title](url)', empty when it fell back.")


class LessorView(BaseModel):
    """Buying servers to rent them out: revenue from the hours rented against the running costs, and the purchase repaid
    from the margin."""

    rate_per_gpu_hour: float = Field(description="What each rented GPU-hour earns, in `currency`.")
    occupancy_pct: float = Field(description="Share of hours the GPUs are rented out.")
    rented_gpu_hours: float = Field(description="GPU-hours rented out per month.")
    revenue_per_month: float
    energy_per_month: float
    colocation_per_month: float
    maintenance_per_month: float
    staff_per_month: float
    running_cost_per_month: float
    margin_per_month: float = Field(description="revenue − running cost; negative means every month loses money.")
    payback_months: float | None = Field(description="capex / margin; None when the margin is not positive.")
    horizon_months: int
    profit_over_horizon: float = Field(description="margin × months − capex + resale value at the end.")
    rate_to_cover_running: float = Field(description="Rate per GPU-hour at which revenue only pays the running costs (at this occupancy).")
    rate_to_pay_back_in_horizon: float = Field(description="Rate per GPU-hour that repays the purchase within the horizon (at this occupancy).")
    occupancy_to_pay_back_in_horizon_pct: float = Field(description="Occupancy that repays the purchase within the horizon at this rate; > 100 = never.")
    rate_from_market: bool = Field(description="No rate was given: the market tier's rate a renter would pay was used.")


class EstimatedPrice(BaseModel):
    """The server price when the catalog has no card price: the card range of dated, sourced anchors × GPUs plus the
    host, priced in the comparison at its midpoint; an answer says it is an estimate, its date and to get a quote."""

    low: float
    high: float
    date: str = Field(description="The newest anchor's date.")
    derivation: Text
    sources: list[str]


class TcoResult(BaseModel):
    currency: Currency
    gpu_id: str | None
    gpu_name: str | None = Field(description="The GPU's display name, when a catalog GPU was given.")
    total_gpus: int
    horizon_months: int
    capex: float
    own_monthly_cost: float = Field(description="Amortised: (capex − resale) / months + monthly opex.")
    own_monthly_opex: float = Field(description="Cash spent each month on energy, colocation, maintenance and staff.")
    monthly_margin: float = Field(0.0, description="Rent avoided minus owning's monthly cash cost: what each month of ownership pays back.")
    cloud_monthly_cost: float
    own_cost_per_used_gpu_hour: float
    payback_months: float | None = Field(description="capex / (cloud − opex); may exceed the lifetime. None if cloud ≤ opex.")
    break_even_month: int | None = Field(description="First month owning is cheaper in cash terms; None if not within the lifetime.")
    break_even_utilisation_pct: float = Field(description="Utilisation at which owning and renting cost the same; > 100 means never.")
    own_total: float = Field(description="Capex + opex over the horizon − resale value.")
    cloud_total: float
    saving_from_owning: float = Field(description="cloud_total − own_total; negative means renting is cheaper.")
    series: list[MonthPoint]
    sensitivities: list[Text] = Field(description="The three assumptions that move the answer most, one line each.")
    sensitivity_details: list[SensitivityDetail]
    power_reminder: Text
    assumptions: list[Assumption]
    items: list[LineItem]
    tier_paybacks: list[TierPayback] = Field(default_factory=list, description="Payback against each cloud tier for this GPU.")
    claim_check: ClaimCheck | None = None
    stale_prices: list[StalePrice] = Field(default_factory=list, description="Prices used that are older than 6 months on `today`.")
    cloud_billing: Literal["used_hours", "every_hour", "monthly_bill"] = Field(
        "used_hours", description="How the rent compared is billed: on demand for the hours used, every hour (reserved/committed), or a stated bill."
    )
    rent_tier: str | None = Field(None, description="The cloud tier the default rent was taken from; None = the catalog's on-demand price or the user's.")
    rent_tier_name: Text | None = None
    rent_market: Literal["china", "abroad"] | None = Field(
        None, description="The default rent is another market's (the buyer's has none for the card), converted at `usd_to_cny`.")
    rent_quoted: RentQuoted | None = Field(None, description="Another market's rent as published, before conversion.")
    server_price_estimate: EstimatedPrice | None = Field(None, description="Set when the server price is an estimate from dated anchors (no catalog card price).")
    on_demand_rate: float | None = Field(None, description="The hyperscaler on-demand rate per GPU-hour in `currency`, the rent's upper bound.")
    verdict: Literal["buy", "buy_with_resale", "rent"] = Field(
        "rent", description="Who wins over the horizon: 'buy' = the purchase is paid back in cash within it; 'buy_with_resale' = not in "
        "cash, but owning is cheaper once the servers' resale value is counted; 'rent' = renting costs less either way. The sign of "
        "`saving_from_owning`, `monthly_advantage` and (billed by the hours used) break-even vs the utilisation always agree with it."
    )
    monthly_advantage: float = Field(0.0, description="cloud_monthly_cost − own_monthly_cost (amortised): owning's advantage per month, negative when renting is cheaper.")
    resale_value: float = Field(0.0, description="What the servers fetch at the end of the horizon, in `currency`.")
    break_even_applies: bool = Field(
        True, description="False when the rent is billed every hour (reserved, committed or a monthly bill): how busy the GPUs are "
        "then changes neither side, and the break-even utilisation says nothing."
    )
    rent_to_pay_back_in_horizon: float = Field(description="Monthly rent at which owning pays back (cash) exactly within the horizon.")
    utilisation_to_pay_back_in_horizon_pct: float | None = Field(
        description="Utilisation at which owning pays back within the horizon, when the rent is billed by the hours used; else None."
    )
    keep_or_rent: KeepOrRent | None = Field(None, description="For GPUs already owned: running cost against each tier's rent.")
    ratio_check: RatioCheck | None = Field(None, description="A quoted 'cloud costs N× owning', checked per tier.")
    region: RegionUsed | None = Field(None, description="The region whose electricity and colocation prices were used.")
    lessor: LessorView | None = Field(None, description="For GPUs bought to rent out: revenue, margin and payback.")


def _check_request(r: TcoRequest) -> None:
    check_range(r.servers, *INPUT_NAMES.pair("number_of_servers"), minimum=1, maximum=100_000, code="invalid_server_count")
    check_range(r.gpus_per_server, *INPUT_NAMES.pair("gpus_in_each_server"), minimum=1, maximum=128, code="invalid_gpu_count")
    check_range(r.servers * r.gpus_per_server, *INPUT_NAMES.pair("total_gpus"), maximum=MAX_TOTAL_GPUS, code="invalid_gpu_count")
    checks = [  # field (its name in both languages is inputs.<field> of the text file), min, max, exclusive minimum
        ("server_price", 0, 1e9, True),
        ("network_overhead_pct", 0, 200, False),
        ("lifetime_years", MIN_LIFETIME_YEARS, MAX_LIFETIME_YEARS, False),
        ("residual_value_pct", 0, 95, False),
        ("server_max_kw", 0, 500, True),
        ("load_factor_pct", 0, 100, True),
        ("pue", 1, 3, False),
        ("electricity_price", 0, 100, False),
        ("colo_price_per_kw_month", 0, 1e5, False),
        ("colo_per_month", 0, 1e10, False),
        ("maintenance_pct_per_year", 0, 100, False),
        ("staff_cost_per_month", 0, 1e9, False),
        # Floors rather than "> 0": a denormal utilisation or price underflows to 0 GPU-hours
        # (division by zero) or overflows the break-even figure to inf; below them it is a typo anyway.
        ("utilisation_pct", MIN_UTILISATION_PCT, 100, False),
        ("hours_per_month", MIN_UTILISATION_PCT / 100 * HOURS_PER_MONTH, MAX_HOURS_PER_MONTH, False),
        ("cloud_price_per_gpu_hour", MIN_CLOUD_PRICE, 1e4, False),
        ("cloud_discount_pct", 0, 99, False),
        ("cloud_monthly_bill", 1, 1e10, False),  # a denormal bill would spread to a zero rate
    ]  # fmt: skip
    for field, low, high, exclusive in checks:
        value = getattr(r, field)
        if value is not None:
            check_range(value, *TEXT.pair(f"inputs.{field}"), minimum=low, maximum=high, exclusive_minimum=exclusive, code=f"invalid_{field}")
    check_exchange_rate(r.usd_to_cny)
    if r.claimed_cloud_ratio is not None:
        check_range(r.claimed_cloud_ratio, *INPUT_NAMES.pair("claimed_cost_ratio"), minimum=1.01, maximum=100, code="invalid_claimed_ratio")
    if r.claimed_payback_months is not None:
        # a floor, not "> 0": a denormal claim overflows the utilisation it needs to inf; under 3 days it is a typo
        check_range(r.claimed_payback_months, *INPUT_NAMES.pair("claimed_payback_months"), minimum=MIN_CLAIMED_MONTHS, maximum=600,
                    code="invalid_claimed_payback")  # fmt: skip
    if r.lifetime_bounds_years is not None:
        for bound in r.lifetime_bounds_years:
            check_range(bound, *INPUT_NAMES.pair("lifetime_years"), minimum=MIN_LIFETIME_YEARS, maximum=MAX_LIFETIME_YEARS, code="invalid_lifetime_years")
    if r.cloud_monthly_bill is not None and r.cloud_price_per_gpu_hour is not None:
        raise AdvisorError(
            "conflicting_cloud_price",
            **TEXT.text("errors.conflicting_cloud_price").model_dump(),
            suggestions=["cloud_monthly_bill", "cloud_price_per_gpu_hour"],
        )
    if r.utilisation_pct is not None and r.hours_per_month is not None:
        raise AdvisorError(
            "conflicting_utilisation",
            **TEXT.text("errors.conflicting_utilisation").model_dump(),
            suggestions=["utilisation_pct", "hours_per_month"],
        )


DERIVED = "derived from your monthly bill"
DERIVED_COLO = "your colocation bill ÷ the servers' maximum kW"  # the source of figures worked out from the bill the user gave


def _need_gpu(field: str, gpu: GPU | None, available: bool) -> GPU:
    """The catalog GPU a default needs, or a bilingual error naming the missing input."""
    needed = TEXT.text(f"needed.{field}")  # what a missing default is, in words: field names are for programs, not people
    if gpu is None:
        raise AdvisorError(
            "tco_needs_gpu",
            **TEXT.text("errors.needs_gpu", needed=needed).model_dump(),
            suggestions=["gpu", field],
        )
    if not available:
        raise AdvisorError(
            "tco_missing_price",
            **TEXT.text("errors.missing_price", gpu=gpu.name, needed=needed).model_dump(),
            suggestions=[field],
        )
    return gpu


def _resolve(r: TcoRequest, gpu: GPU | None, currency: Currency, defaults: dict[str, Default], tier_rate: CloudRate | None = None,
             abroad: bool = False) -> tuple[TcoInputs, list[Assumption], EstimatedPrice | None, list[tuple[Text, str]]]:
    assumptions: list[Assumption] = []

    def take(key: str, given: float | None, default: float, unit: str, source: str, links: list[str] = (), date: str = "") -> float:
        value = default if given is None else given
        if given is not None:
            assumptions.append(Assumption(key=key, value=value, unit=unit, source="given"))
        else:
            assumptions.append(Assumption(key=key, value=value, unit=unit, source=source, links=list(links), date=date))
        return value

    def dated(d: Default) -> str:
        return d.sources[0].date if d.sources else d.date

    def from_data(key: str, given: float | None, d: Default) -> float:
        return take(key, given, d.value, d.unit, d.source, d.links, dated(d))

    def plain(key: str, given: float | None) -> float:
        return from_data(key, given, defaults[key])

    def usd(key: str, given: float | None) -> float:
        d = defaults[f"{key}_usd"]
        unit = d.unit.replace("USD", currency)
        source = d.source if currency == "USD" else f"{d.source}; converted at {r.usd_to_cny:g} CNY/USD"
        return take(key, given, convert(d.value, "USD", currency, r.usd_to_cny), unit, source, d.links, dated(d))

    rate = r.usd_to_cny
    china = currency == "CNY" or r.region == "cn"
    price = r.server_price
    estimated: EstimatedPrice | None = None
    default_price = default_kw = default_cloud = 0.0
    quote_links: list[str] = []
    server_dates: list[tuple[Text, str]] = []  # the dated machine figure a defaulted server price adds to its cards
    price_source = kw_source = cloud_source = ""
    price_date = cloud_date = ""  # the date of the figure a defaulted price comes from, shown beside its source
    cloud_links: list[str] = []
    price_ratio, power_ratio = defaults["server_price_per_gpu_price"], defaults["server_power_per_gpu_power"]
    unsure_scope = price is not None and r.servers > 1 and r.server_price_each is None
    if price is None or (unsure_scope and gpu is not None and gpu.purchase_price is not None):
        host = server_data().for_gpus(sold_as(gpu), gpu.segment, r.gpus_per_server) if gpu is not None else None
        quote = server_data().default_quote(gpu, r.gpus_per_server, host) if gpu is not None else None
        # no catalog card price: a range from dated, sourced anchors (price_estimates.yaml) is priced at its midpoint
        card = card_price(gpu, currency, rate) if gpu is not None and gpu.purchase_price is None and quote is None else None
        g = gpu if quote is not None else _need_gpu("server_price", gpu, gpu is not None and (gpu.purchase_price is not None or card is not None))
        each = price_in(g.purchase_price, currency, rate) if g.purchase_price is not None else card.mid if card is not None else 0.0
        gpus_price = each * r.gpus_per_server
        card_basis = (f"GPU price {g.purchase_price.date}, {g.purchase_price.cited}" if g.purchase_price is not None else
                      f"GPU price estimated {card.low:,.0f}–{card.high:,.0f} {currency} per card from dated sources up to {card.date} "
                      f"({card.derivation.en}; midpoint used)" if card is not None else "")  # fmt: skip
        server_dates = machine_dates(host, quote)
        price_date = quote.date if quote is not None else g.purchase_price.date if g.purchase_price is not None else card.date if card is not None else ""
        if quote is not None:  # a whole server's published price beats a card price plus a generic host
            default_price = convert(quote.price, quote.currency, currency, rate)
            price_source = f"{quote.what.en}, {quote.price:,.0f} {quote.currency}, {quote.date}, {quote.source.title} {quote.source.url}"
            quote_links = [quote.source.url]
        elif host is not None:  # the machine the GPUs go in, from the server bills of materials
            default_price = gpus_price + host.price(currency, rate)
            price_source = (f"catalog price per GPU × GPUs + one {host.name.en} without GPUs "
                            f"({host.price(currency, rate):,.0f} {currency}, {host.date}, {host.quoted_by or host.basis}); "
                            f"{card_basis}")  # fmt: skip
        else:  # a part with no server class (a module, a rack): the rule-of-thumb share of the GPUs in a server
            default_price = gpus_price * price_ratio.value
            price_source = f"catalog price per GPU × GPUs × {price_ratio.value:g} ({price_ratio.basis}); {card_basis}"
        if quote is None and g.purchase_price is not None and g.purchase_price.source_url:
            quote_links = [g.purchase_price.source_url]  # the page the card price was read from, before the generic links
        if card is not None:
            estimated = EstimatedPrice(low=card.low * r.gpus_per_server + default_price - gpus_price,
                                       high=card.high * r.gpus_per_server + default_price - gpus_price,
                                       date=card.date, derivation=card.derivation, sources=card.sources)  # fmt: skip
    if unsure_scope and default_price and abs(price / r.servers - default_price) < abs(price - default_price):
        # "two 8-GPU servers for about ¥3M": nearer two servers at the catalog price than one, so it is the total
        price = price / r.servers
        assumptions.append(Assumption(key="server_price_is_total", value=r.server_price, unit=currency,
                                      source=f"read as the price of all {r.servers} servers: {price:,.0f} each is nearer the "
                                             f"catalog's {default_price:,.0f} for one than {r.server_price:,.0f} is"))  # fmt: skip
    if r.server_max_kw is None:
        g = _need_gpu("server_max_kw", gpu, gpu is not None and gpu.tdp_w is not None)
        default_kw = g.tdp_w * r.gpus_per_server * power_ratio.value / 1000
        kw_source = f"GPU TDP × GPUs × {power_ratio.value:g} ({power_ratio.basis})"
    billed_rate = None
    if r.cloud_monthly_bill is not None:  # what is paid, spread over every hour of every GPU: utilisation does not scale it
        billed_rate = r.cloud_monthly_bill / (r.servers * r.gpus_per_server * HOURS_PER_MONTH)
        assumptions.append(Assumption(key="cloud_monthly_bill", value=r.cloud_monthly_bill, unit=f"{currency}/month", source="given"))
        default_cloud, cloud_source = billed_rate, DERIVED
    elif r.cloud_price_per_gpu_hour is None and tier_rate is not None:  # the tier a buyer of this size rents at
        default_cloud = convert(tier_rate.price, tier_rate.currency, currency, rate)
        where = f"{tier_rate.source.title} {tier_rate.source.url}" if tier_rate.source else tier_rate.quoted_by
        cloud_source = f"{TIER_NAMES[tier_rate.tier][0]}: {tier_rate.offer}, {tier_rate.date}, {where}"
        if tier_rate.currency != currency:  # the figure as published, and the rate it was converted at
            cloud_source += f"; {tier_rate.price:g} {tier_rate.currency} converted at {rate:g} CNY/USD"
        cloud_links = [tier_rate.source.url] if tier_rate.source else []
        cloud_date = tier_rate.date
    elif r.cloud_price_per_gpu_hour is None and not r.rent_needed and (gpu is None or gpu.cloud_price is None or china):
        default_cloud, cloud_source = MIN_CLOUD_PRICE, "not needed: only owning's cost is asked"
    elif r.cloud_price_per_gpu_hour is None and china and gpu is not None and not _china_rent(gpu) and not abroad:
        # a China buyer with no China tier for the card: a US cloud's rate is no rent anyone in China pays
        raise AdvisorError("tco_missing_price", **TEXT.text("errors.missing_china_rent", gpu=gpu.name).model_dump(),
                           suggestions=["cloud_price_per_gpu_hour"])  # fmt: skip
    elif r.cloud_price_per_gpu_hour is None:
        g = _need_gpu("cloud_price_per_gpu_hour", gpu, gpu is not None and gpu.cloud_price is not None)
        default_cloud = price_in(g.cloud_price, currency, rate)
        cloud_source = f"catalog: {g.cloud_price.note or 'on-demand'}, {g.cloud_price.date}, {g.cloud_price.cited}"
        cloud_links = [g.cloud_price.source_url] if g.cloud_price.source_url else []
        cloud_date = g.cloud_price.date

    utilisation = None if r.hours_per_month is None else min(100.0, r.hours_per_month / HOURS_PER_MONTH * 100)
    kw_each = r.server_max_kw if r.server_max_kw is not None else default_kw
    electricity = defaults["electricity_price_cny" if currency == "CNY" else "electricity_price_usd"]
    inputs = TcoInputs(
        servers=r.servers,
        gpus_per_server=r.gpus_per_server,
        server_price=take("server_price", price, default_price, currency, price_source, quote_links or price_ratio.links, price_date),
        network_overhead_pct=plain("network_overhead_pct", r.network_overhead_pct),
        lifetime_years=plain("lifetime_years", r.lifetime_years),
        residual_value_pct=plain("residual_value_pct", r.residual_value_pct),
        server_max_kw=take("server_max_kw", r.server_max_kw, default_kw, "kW", kw_source, power_ratio.links, dated(power_ratio)),
        load_factor_pct=plain("load_factor_pct", r.load_factor_pct),
        pue=plain("pue", r.pue),
        electricity_price=from_data("electricity_price", r.electricity_price, electricity),
        colo_price_per_kw_month=_colo(r, usd, take, kw_each),
        colo_includes_power=r.colo_includes_power,
        maintenance_pct_per_year=plain("maintenance_pct_per_year", r.maintenance_pct_per_year),
        staff_cost_per_month=usd("staff_cost_per_month", r.staff_cost_per_month),
        utilisation_pct=plain("utilisation_pct", utilisation if utilisation is not None else r.utilisation_pct),
        cloud_price_per_gpu_hour=take("cloud_price_per_gpu_hour", r.cloud_price_per_gpu_hour, default_cloud,
                                      f"{currency}/GPU-hour", cloud_source, cloud_links, cloud_date),
        # a bill is what is paid: any discount is already in it
        cloud_discount_pct=take("cloud_discount_pct", None, 0.0, "%", DERIVED) if billed_rate is not None else plain("cloud_discount_pct", r.cloud_discount_pct),
        # a lessor earns for the hours rented out, whatever the billing of the market rate it is priced at
        cloud_billed_pct=100.0 if billed_rate is not None or r.cloud_committed or (tier_rate is not None and tier_rate.billing == "lease" and not r.rents_out) else None,
    )  # fmt: skip
    if currency == "CNY":
        assumptions.append(Assumption(key="usd_to_cny", value=rate, unit="CNY/USD", source=USD_TO_CNY_NOTE,
                                      links=defaults["usd_to_cny"].links, date=dated(defaults["usd_to_cny"])))  # fmt: skip
    return inputs, assumptions, estimated, server_dates


def _dated(d: Default) -> str | None:
    """When a default was quoted: the company's date, else its newest source's (a partial date read at its earliest)."""
    if d.date:
        return d.date
    return max((q.date for q in d.sources), key=price_date, default=None)


def _china_rent(gpu: GPU) -> bool:
    """The card's catalog rent stands for a China buyer only when it is in yuan or the company's own figure."""
    price = gpu.cloud_price
    return price is not None and (price.currency == "CNY" or bool(price.overridden_by))


def _estimate_date(gpu: GPU | None, estimated: EstimatedPrice | None, r: TcoRequest) -> list[tuple[Text, str]]:
    """An estimated card price ages like a catalog one: its newest anchor's date."""
    if gpu is None or estimated is None or r.server_price is not None:
        return []
    return [(COST_TEXT.text("prices.purchase", gpu=gpu.name), estimated.date)]


def _running_dates(r: TcoRequest, defaults: dict[str, Default], currency: str) -> list[tuple[Text, str]]:
    """The electricity and colocation prices the comparison took from its defaults (or the region's), with their dates,
    so a tariff older than six months is flagged like any other price."""
    dated = []
    if r.electricity_price is None and not r.colo_includes_power:
        d = defaults["electricity_price_cny" if currency == "CNY" else "electricity_price_usd"]
        if _dated(d):
            dated.append((COST_TEXT.text("prices.electricity"), _dated(d)))
    if r.colo_price_per_kw_month is None and r.colo_per_month is None:
        d = defaults[COLOCATION_KEY]
        if _dated(d):
            dated.append((COST_TEXT.text("prices.colocation"), _dated(d)))
    return dated


def _colo(r: TcoRequest, usd, take, kw_each: float) -> float:  # noqa: ANN001 (the resolver's own helpers)
    """Colocation per kW-month: as given, from a monthly bill spread over the servers' maximum kW, or the default."""
    if r.colo_per_month is None:
        return usd("colo_price_per_kw_month", r.colo_price_per_kw_month)
    take("colo_per_month", r.colo_per_month, r.colo_per_month, f"{r.currency}/month", "given")
    per_kw = r.colo_per_month / (r.servers * kw_each)
    return take("colo_price_per_kw_month", None, per_kw, f"{r.currency}/kW-month", DERIVED_COLO)


def _power_reminder(inputs: TcoInputs, gpu: GPU | None) -> Text:
    what = TEXT.text("power.named_server", gpus=inputs.gpus_per_server, gpu=gpu.name) if gpu else TEXT.text("power.any_server", gpus=inputs.gpus_per_server)
    each, total = inputs.server_max_kw, inputs.server_max_kw * inputs.servers
    fleet = TEXT.text("power.fleet", servers=inputs.servers, total=total) if inputs.servers > 1 else Text(en="", zh="")
    return TEXT.text("power.reminder", what=what, each=each, fleet=fleet)


def _items(p: TcoInputs, n: TcoNumbers, c: Currency) -> list[LineItem]:
    """Each figure with its formula in English and Chinese: the same numbers, the words translated."""

    def item(key: str, value: float, unit: str, formula: Text | str, **label_values: object) -> LineItem:
        # a formula of numbers and symbols only reads the same in both languages
        both = formula if isinstance(formula, Text) else Text(en=formula, zh=formula)
        return LineItem(key=key, label=TEXT.text(f"items.{key}.label", **label_values), value=value, unit=unit, **formula_fields(both))

    def m(amount: float) -> str:
        return money(amount, c)

    power = f"{p.servers} × {p.server_max_kw:g} kW"
    if p.colo_includes_power:
        energy = TEXT.text("items.energy.included")
    else:
        energy = f"{power} × {p.load_factor_pct:g}% × PUE {p.pue:g} × {HOURS_PER_MONTH} h × {m(p.electricity_price)}/kWh = {m(n.energy)}"
    capex = f"{p.servers} × {m(p.server_price)} × (1 + {p.network_overhead_pct:g}%"
    residual = f"{m(n.capex)} − {p.residual_value_pct:g}%"
    monthly = f"{m(n.depreciation)} + {m(n.energy)} + {m(n.colo)} + {m(n.maintenance)} + {m(n.staff)} = {m(n.own_monthly)}"
    rent = (f"{HOURS_PER_MONTH} h × {p.billed_pct:g}% × {m(p.cloud_price_per_gpu_hour)} × (1 − {p.cloud_discount_pct:g}%)"
            f" = {m(n.cloud_monthly)}")  # fmt: skip
    break_even = f"{m(n.own_monthly)} / ({n.gpus:,} × {HOURS_PER_MONTH} h × {m(n.cloud_rate)}) = {n.break_even_utilisation_pct:.1f}%"
    own_total = f"{m(n.capex)} + {n.months} × {m(n.opex)} − {m(n.residual)} = {m(n.capex + n.opex * n.months - n.residual)}"
    items = [
        item("capex", n.capex, c, TEXT.text("items.capex.formula", capex=capex, total=m(n.capex))),
        # the share of the purchase for the network (switches, NICs, cabling) and storage: "and the network?" asks it alone
        item("network", n.capex - p.servers * p.server_price, c,
             f"{p.servers} × {m(p.server_price)} × {p.network_overhead_pct:g}% = {m(n.capex - p.servers * p.server_price)}"),
        item("depreciation", n.depreciation, c,
             TEXT.text("items.depreciation.formula", residual=residual, resale=m(n.residual), months=n.months, each=m(n.depreciation))),
        item("energy", n.energy, c, energy),
        item("colocation", n.colo, c, TEXT.text("items.colocation.formula", power=power, price=m(p.colo_price_per_kw_month), total=m(n.colo))),
        item("maintenance", n.maintenance, c, f"{m(n.capex)} × {p.maintenance_pct_per_year:g}% / 12 = {m(n.maintenance)}"),
        item("staff", n.staff, c, TEXT.text("items.staff.formula", amount=m(n.staff))),
        item("own_monthly", n.own_monthly, c, monthly),
        item("cloud_monthly", n.cloud_monthly, c, TEXT.text("items.cloud_monthly.formula", gpus=n.gpus, rent=rent)),
        item("own_per_gpu_hour", n.own_monthly / n.gpu_hours, f"{c}/GPU-hour",
             TEXT.text("items.own_per_gpu_hour.formula", own=m(n.own_monthly), hours=n.gpu_hours, each=m(n.own_monthly / n.gpu_hours))),
        item("break_even_utilisation", n.break_even_utilisation_pct, "%", break_even),
        item("own_total", n.capex + n.opex * n.months - n.residual, c, own_total, months=n.months),
        item("cloud_total", n.cloud_monthly * n.months, c, f"{n.months} × {m(n.cloud_monthly)} = {m(n.cloud_monthly * n.months)}", months=n.months),
    ]  # fmt: skip
    if n.payback is not None:  # no figure to show when the cloud bill never exceeds owned running costs
        payback = f"{m(n.capex)} / ({m(n.cloud_monthly)} − {m(n.opex)}) = {n.payback:.1f}"
        items.append(item("payback", n.payback, "months", TEXT.text("items.payback.formula", payback=payback)))
    return items


def compute_tco(request: TcoRequest, catalog: Catalog, prices: PriceBook = None) -> TcoResult:  # type: ignore[assignment]  # the registry injects by annotation
    """Compare owning servers with renting the same GPU-hours, month by month over the servers' life, and the
    payback against each cloud tier (``prices``: the price book in force; None = shipped defaults, no tiers)."""
    _check_request(request)
    currency = normalize_currency(request.currency)
    gpu = catalog.gpu(request.gpu) if request.gpu else None
    defaults, region = regional_defaults(prices.defaults if prices is not None else shipped_tco_defaults(), request.site_region, request.usd_to_cny)
    rates = prices.clouds.for_gpu(gpu.id) if prices is not None and gpu is not None else []
    china = currency == "CNY" or request.region == "cn"
    rent_given = request.cloud_price_per_gpu_hour is not None or request.cloud_monthly_bill is not None
    tier = _rent_tier(request, china, {r.tier for r in rates}) if request.rent_tier and not rent_given else None
    if tier is None and china and not rent_given and request.rent_needed and gpu is not None and not _china_rent(gpu):
        # no tier asked for, and the catalog's rent is a US cloud's: a China buyer rents at the price book's China
        # tier when it has one (else _resolve says the China rent is missing), never at the US rate
        tier = "china" if "china" in {r.tier for r in rates} else None
    elsewhere = None
    if tier is None and not rent_given and request.rent_needed and gpu is not None and not (_china_rent(gpu) if china else gpu.cloud_price is not None):
        # the buyer's market has no rent for the card: another market's, converted and said as such, rather than none
        elsewhere = rent_market(gpu, {r.tier for r in rates}, china, catalog_rent=True)
        tier = _elsewhere_tier(elsewhere, {r.tier for r in rates})
    tier_rate = next((r for r in rates if r.tier == tier), None)
    inputs, assumptions, estimated, server_dates = _resolve(request, gpu, currency, defaults, tier_rate, abroad=elsewhere == "abroad")
    n = evaluate(inputs)
    today = dt.date.fromisoformat(request.today) if request.today else None
    on_demand = next((r for r in rates if r.tier == "hyperscaler_on_demand"), None)
    tiers = tier_paybacks(rates, inputs, n, request.claimed_payback_months, request.usd_to_cny, currency, today, china or elsewhere == "china")
    sensitivities, details = rank_sensitivities(inputs, currency, {"lifetime_years": lifetime_bounds(inputs.lifetime_years, request.lifetime_bounds_years)})
    own_total = n.capex + n.opex * n.months - n.residual
    cloud_total = n.cloud_monthly * n.months
    return TcoResult(
        currency=currency, gpu_id=gpu.id if gpu else None, gpu_name=gpu.name if gpu else None, total_gpus=n.gpus, horizon_months=n.months, capex=n.capex,
        own_monthly_cost=n.own_monthly, own_monthly_opex=n.opex, cloud_monthly_cost=n.cloud_monthly,
        monthly_margin=n.cloud_monthly - n.opex,
        own_cost_per_used_gpu_hour=n.own_monthly / n.gpu_hours, payback_months=n.payback,
        break_even_month=n.break_even_month, break_even_utilisation_pct=n.break_even_utilisation_pct,
        own_total=own_total, cloud_total=cloud_total, saving_from_owning=cloud_total - own_total,
        series=[MonthPoint(month=k, own_cumulative=n.capex + n.opex * k, cloud_cumulative=n.cloud_monthly * k)
                for k in range(n.months + 1)],
        sensitivities=sensitivities, sensitivity_details=details, power_reminder=_power_reminder(inputs, gpu),
        assumptions=assumptions, items=_items(inputs, n, currency), tier_paybacks=tiers,
        claim_check=claim_check(request.claimed_payback_months, tiers, inputs.utilisation_pct),
        stale_prices=stale_prices(gpu, request.server_price is None, request.cloud_price_per_gpu_hour is None and request.cloud_monthly_bill is None,
                                  tiers, today, _running_dates(request, defaults, currency) + _estimate_date(gpu, estimated, request)
                                  + (server_dates if request.server_price is None else [])),
        cloud_billing="monthly_bill" if request.cloud_monthly_bill is not None else "every_hour" if inputs.cloud_billed_pct is not None else "used_hours",
        rent_tier=tier, rent_tier_name=Text(en=TIER_NAMES[tier][0], zh=TIER_NAMES[tier][1]) if tier else None, rent_market=elsewhere,
        rent_quoted=_rent_quoted(elsewhere, tier_rate, gpu, request.usd_to_cny),
        server_price_estimate=estimated if request.server_price is None else None,
        on_demand_rate=convert(on_demand.price, on_demand.currency, currency, request.usd_to_cny) if on_demand else None,
        verdict=_verdict(n, cloud_total - own_total), monthly_advantage=(cloud_total - own_total) / n.months, resale_value=n.residual,
        break_even_applies=inputs.cloud_billed_pct is None,
        rent_to_pay_back_in_horizon=n.capex / n.months + n.opex,
        utilisation_to_pay_back_in_horizon_pct=(
            None if inputs.cloud_billed_pct is not None else (n.capex / n.months + n.opex) / (n.gpus * HOURS_PER_MONTH * n.cloud_rate) * 100
        ),
        keep_or_rent=keep_or_rent(n, inputs.utilisation_pct, tiers, rent_stated=request.cloud_price_per_gpu_hour is not None) if request.owned else None,
        ratio_check=ratio_check(request.claimed_cloud_ratio, tiers, n.own_monthly, n.gpus),
        region=RegionUsed(**region) if region else None,
        lessor=lessor_view(n, inputs, rate_given=rent_given) if request.rents_out else None,
    )  # fmt: skip


def lessor_view(n: TcoNumbers, inputs: TcoInputs, rate_given: bool) -> LessorView:
    """Servers bought to rent out: revenue = rate × GPUs × hours × occupancy (or the monthly lease stated); running
    costs = power at the tariff with PUE + colocation + maintenance + staff; payback = purchase ÷ monthly margin."""
    margin = n.cloud_monthly - n.opex
    rented_hours = n.gpus * HOURS_PER_MONTH * inputs.billed_pct / 100
    needed = n.capex / n.months + n.opex  # a month's revenue that repays the purchase within the horizon
    return LessorView(
        rate_per_gpu_hour=n.cloud_rate, occupancy_pct=inputs.billed_pct, rented_gpu_hours=rented_hours, revenue_per_month=n.cloud_monthly,
        energy_per_month=n.energy, colocation_per_month=n.colo, maintenance_per_month=n.maintenance, staff_per_month=n.staff,
        running_cost_per_month=n.opex, margin_per_month=margin, payback_months=n.capex / margin if margin > 0 else None,
        horizon_months=n.months, profit_over_horizon=margin * n.months - n.capex + n.residual,
        rate_to_cover_running=n.opex / rented_hours, rate_to_pay_back_in_horizon=needed / rented_hours,
        occupancy_to_pay_back_in_horizon_pct=needed / (n.gpus * HOURS_PER_MONTH * n.cloud_rate) * 100,
        rate_from_market=not rate_given,
    )  # fmt: skip


def _rent_quoted(elsewhere: str | None, tier_rate: CloudRate | None, gpu: GPU | None, usd_to_cny: float) -> RentQuoted | None:
    """Another market's rent as it is published: the tier's offer, else the catalog's own rent (no tier has one)."""
    if not elsewhere:
        return None
    if tier_rate is not None:
        return RentQuoted(price=tier_rate.price, currency=tier_rate.currency, date=tier_rate.date, usd_to_cny=usd_to_cny)
    price = gpu.cloud_price if gpu is not None else None
    return RentQuoted(price=price.amount, currency=price.currency, date=price.date, usd_to_cny=usd_to_cny) if price is not None else None


def _elsewhere_tier(elsewhere: str | None, tiers: set[str]) -> str | None:
    """The tier another market's rent is taken from: the China tier, else the one a buyer abroad rents at (a specialist
    GPU cloud, else hyperscaler on-demand); None: the catalog's own rent."""
    if elsewhere == "china":
        return "china"
    if elsewhere == "abroad":
        return next((tier for tier in ("specialist", "hyperscaler_on_demand") if tier in tiers), None)
    return None


def _rent_tier(request: TcoRequest, china: bool, tiers: set[str]) -> str | None:
    """The tier the rent is priced at when none was given: the one named, else the one a buyer of this size uses."""
    if request.rent_tier == "auto":
        return buyer_tier(request.servers * request.gpus_per_server, china, tiers)
    return request.rent_tier if request.rent_tier in tiers else None


def keep_or_rent(n: TcoNumbers, utilisation_pct: float, tiers: list[TierPayback], rent_stated: bool = False) -> KeepOrRent:
    """GPUs already owned: what they were bought for is spent either way, so keeping them is weighed on the
    running cost alone against the rent of the same GPU-hours, tier by tier; a rent the user quoted is the one
    they would move to, so it alone is compared."""
    rows = [] if rent_stated else [KeepTier(tier=t.tier, tier_name=t.tier_name, price_per_gpu_hour=t.price_per_gpu_hour,
                                            monthly_rent=t.monthly_rent_avoided, keeping_saves=t.monthly_rent_avoided - n.opex) for t in tiers]  # fmt: skip
    if not rows:  # a quoted rent, or no tier prices the card: the rent this comparison used (the user's or the catalog's)
        rows = [KeepTier(tier="compared", tier_name=TEXT.text("the_rent_compared"), price_per_gpu_hour=n.cloud_rate,
                         monthly_rent=n.cloud_monthly, keeping_saves=n.cloud_monthly - n.opex)]  # fmt: skip
    cheapest = min(rows, key=lambda row: row.monthly_rent)
    return KeepOrRent(
        running_cost_per_month=n.opex, running_cost_per_used_gpu_hour=n.opex / n.gpu_hours if n.gpu_hours else 0.0,
        resale_now=n.residual, tiers=rows, keep=cheapest.keeping_saves > 0,
    )  # fmt: skip


def _verdict(n: TcoNumbers, saving: float) -> Literal["buy", "buy_with_resale", "rent"]:
    """One verdict for the lead, the totals and the break-even line: paid back in cash within the horizon is a win
    outright (the saving is then at least the resale value); ahead only once resale is counted is said as such."""
    if n.payback is not None and n.payback <= n.months:
        return "buy"
    return "buy_with_resale" if saving > 0 else "rent"


def lifetime_bounds(years: float, stated: tuple[float, float] | None) -> tuple[float, float]:
    """The service lives to try: the range the user gave ("2 to 3 years"), else a year either side (half the life
    at the short end), since ±20% of a 1-year horizon (0.8–1.2) says nothing a buyer can act on."""
    if stated is not None:
        return min(stated), max(stated)
    return max(MIN_LIFETIME_YEARS, years - 1, years / 2), min(MAX_LIFETIME_YEARS, years + 1)
