"""What renting a GPU costs today, tier by tier, and whether a quoted rate is fair.

Each tier's range runs from the lowest to the highest sourced figure in it (hyperscaler on-demand and committed,
specialist GPU clouds, marketplaces, China clouds in CNY). The fair band a buyer should expect to pay is the
specialist-cloud range (the China range for a China buyer when one is published); hyperscaler on-demand is the
upper bound. With a number of GPU-hours, each tier's range is also the bill for them: how a training run or a
fleet is priced at the tier a buyer of that size would use, with on-demand shown as the ceiling.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.clouds import TIER_NAMES, CloudRate, PriceBook
from knowledge.gpus import GPU
from knowledge.rent_trend import rent_trend
from knowledge.wording import shipped
from tools.checks import INPUT_NAMES, check_range
from tools.cost.money import DEFAULT_USD_TO_CNY, Currency, check_exchange_rate, convert, normalize_currency
from tools.cost.price_age import is_stale

# A quote this far under the fair band's low end is cheaper than any reliable offer: spot, a marketplace host or
# missing pieces (fabric, storage); this far over its high end is no longer a specialist-cloud price. Rates move
# ±40% within months (consultant-facts.md), so the edges get a tenth either way rather than a hard line.
FAIR_SLACK = 0.10
FAIR_TIERS = ("specialist",)  # what a buyer who shops around pays for reliable capacity
CHINA_FAIR_TIERS = ("china",)
CEILING_TIER = "hyperscaler_on_demand"
# Renting at this scale is negotiated: a fleet or run this big is bought at committed or specialist rates, and
# on-demand list price is only its ceiling (troubleshooting-and-tco.md §2.2: neoclouds target large contracts).
LARGE_GPUS = 64
LARGE_GPU_HOURS = 250_000  # about 32 GPUs for a year, or 1,000 for ten days

Verdict = Literal["below_market", "fair", "above_fair", "on_demand_or_more"]
# Whose market a rent comes from when the buyer's own has none for the card: "china" (a buyer outside China, the card
# rented only in mainland China), "abroad" (a China buyer, the card rented only outside China). Either is converted at
# the request's rate and said as another market's price, rather than no rent at all.
OtherMarket = Literal["china", "abroad"]


def other_market(tiers: set[str], china: bool) -> OtherMarket | None:
    """Whose market prices the card when the buyer's own has no rent for it (``tiers``: the tiers with a figure for the
    card); None when the buyer's market has one, or no market does."""
    if china and "china" not in tiers and tiers:
        return "abroad"
    if not china and tiers == {"china"}:
        return "china"
    return None


def barred_in_china(gpu: GPU) -> bool:
    """The card may not be exported to mainland China (the catalog's China status): the one place that says so."""
    return gpu.china == "export-controlled"


def rent_market(gpu: GPU, tiers: set[str], china: bool, catalog_rent: bool = False) -> OtherMarket | None:
    """Whose market a rent for ``gpu`` comes from when the buyer's own has none (``other_market``), for every tool that
    prices an hour; ``catalog_rent``: the catalog's own rent (a cloud's outside China) stands in when no tier has one.
    A China buyer of a card barred from export to China gets none: a foreign cloud's rate is no price that buyer can
    rent at, so the answer says the China rent is missing instead of quoting it."""
    if china and barred_in_china(gpu):
        return None
    return other_market(tiers, china) or ("abroad" if china and catalog_rent and gpu.cloud_price is not None else None)


class RentalMarketRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(description="GPU name or alias.")
    currency: str = Field("USD", description="'USD' or 'CNY': every figure is shown in it.")
    china: bool = Field(False, description="The buyer rents in mainland China: the China tier first, and it sets the fair band.")
    quoted_price_per_gpu_hour: float | None = Field(None, description="A rate the user was offered, per GPU-hour in `currency`, to judge.")
    gpus: int = Field(1, description="GPUs rented at once (1–1,000,000): a large fleet is priced at committed rates.")
    gpu_hours: float | None = Field(None, description="GPU-hours to price in every tier (a training run, a month of a fleet).")
    usd_to_cny: float = Field(DEFAULT_USD_TO_CNY, description="CNY per USD, for converting offers.")
    today: str | None = Field(None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="Today's date: offers older than 6 months are flagged.")


