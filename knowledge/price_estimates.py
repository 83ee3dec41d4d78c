"""Ranged purchase-price estimates for parts without a catalog price, from dated and sourced anchors.

The figures and their wording live in ``price_estimates.yaml`` beside this file; ``price_estimates`` validates it
once and fails loudly (``CatalogError``) on a malformed row, an anchor without a page, or a GPU the catalog does
not know. The arithmetic that turns anchors into a range is in ``tools/recommend/price_estimate.py``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.bilingual import Text
from knowledge.catalog import CatalogError, read_yaml, shipped_gpu_ids, shipped_gpus
from knowledge.gpus import GPU
from knowledge.sources import DatedSource

DATA_FILE = Path(__file__).parent / "price_estimates.yaml"


class Anchor(DatedSource):
    """One published figure an estimate stands on: the page, its date, and what it says."""

    amount: float = Field(gt=0)
    scale: float = Field(1, gt=0, description="How many of the priced part make this one (a 910C is two 910B dies).")
    currency: Literal["USD", "CNY"]
    says: str = Field(min_length=3, description="What the page says that supports the figure.")


class PriceEstimate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    gpu: str
    scaled_by_rent: str | None = Field(
        None, description="The part the anchors price (h100-sxm): each anchor is scaled by this part's catalog rent ÷ that part's (rent_ratio)."
    )
    derivation: Text = Field(description="How the anchors make the range, in one line ({rent}, {base_rent}, {ratio}, {date} with scaled_by_rent).")
    anchors: tuple[Anchor, ...] = Field(min_length=1)

    @property
    def date(self) -> str:
        """The newest anchor's date: how current the estimate is."""
        return max(a.date for a in self.anchors)


class EstimateText(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    card_range: Text
    card_single: Text
    server_lead: Text
    card_lead: Text  # one card asked about ("what does one H100 cost?"): the card's price leads, the machine follows
    server_after: Text
    kinds: dict[Literal["quote", "catalog", "estimate"], Text]
    basis_cards: Text
    basis_quote: Text
    status: Text
    quote_advice: Text
    option_estimated: Text
    estimate_tag: Text
    no_price: Text
    no_price_rent: Text


class PriceEstimates(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    estimates: tuple[PriceEstimate, ...]
    text: EstimateText

    def for_gpu(self, gpu_id: str) -> PriceEstimate | None:
        return next((e for e in self.estimates if e.gpu == gpu_id), None)


class RentRatio(BaseModel):
    """One part's on-demand rent against another's, both from the GPU catalog's dated cloud prices."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scale: float = Field(gt=0)
    rent: float
    base_rent: float
    currency: Literal["USD", "CNY"]
    date: str = Field(description="The older of the two rents' dates.")


def rent_ratio(gpu: GPU, base: GPU) -> RentRatio:
    """``gpu``'s cloud price ÷ ``base``'s, the scale an estimate applies to ``base``'s card price. Both must be priced
    in one currency (a ratio across currencies would hide an exchange rate)."""
    rent, base_rent = gpu.cloud_price, base.cloud_price
    if rent is None or base_rent is None or rent.currency != base_rent.currency:
        raise CatalogError(f"rent ratio {gpu.id}:{base.id} needs both cloud prices in one currency in gpus.yaml")
    return RentRatio(scale=rent.amount / base_rent.amount, rent=rent.amount, base_rent=base_rent.amount, currency=rent.currency,
                     date=min(rent.date, base_rent.date))  # fmt: skip


def _scaled_by_rent(estimate: PriceEstimate, gpus: dict[str, GPU], path: Path) -> PriceEstimate:
    """An estimate whose anchors price another part, scaled by the two parts' rents and its derivation filled in."""
    if estimate.scaled_by_rent is None:
        return estimate
    if estimate.scaled_by_rent not in gpus:
        raise CatalogError(f"{path}: {estimate.gpu} is scaled by the rent of '{estimate.scaled_by_rent}', which the catalog does not have")
    ratio = rent_ratio(gpus[estimate.gpu], gpus[estimate.scaled_by_rent])
    sign = "$" if ratio.currency == "USD" else "¥"
    values = {"rent": f"{sign}{ratio.rent:g}", "base_rent": f"{sign}{ratio.base_rent:g}", "ratio": f"×{ratio.scale:.3f}", "date": ratio.date}
    derivation = Text(en=estimate.derivation.en.format(**values), zh=estimate.derivation.zh.format(**values))
    anchors = tuple(a.model_copy(update={"scale": a.scale * ratio.scale}) for a in estimate.anchors)
    return estimate.model_copy(update={"derivation": derivation, "anchors": anchors})


def load_price_estimates(path: Path = DATA_FILE, known_gpus: list[str] | None = None) -> PriceEstimates:
    try:
        data = PriceEstimates.model_validate(read_yaml(path))
    except ValidationError as exc:
        raise CatalogError(f"{path}: invalid price estimates:\n{exc}") from exc
    known = set(shipped_gpu_ids() if known_gpus is None else known_gpus)
    unknown = sorted(e.gpu for e in data.estimates if e.gpu not in known)
    if unknown:
        raise CatalogError(f"{path}: estimates for GPUs the catalog does not have: {unknown}")
    gpus = {g.id: g for g in shipped_gpus()}
    return data.model_copy(update={"estimates": tuple(_scaled_by_rent(e, gpus, path) for e in data.estimates)})


@lru_cache(maxsize=1)
def price_estimates() -> PriceEstimates:
    """The shipped estimates, loaded once."""
    return load_price_estimates()
