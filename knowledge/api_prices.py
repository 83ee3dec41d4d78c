"""Published API prices per million tokens, each dated and sourced (``api_prices.yaml`` beside this file).

Used to price what a user pays an API today against self-hosting the same traffic. A model without an entry has no
price here: the answer asks for the user's own price rather than guessing one."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.bilingual import Text
from knowledge.catalog import CatalogError, read_yaml
from knowledge.sources import DatedSource

DATA_FILE = Path(__file__).parent / "api_prices.yaml"


class ApiPrice(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    models: list[str] = Field(default_factory=list, description="Catalog models this price is for; empty for a closed model.")
    label: Text
    names: list[str] = Field(default_factory=list, description="Words a user names this API by, lower case.")
    input_per_m: float = Field(gt=0)
    output_per_m: float = Field(gt=0)
    currency: Literal["USD", "CNY"] = Field(description="The currency the page publishes; an answer in the other one converts and says so.")
    source: DatedSource


class OnePrice(BaseModel):
    """How a price said as one number is split: it is the input price, output tokens cost ``output_ratio`` times it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    output_ratio: float = Field(ge=1, description="Output price ÷ input price when no entry prices the API or model.")
    source: DatedSource


class ApiPrices(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    one_price: OnePrice
    prices: list[ApiPrice] = Field(min_length=1)

    def output_ratio(self, entry: ApiPrice | None) -> float:
        """Output price ÷ input price: the entry's own (the API named, or the model compared), else the default."""
        return entry.output_per_m / entry.input_per_m if entry is not None else self.one_price.output_ratio

    def for_model(self, model_id: str | None) -> ApiPrice | None:
        return next((p for p in self.prices if model_id and model_id in p.models), None)

    def named_in(self, text: str) -> ApiPrice | None:
        """The API a message names ("we call GPT-4o"), the longest name winning ("deepseek-reasoner" over "deepseek")."""
        folded = text.casefold()
        found = [(len(name), p) for p in self.prices for name in p.names if name in folded]
        return max(found, key=lambda pair: pair[0])[1] if found else None

    def by_id(self, price_id: str | None) -> ApiPrice | None:
        return next((p for p in self.prices if p.id == price_id), None)


@lru_cache(maxsize=1)
def api_prices() -> ApiPrices:
    try:
        return ApiPrices.model_validate(read_yaml(DATA_FILE))
    except ValidationError as error:
        raise CatalogError(f"{DATA_FILE.name}: {error}") from error