class Offer(BaseModel):
    offer: Text
    price: float = Field(description="Per GPU-hour in the answer's currency.")
    low: float
    high: float
    quoted_price: float = Field(description="The figure as published, in `quoted_currency`.")
    quoted_low: float
    quoted_high: float
    quoted_currency: Currency
    date: str
    confidence: str
    source_title: str | None
    source_url: str | None
    derived: bool
    company: bool
    stale: bool


class TierRange(BaseModel):
    tier: str
    name: Text
    low: float = Field(description="Lowest figure in the tier, per GPU-hour in the answer's currency.")
    high: float
    cost_low: float | None = Field(None, description="The GPU-hours asked for × low.")
    cost_high: float | None = None
    offers: list[Offer]


class RentTrendView(BaseModel):
    """How the market's reference GPU's rent has moved: what a multi-year rent-or-buy answer sets against a payback
    worked at today's rent for every year (knowledge/rent_trend.yaml, dated and sourced)."""

    gpu: str = Field(description="The GPU the trend was measured on (the market's reference card), not necessarily the one asked about.")
    currency: Currency = Field(description="The currency the trend was measured in, whatever the answer's.")
    then_price: float = Field(description="Per GPU-hour at the earlier point, in the trend's own `currency`.")
    then_date: str
    now_price: float
    now_date: str
    fall_pct: float = Field(description="How far the rent fell between the two points, % of the earlier price.")
    swing_pct: float = Field(description="Moves of this size within months are common, up as well as down.")
    source_title: str
    source_url: str
    source_date: str


class ChinaAlternative(BaseModel):
    """A card a China buyer can rent at a dated, sourced mainland price when the card asked about has none."""

    gpu_id: str
    gpu_name: str
    low: float = Field(description="Per GPU-hour in the answer's currency.")
    high: float
    date: str
    source_title: str | None
    source_url: str | None


class RentalMarketResult(BaseModel):
    gpu_id: str
    gpu_name: str
    currency: Currency
    tiers: list[TierRange] = Field(description="Tiers with at least one sourced figure, China first for a China buyer.")
    missing_tiers: list[Text] = Field(description="Tiers with no sourced figure for this GPU.")
    fair_tier: str | None = Field(description="The tier whose range is the fair price; None when none is published.")
    fair_low: float | None
    fair_high: float | None
    ceiling: float | None = Field(description="The dearest hyperscaler on-demand figure: what nobody should pay more than.")
    ceiling_low: float | None = Field(description="The cheapest hyperscaler on-demand figure.")
    large: bool = Field(description="A fleet or run big enough to be bought at committed or specialist rates.")
    quoted: float | None
    verdict: Verdict | None = Field(description="Where the quoted rate sits; None without one.")
    quoted_saving_pct: float | None = Field(description="How far the quote is above the fair band's high end, % (negative: below).")
    gpu_hours: float | None
    stale_count: int = Field(description="Offers older than 6 months on `today`.")
    trend: RentTrendView | None = Field(None, description="How rents of the market's reference GPU have moved over the last years.")
    china_alternatives: list[ChinaAlternative] = Field(
        default_factory=list, description="For a China buyer of a card with no mainland price: the cards that have one, dearest first."
    )
    other_market: OtherMarket | None = Field(
        None, description="The rents shown are another market's (the buyer's has none for the card): 'china' or 'abroad', converted at `usd_to_cny`."
    )
    usd_to_cny: float = Field(DEFAULT_USD_TO_CNY, description="The CNY per USD the offers were converted at.")
    catalog_rent: Offer | None = Field(
        None, description="No tier prices the card: the catalog's one dated on-demand rent (one cloud's list price, not a range), when it has one."
    )


def _offer(rate: CloudRate, currency: Currency, usd_to_cny: float, today: dt.date | None) -> Offer:
    def here(amount: float) -> float:
        return convert(amount, rate.currency, currency, usd_to_cny)

    return Offer(
        offer=Text(en=rate.offer, zh=rate.offer_zh or rate.offer), price=here(rate.price), low=here(rate.low or rate.price),
        high=here(rate.high or rate.price), quoted_price=rate.price, quoted_low=rate.low or rate.price,
        quoted_high=rate.high or rate.price, quoted_currency=rate.currency, date=rate.date,
        confidence=rate.confidence, source_title=rate.source.title if rate.source else rate.quoted_by or None,
        source_url=rate.source.url if rate.source else None, derived=rate.derived, company=bool(rate.overridden_by),
        stale=is_stale(rate.date, today),
    )  # fmt: skip


