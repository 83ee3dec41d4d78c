"""Payback of a purchase against each cloud tier the buyer could rent from, a quoted payback checked against
them, and the dated prices that are older than six months.

Payback months = purchase ÷ (rent avoided − owning's monthly running cost), where the rent avoided is the
GPU-hours actually used per month × the tier's rate. A claim ("pays back in 8 months") holds against a tier at
the utilisation where that payback is reached: (purchase ÷ months + running cost) ÷ (GPUs × 730 h × rate).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from pydantic import BaseModel, Field

from knowledge.bilingual import Text
from knowledge.clouds import TIER_NAMES, CloudRate
from knowledge.gpus import GPU
from knowledge.wording import shipped
from tools.cost.money import Currency, convert
from tools.cost.price_age import StalePrice, is_stale, stale_among
from tools.cost.tco_model import HOURS_PER_MONTH, TcoInputs, TcoNumbers

COST_TEXT = shipped("cost_text.yaml")

# peer-to-peer listings are single machines without a capacity promise: no fleet is rented there instead of bought
NOT_FOR_PAYBACK = {"marketplace"}
# Committed capacity is paid for every hour of the term, used or not, as a lease is: its rent does not shrink with use.
EVERY_HOUR_TIERS = {"hyperscaler_1yr", "hyperscaler_3yr"}
CLAIM_SLACK = 1.1  # "~8 months" is met by 8.8: a quoted payback is a round figure, not a promise to the day


class TierPayback(BaseModel):
    tier: str
    tier_name: Text
    offer: Text
    price_per_gpu_hour: float = Field(description="The tier's rate in the answer's currency.")
    quoted_price: float
    quoted_currency: Currency
    date: str
    source_url: str | None
    source_title: str | None
    derived: bool
    basis: str
    company: bool = Field(description="True when the rate is the company's own (prices file).")
    stale: bool = Field(description="Older than 6 months on `today`.")
    monthly_rent_avoided: float = Field(description="GPU-hours used per month × the rate; every hour for a lease or a commitment.")
    billed_every_hour: bool = Field(False, description="A lease or a 1–3-year commitment: paid for every hour, so utilisation does not change it.")
    payback_months: float | None = Field(description="capex / (rent avoided − owned opex) at the utilisation used; None = never.")
    payback_months_full_use: float | None = Field(description="The same at 100% utilisation.")
    utilisation_for_claim_pct: float | None = Field(
        None, description="Utilisation at which owning pays back within the claimed months against this tier (> 100: not reachable)."
    )


class ClaimCheck(BaseModel):
    claimed_months: float
    holds_at_your_use: bool = Field(description="Some tier pays back within the claim (+10%) at the utilisation used.")
    holds_at_full_use: bool = Field(description="Some tier pays back within the claim (+10%) at 100% utilisation.")
    best_tier: str | None = Field(description="The tier that pays back fastest at full use.")
    utilisation_pct: float





class TierRatio(BaseModel):
    tier: str
    tier_name: Text
    ratio: float = Field(description="Rent of the GPU-hours used at this tier ÷ owning's monthly cost (purchase amortised).")
    utilisation_for_claim_pct: float | None = Field(description="Use at which this tier reaches the claimed ratio (None: billed every hour, use does not move it).")


class RatioCheck(BaseModel):
    """A quoted "cloud costs N× owning", checked against each tier at the utilisation used."""

    claimed_ratio: float
    holds_at_your_use: bool = Field(description="Some tier's rent is at least the claimed multiple of owning's cost (−10%).")
    tiers: list[TierRatio]


def ratio_check(claimed: float | None, rows: list[TierPayback], own_monthly: float, gpus: int) -> RatioCheck | None:
    """Renting the hours used at each tier over owning's amortised monthly cost, against a claimed multiple; for a
    tier billed by the hour, the use at which it would reach the claim: claim × own ÷ (GPUs × 730 h × rate)."""
    if claimed is None or not rows or own_monthly <= 0:
        return None
    tiers = [TierRatio(tier=row.tier, tier_name=row.tier_name, ratio=row.monthly_rent_avoided / own_monthly,
                       utilisation_for_claim_pct=None if row.billed_every_hour else claimed * own_monthly / (gpus * HOURS_PER_MONTH * row.price_per_gpu_hour) * 100)
             for row in rows]  # fmt: skip
    return RatioCheck(claimed_ratio=claimed, holds_at_your_use=any(t.ratio * CLAIM_SLACK >= claimed for t in tiers), tiers=tiers)


def _payback(capex: float, opex: float, rent: float) -> float | None:
    return capex / (rent - opex) if rent > opex else None


def tier_paybacks(rates: list[CloudRate], inputs: TcoInputs, n: TcoNumbers, claimed: float | None, usd_to_cny: float, currency: Currency,
                  today: dt.date | None, china: bool) -> list[TierPayback]:
    """Payback of the purchase against each tier the user could rent from: China tiers only for a China buyer."""
    rows = []
    used_share = inputs.utilisation_pct / 100
    for rate in rates:
        if (rate.tier == "china" and not china) or rate.tier in NOT_FOR_PAYBACK:
            continue
        price = convert(rate.price, rate.currency, currency, usd_to_cny)
        full = n.gpus * HOURS_PER_MONTH * price
        every_hour = rate.billing == "lease" or rate.tier in EVERY_HOUR_TIERS
        share = 1.0 if every_hour else used_share
        needed = None
        if claimed is not None:
            needed = (n.capex / claimed + n.opex) / full * 100
            if every_hour:  # use changes nothing: the claim holds at any use or at none
                needed = 0.0 if needed <= 100 else None
        rows.append(TierPayback(
            tier=rate.tier, tier_name=Text(en=TIER_NAMES[rate.tier][0], zh=TIER_NAMES[rate.tier][1]), offer=Text(en=rate.offer, zh=rate.offer_zh or rate.offer),
            price_per_gpu_hour=price, quoted_price=rate.price, quoted_currency=rate.currency, date=rate.date,
            source_url=rate.source.url if rate.source else None, source_title=rate.source.title if rate.source else rate.quoted_by or None,
            derived=rate.derived, basis=rate.basis, company=bool(rate.overridden_by), stale=is_stale(rate.date, today),
            monthly_rent_avoided=full * share, payback_months=_payback(n.capex, n.opex, full * share), billed_every_hour=every_hour,
            payback_months_full_use=_payback(n.capex, n.opex, full), utilisation_for_claim_pct=needed,
        ))  # fmt: skip
    if china:  # a China buyer's own market first
        rows.sort(key=lambda row: row.tier != "china")
    return rows


def claim_check(claimed: float | None, rows: list[TierPayback], utilisation: float) -> ClaimCheck | None:
    if claimed is None or not rows:
        return None
    slack = claimed * CLAIM_SLACK

    def within(months: float | None) -> bool:
        return months is not None and months <= slack

    fastest = min((row for row in rows if row.payback_months_full_use is not None), key=lambda row: row.payback_months_full_use, default=None)
    return ClaimCheck(
        claimed_months=claimed, holds_at_your_use=any(within(row.payback_months) for row in rows),
        holds_at_full_use=any(within(row.payback_months_full_use) for row in rows),
        best_tier=fastest.tier if fastest else None, utilisation_pct=utilisation,
    )  # fmt: skip


def stale_prices(gpu: GPU | None, defaulted_price: bool, defaulted_cloud: bool, rows: list[TierPayback], today: dt.date | None,
                 running: Sequence[tuple[Text, str]] = ()) -> list[StalePrice]:
    """Every dated price the answer leans on that is older than 6 months on ``today``; ``running`` are the other dated
    defaults it took: the electricity and colocation prices (a tariff ages like a rent) and the machine around the cards."""
    dated: list[tuple[Text, str]] = list(running)
    if gpu is not None and defaulted_price and gpu.purchase_price is not None:
        dated.append((COST_TEXT.text("prices.purchase", gpu=gpu.name), gpu.purchase_price.date))
    if gpu is not None and defaulted_cloud and gpu.cloud_price is not None:
        dated.append((COST_TEXT.text("prices.cloud", gpu=gpu.name), gpu.cloud_price.date))
    dated += [(Text(en=f"{row.tier_name.en}: {row.offer.en}", zh=f"{row.tier_name.zh}：{row.offer.zh}"), row.date) for row in rows]
    return stale_among(dated, today)
