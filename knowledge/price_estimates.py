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
from knowledge.catalog import CatalogError, read_yaml, shipped_gpu_ids
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
    derivation: Text = Field(description="How the anchors make the range, in one line.")
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


def load_price_estimates(path: Path = DATA_FILE, known_gpus: list[str] | None = None) -> PriceEstimates:
    try:
        data = PriceEstimates.model_validate(read_yaml(path))
    except ValidationError as exc:
        raise CatalogError(f"{path}: invalid price estimates:\n{exc}") from exc
    known = set(shipped_gpu_ids() if known_gpus is None else known_gpus)
    unknown = sorted(e.gpu for e in data.estimates if e.gpu not in known)
    if unknown:
        raise CatalogError(f"{path}: estimates for GPUs the catalog does not have: {unknown}")
    return data


@lru_cache(maxsize=1)
def price_estimates() -> PriceEstimates:
    """The shipped estimates, loaded once."""
    return load_price_estimates()