def _catalog_rent(gpu: GPU, currency: Currency, usd_to_cny: float, today: dt.date | None) -> Offer | None:
    """The catalog's dated on-demand rent for a card no price-book tier prices (the one the rent-or-buy model falls back
    on too), as an offer with its page; None when the catalog has none."""
    price = gpu.cloud_price
    if price is None:
        return None
    here = convert(price.amount, price.currency, currency, usd_to_cny)
    return Offer(offer=Text(en=price.note or gpu.name, zh=price.note or gpu.name), price=here, low=here, high=here, quoted_price=price.amount,
                 quoted_low=price.amount, quoted_high=price.amount, quoted_currency=price.currency, date=price.date, confidence="M",
                 source_title=price.source, source_url=price.source_url, derived=False, company=bool(price.overridden_by),
                 stale=is_stale(price.date, today))  # fmt: skip


def _verdict(quoted: float, fair_low: float | None, fair_high: float | None, ceiling_low: float | None) -> Verdict | None:
    if fair_low is None or fair_high is None:
        if ceiling_low is None:
            return None
        return "on_demand_or_more" if quoted >= ceiling_low else "fair"
    if quoted < fair_low * (1 - FAIR_SLACK):
        return "below_market"
    if quoted <= fair_high * (1 + FAIR_SLACK):
        return "fair"
    if ceiling_low is not None and quoted >= ceiling_low:
        return "on_demand_or_more"
    return "above_fair"


def buyer_tier(total_gpus: int, china: bool, tiers: set[str]) -> str | None:
    """The tier a buyer rents at when no rent is given: the China market for a China buyer, else a specialist GPU
    cloud, whatever the size (a buyer weighing a purchase shops around; hyperscaler on-demand is a row beside it,
    never the baseline). None when the chosen tier has no figure for the GPU (then the catalog's on-demand price).
    ``total_gpus`` is kept for callers that size the fleet; every size gets the same tier today."""
    wanted = "china" if china else "specialist"
    return wanted if wanted in tiers else None


