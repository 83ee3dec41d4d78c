"""Reserved (committed) capacity or on-demand for the same use: which to buy, or a mix.

A reserved GPU is paid for every hour, used or not; an on-demand GPU only for the hours used. A reserved card is
cheaper only when it is busy more than reserved ÷ on-demand of its hours (the break-even utilisation). With the
GPU-hours used a month (and the peak count), the bill of each way: everything on demand, the peak reserved, and the
base load reserved with the bursts on demand. The base is the GPUs the user says are busy all the time, else the whole
GPUs the average use keeps busy, assumed to run around the clock (``base_stated`` tells which); a load that dips below
it makes the reserved part cost more than it shows.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.wording import shipped
from tools.checks import INPUT_NAMES, check_range
from tools.common import formula_fields
from tools.cost.money import Currency, normalize_currency
from tools.cost.tco_model import HOURS_PER_MONTH

COST_TEXT = shipped("cost_text.yaml")
Way = Literal["on_demand", "reserve_peak", "mix"]


class ReservationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reserved_per_gpu_hour: float = Field(description="Reserved/committed price per GPU-hour in `currency` (billed every hour).")
    on_demand_per_gpu_hour: float = Field(description="On-demand price per GPU-hour in `currency` (billed per hour used).")
    gpu_hours_per_month: float | None = Field(None, description="GPU-hours used a month (e.g. 300 a week ≈ 1,304 a month); none: break-even only.")
    peak_gpus: int | None = Field(None, description="Most GPUs in use at once (the fleet a full reservation would hold).")
    base_gpus: int | None = Field(None, description="GPUs busy all the time (the stated base load); none: the average use's whole GPUs.")
    currency: str = Field("USD", description="'USD' or 'CNY'; prices and results are in this currency.")


class ReservationOption(BaseModel):
    way: Way
    reserved_gpus: int = Field(description="GPUs reserved in this way (0: all on demand).")
    on_demand_gpu_hours: float = Field(description="GPU-hours a month bought on demand.")
    monthly: float = Field(description="The month's bill in `currency`.")
    formula: str
    formula_zh: str


class ReservationResult(BaseModel):
    break_even_utilisation_pct: float = Field(description="reserved ÷ on-demand: a reserved GPU pays off only if busy more than this share of hours.")
    break_even_formula: str
    break_even_formula_zh: str
    average_gpus: float | None = Field(None, description="GPU-hours a month ÷ 730: the GPUs the use keeps busy on average.")
    fleet_utilisation_pct: float | None = Field(None, description="The peak fleet's busy share: GPU-hours ÷ (peak × 730).")
    options: list[ReservationOption] = Field(description="Each way to buy the use, cheapest first (empty without the use).")
    best: Way | None = Field(None, description="The cheapest way, None without the use.")
    saving_vs_on_demand: float = Field(0, description="What the best way saves a month against all on demand.")
    most_reserved_that_pay: int | None = Field(None, description="The most GPUs whose reservation can pay off: GPU-hours ÷ (730 × break-even).")
    base_stated: bool = Field(False, description="The mix reserves the base load the user stated, not one derived from the average.")
    currency: Currency


def _money(value: float) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def reserved_or_on_demand(request: ReservationRequest) -> ReservationResult:
    currency = normalize_currency(request.currency)
    reserved = check_range(request.reserved_per_gpu_hour, *INPUT_NAMES.pair("reserved_price"), minimum=0.001, maximum=1e4, code="invalid_price")
    on_demand = check_range(request.on_demand_per_gpu_hour, *INPUT_NAMES.pair("on_demand_price"), minimum=0.001, maximum=1e4, code="invalid_price")
    hours = request.gpu_hours_per_month
    if hours is not None:
        hours = check_range(hours, *INPUT_NAMES.pair("gpu_hours_per_month"), minimum=1, maximum=1e8, code="invalid_gpu_hours")
    peak = request.peak_gpus
    if peak is not None:
        peak = int(check_range(peak, *INPUT_NAMES.pair("peak_gpus"), minimum=1, maximum=100_000, code="invalid_gpu_count"))
    share = reserved / on_demand
    pct = share * 100
    fixed = {"reserved": _money(reserved), "on_demand": _money(on_demand)}
    result = {"break_even_utilisation_pct": pct, "currency": currency,
              **{f"break_even_{key}": value for key, value in formula_fields(COST_TEXT.text("reservation.break_even", pct=f"{pct:.0f}", **fixed)).items()}}  # fmt: skip
    if hours is None:
        return ReservationResult(**result, options=[])
    average = hours / HOURS_PER_MONTH
    peak = max(peak or math.ceil(average), math.ceil(average))  # the peak holds at least the average load
    options = [ReservationOption(way="on_demand", reserved_gpus=0, on_demand_gpu_hours=hours, monthly=hours * on_demand,
                                 **formula_fields(COST_TEXT.text("reservation.on_demand", hours=f"{hours:,.0f}", **fixed))),
               ReservationOption(way="reserve_peak", reserved_gpus=peak, on_demand_gpu_hours=0, monthly=peak * HOURS_PER_MONTH * reserved,
                                 **formula_fields(COST_TEXT.text("reservation.reserve_peak", gpus=peak, **fixed)))]  # fmt: skip
    base = math.floor(average)
    if request.base_gpus is not None:  # the base said ("8 around the clock"): the GPUs the use keeps busy every hour
        base = int(check_range(request.base_gpus, *INPUT_NAMES.pair("base_gpus"), minimum=0, maximum=100_000, code="invalid_gpu_count"))
        base = min(base, math.floor(hours / HOURS_PER_MONTH))  # no more GPUs busy every hour than the hours used allow
    if 0 < base < peak:  # the GPUs the average use keeps busy reserved, the bursts above them on demand
        burst = hours - base * HOURS_PER_MONTH
        options.append(ReservationOption(way="mix", reserved_gpus=base, on_demand_gpu_hours=burst,
                                         monthly=base * HOURS_PER_MONTH * reserved + burst * on_demand,
                                         **formula_fields(COST_TEXT.text("reservation.mix", gpus=base, burst=f"{burst:,.0f}", **fixed))))  # fmt: skip
    options.sort(key=lambda option: option.monthly)
    on_demand_bill = next(o.monthly for o in options if o.way == "on_demand")
    return ReservationResult(
        **result, average_gpus=average, fleet_utilisation_pct=min(100.0, hours / (peak * HOURS_PER_MONTH) * 100), options=options,
        best=options[0].way, saving_vs_on_demand=on_demand_bill - options[0].monthly,
        most_reserved_that_pay=math.floor(hours / (HOURS_PER_MONTH * share)), base_stated=request.base_gpus is not None,
    )  # fmt: skip
