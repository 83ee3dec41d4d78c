"""What a card and a whole server of it cost, as a range with its basis, never a dead end.

Three bases, best first: a distributor's published price for the whole machine (knowledge/servers.yaml quotes);
the catalog's dated card price plus the host of the part's server class; for parts the catalog has no price for,
a range spanning dated, sourced anchors (knowledge/price_estimates.yaml) plus the same host. Each result says
which basis it stands on, with the date and the sources, so an answer can label an estimate as one.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Text
from knowledge.catalog import Catalog
from knowledge.gpus import GPU
from knowledge.price_estimates import PriceEstimate, price_estimates
from knowledge.servers import server_data
from tools.cost.money import DEFAULT_USD_TO_CNY, Currency, check_exchange_rate, convert, normalize_currency
from tools.cost.price_age import DatedPrice, gpu_dates, machine_dates
from tools.recommend.configs import SERVER_GPUS, sold_as, sold_counts

Basis = Literal["quote", "catalog", "estimate"]


class PriceRange(BaseModel):
    """A price as a range (low = high when one figure stands behind it), with what it stands on."""

    low: float
    high: float
    currency: Currency
    basis: Basis = Field(
        description="'quote': a published whole-machine price; 'catalog': the catalog's card price; 'estimate': a range from anchors."
    )
    date: str = Field(description="The newest figure's date.")
    derivation: Text | None = Field(None, description="How the anchors make the range (estimates only).")
    sources: list[str] = Field(default_factory=list, description="Pages a reader can open, with their titles.")

    @property
    def mid(self) -> float:
        return (self.low + self.high) / 2


class ServerPriceRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(description="GPU name or id, e.g. 'A800', '910B', 'L20'.")
    gpus: int | None = Field(None, description="GPUs in the machine; default: the largest standard server of the part (8 where sold so).")
    currency: str = Field("CNY", description="USD or CNY.")
    usd_to_cny: float = Field(DEFAULT_USD_TO_CNY, description="Exchange rate for figures published in the other currency.")


class ServerPrice(BaseModel):
    gpu_id: str
    gpu_name: str
    gpus: int
    card: PriceRange | None = Field(None, description="One card; None when no price and no estimate exist.")
    host: float | None = Field(None, description="The machine without its GPUs (its server class), in `currency`.")
    host_label: Text | None = None
    host_date: str | None = None
    host_assumption: Text | None = Field(None, description="Why the host price is an assumption, when it is one (knowledge/servers.yaml).")
    whole: PriceRange | None = Field(None, description="The whole machine: the cards plus the host, or a published quote.")
    quote_what: Text | None = Field(None, description="What the published quote is for, when the whole price is one.")
    quote_title: str | None = None
    dated: list[DatedPrice] = Field(default_factory=list, description="Each dated figure the whole price stands on (card, host, quote), to age it.")


def _estimate_range(estimate: PriceEstimate, currency: Currency, usd_to_cny: float) -> PriceRange:
    values = [convert(a.amount * a.scale, a.currency, currency, usd_to_cny) for a in estimate.anchors]
    return PriceRange(low=round(min(values), 2), high=round(max(values), 2), currency=currency, basis="estimate", date=estimate.date,
                      derivation=estimate.derivation, sources=[f"{a.title} — {a.url} ({a.date})" for a in estimate.anchors])  # fmt: skip


def card_price(gpu: GPU, currency: Currency, usd_to_cny: float) -> PriceRange | None:
    """The catalog's dated card price; else the sourced estimate; else None."""
    if gpu.purchase_price is not None:
        amount = round(convert(gpu.purchase_price.amount, gpu.purchase_price.currency, currency, usd_to_cny), 2)
        return PriceRange(
            low=amount, high=amount, currency=currency, basis="catalog", date=gpu.purchase_price.date, sources=[gpu.purchase_price.cited]
        )
    estimate = price_estimates().for_gpu(gpu.id)
    return _estimate_range(estimate, currency, usd_to_cny) if estimate else None


def standard_count(gpu: GPU) -> int:
    """The GPUs of the part's largest standard machine: 8 for boards and PCIe servers, 1 for a desktop-only part."""
    counts = sold_counts(gpu, SERVER_GPUS)
    return counts[-1] if counts else 1


def estimate_server_price(request: ServerPriceRequest, catalog: Catalog) -> ServerPrice:
    """A card's price and a whole machine's, each a range with its basis; the host comes from the server class."""
    currency = normalize_currency(request.currency)
    rate = check_exchange_rate(request.usd_to_cny)
    gpu = catalog.gpu(request.gpu)
    count = request.gpus or standard_count(gpu)
    card = card_price(gpu, currency, rate)
    data = server_data()
    server = data.for_gpus(sold_as(gpu), gpu.segment, count)
    machines = math.ceil(count / server.holds) if server else 0
    host = round(server.price(currency, rate) * machines, 2) if server else None
    quote = data.default_quote(gpu, count, server)
    result = ServerPrice(gpu_id=gpu.id, gpu_name=gpu.name, gpus=count, card=card, host=host,
                         host_label=server.name if server else None, host_date=server.date if server else None,
                         host_assumption=server.assumption if server and quote is None else None)  # fmt: skip
    used = machine_dates(None, quote) if quote is not None else [*gpu_dates(gpu, card.date if card else None, False), *machine_dates(server, None, machines)]
    result = result.model_copy(update={"dated": [DatedPrice(what=what, date=date) for what, date in used]})
    if quote is not None:
        price = round(convert(quote.price, quote.currency, currency, rate), 2)
        whole = PriceRange(
            low=price, high=price, currency=currency, basis="quote", date=quote.date, sources=[f"{quote.source.title} — {quote.source.url}"]
        )
        return result.model_copy(update={"whole": whole, "quote_what": quote.what, "quote_title": quote.source.title})
    if card is None:
        return result
    extra = host or 0.0
    whole = card.model_copy(update={"low": round(card.low * count + extra, 2), "high": round(card.high * count + extra, 2)})
    return result.model_copy(update={"whole": whole})