def rental_prices(request: RentalMarketRequest, catalog: Catalog, prices: PriceBook = None) -> RentalMarketResult:  # type: ignore[assignment]  # the registry injects by annotation
    """The rental market for one GPU, tier by tier, with the fair band, the on-demand ceiling and a verdict on a quote."""
    currency = normalize_currency(request.currency)
    check_exchange_rate(request.usd_to_cny)
    gpus = int(check_range(request.gpus, *INPUT_NAMES.pair("cards"), minimum=1, maximum=1_000_000, code="invalid_gpu_count"))
    if request.quoted_price_per_gpu_hour is not None:
        check_range(request.quoted_price_per_gpu_hour, *INPUT_NAMES.pair("price_per_gpu_hour"), minimum=0.001, maximum=1e4, code="invalid_price")
    if request.gpu_hours is not None:
        check_range(request.gpu_hours, *INPUT_NAMES.pair("gpu_hours"), minimum=0.01, maximum=1e12, code="invalid_gpu_hours")
    gpu = catalog.gpu(request.gpu)
    if prices is None:
        raise AdvisorError("no_price_book", **shipped("input_errors_text.yaml").text("no_price_book").model_dump())
    today = dt.date.fromisoformat(request.today) if request.today else None
    china = request.china or currency == "CNY"
    listed = prices.clouds.offers(gpu.id)
    listed_rent = _catalog_rent(gpu, currency, request.usd_to_cny, today) if not listed else None
    elsewhere = rent_market(gpu, {rate.tier for rate in listed}, china, catalog_rent=listed_rent is not None and listed_rent.quoted_currency == "USD" and not listed_rent.company)
    by_tier: dict[str, list[Offer]] = {}
    for rate in prices.clouds.offers(gpu.id):
        if rate.tier == "china" and not china and elsewhere is None:
            continue
        by_tier.setdefault(rate.tier, []).append(_offer(rate, currency, request.usd_to_cny, today))
    hours = request.gpu_hours
    tiers = [
        TierRange(tier=tier, name=Text(en=TIER_NAMES[tier][0], zh=TIER_NAMES[tier][1]), low=min(o.low for o in offers),
                  high=max(o.high for o in offers), offers=offers,
                  cost_low=hours * min(o.low for o in offers) if hours else None, cost_high=hours * max(o.high for o in offers) if hours else None)
        for tier, offers in by_tier.items()
    ]  # fmt: skip
    if china:  # a China buyer's own market first
        tiers.sort(key=lambda t: t.tier != "china")
    shown = {t.tier for t in tiers}
    missing = [Text(en=en, zh=zh) for tier, (en, zh) in TIER_NAMES.items() if tier not in shown and (china or tier != "china")]
    fair = next((t for wanted in ((CHINA_FAIR_TIERS if china or elsewhere == "china" else ()) + FAIR_TIERS) for t in tiers if t.tier == wanted), None)
    ceiling = next((t for t in tiers if t.tier == CEILING_TIER), None)
    quoted = request.quoted_price_per_gpu_hour
    fair_low, fair_high = (fair.low, fair.high) if fair else (None, None)
    return RentalMarketResult(
        gpu_id=gpu.id, gpu_name=gpu.name, currency=currency, tiers=tiers, missing_tiers=missing, fair_tier=fair.tier if fair else None,
        fair_low=fair_low, fair_high=fair_high, ceiling=ceiling.high if ceiling else None, ceiling_low=ceiling.low if ceiling else None,
        large=gpus >= LARGE_GPUS or (hours or 0) >= LARGE_GPU_HOURS, quoted=quoted,
        verdict=_verdict(quoted, fair_low, fair_high, ceiling.low if ceiling else None) if quoted is not None else None,
        quoted_saving_pct=(quoted / fair_high - 1) * 100 if quoted is not None and fair_high else None,
        gpu_hours=hours, stale_count=sum(o.stale for t in tiers for o in t.offers), trend=market_trend(),
        china_alternatives=china_alternatives(prices, catalog, currency, request.usd_to_cny) if china and "china" not in shown else [],
        other_market=elsewhere, usd_to_cny=request.usd_to_cny, catalog_rent=listed_rent if not (china and barred_in_china(gpu)) else None,
    )  # fmt: skip


def china_alternatives(prices: PriceBook, catalog: Catalog, currency: Currency, usd_to_cny: float) -> list[ChinaAlternative]:
    """The cards with a dated mainland-China rental price, each as its range of China offers, dearest first: what a
    China buyer can rent instead when the card asked about is quote-only there."""
    by_gpu: dict[str, list[CloudRate]] = {}
    for rate in prices.clouds.rates:
        if rate.tier == "china":
            by_gpu.setdefault(rate.gpu, []).append(rate)
    rows = []
    for gpu_id, rates in by_gpu.items():
        first = rates[0]
        rows.append(ChinaAlternative(
            gpu_id=gpu_id, gpu_name=catalog.gpu(gpu_id).name,
            low=min(convert(r.low or r.price, r.currency, currency, usd_to_cny) for r in rates),
            high=max(convert(r.high or r.price, r.currency, currency, usd_to_cny) for r in rates),
            date=max(r.date for r in rates), source_title=first.source.title if first.source else first.quoted_by or None,
            source_url=first.source.url if first.source else None,
        ))  # fmt: skip
    return sorted(rows, key=lambda row: -row.high)


def market_trend() -> RentTrendView:
    """The reference GPU's rent then and now, in the currency it was measured in (US dollars): converted, a global
    index would read as a yuan price nobody in China paid."""
    trend = rent_trend()
    source = trend.sources[0]
    return RentTrendView(gpu=trend.gpu, currency=normalize_currency(trend.currency), then_price=trend.then.price, then_date=trend.then.date,
                         now_price=trend.now.price, now_date=trend.now.date, fall_pct=trend.fall_pct, swing_pct=trend.swing_pct,
                         source_title=source.title, source_url=source.url, source_date=source.date)  # fmt: skip
