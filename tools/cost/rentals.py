"""Renting one setup or another: what each costs per month and over the period, at the hours it runs.

For "L4 at $0.80/hr or A10G at $1.01/hr for 18 months, 24/7?": no purchase is involved, so the
rent-or-buy model (which needs a server price) does not apply; each option's bill is
GPUs × price per GPU-hour × (1 − discount) × hours used.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from knowledge.wording import shipped
from tools.checks import INPUT_NAMES, check_range
from tools.common import formula_fields
from tools.cost.money import Currency, normalize_currency
from tools.cost.tco_model import HOURS_PER_MONTH

COST_TEXT = shipped("cost_text.yaml")

MAX_OPTIONS = 8


class RentalOption(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="What is rented, as the user named it (e.g. 'L4', '2× A100 80GB').", max_length=80)
    gpus: int = Field(1, description="GPUs rented in this option (1–4096).")
    price_per_gpu_hour: float = Field(description="Rental price per GPU-hour in `currency`.")


class RentalRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    options: list[RentalOption] = Field(description="Two to eight rental options to compare.")
    months: float = Field(12, description="How long the rental runs, in months (0.1–120).")
    utilisation_pct: float = Field(100, description="Share of the hours the GPUs are rented, 1–100 (24/7 is 100).")
    discount_pct: float = Field(0, description="Discount off every option's price, % (0–99), e.g. for a commitment.")
    currency: str = Field("USD", description="'USD' or 'CNY'; prices and results are in this currency.")


class RentalRow(BaseModel):
    name: str
    gpus: int
    price_per_gpu_hour: float
    monthly: float = Field(description="Cost per month in `currency`.")
    total: float = Field(description="Cost over the whole period in `currency`.")
    formula: str
    formula_zh: str


class RentalResult(BaseModel):
    rows: list[RentalRow] = Field(description="One row per option, in the order given.")
    cheapest: str = Field(description="Name of the cheapest option over the period.")
    saving_vs_next: float = Field(description="How much the cheapest saves over the period against the next cheapest, in `currency`.")
    hours_per_month: float
    currency: Currency


def compare_rentals(request: RentalRequest) -> RentalResult:
    currency = normalize_currency(request.currency)
    check_range(len(request.options), *INPUT_NAMES.pair("number_of_options"), minimum=2, maximum=MAX_OPTIONS, code="invalid_options")
    months = check_range(request.months, *INPUT_NAMES.pair("months"), minimum=0.1, maximum=120, code="invalid_months")
    share = check_range(request.utilisation_pct, *INPUT_NAMES.pair("utilisation"), minimum=1, maximum=100, code="invalid_utilisation")
    discount = check_range(request.discount_pct, *INPUT_NAMES.pair("discount"), minimum=0, maximum=99, code="invalid_discount")
    hours = HOURS_PER_MONTH * share / 100
    rows = []
    for option in request.options:
        gpus = int(check_range(option.gpus, *INPUT_NAMES.pair("cards"), minimum=1, maximum=4096, code="invalid_gpu_count"))
        price = check_range(option.price_per_gpu_hour, *INPUT_NAMES.pair("price_per_gpu_hour"), minimum=0.001, maximum=1e4, code="invalid_price")
        monthly = gpus * price * (1 - discount / 100) * hours
        off = f" × (1 − {discount:g}%)" if discount else ""
        rows.append(
            RentalRow(
                name=option.name, gpus=gpus, price_per_gpu_hour=price, monthly=monthly, total=monthly * months,
                **formula_fields(COST_TEXT.text("rentals.formula", gpus=gpus, price=f"{price:g}", off=off, hours=f"{hours:g}", months=f"{months:g}")),
            )
        )  # fmt: skip
    ranked = sorted(rows, key=lambda row: row.total)
    return RentalResult(
        rows=rows, cheapest=ranked[0].name, saving_vs_next=ranked[1].total - ranked[0].total, hours_per_month=hours, currency=currency
    )
