"""The rent-vs-buy arithmetic on fully resolved inputs (see ``tools.cost.tco`` for the model in words)."""

from __future__ import annotations

import math
from dataclasses import dataclass

HOURS_PER_MONTH = 730  # 8760 / 12


@dataclass(frozen=True)
class TcoInputs:
    """Every input resolved to a number in one currency: what the arithmetic and the perturbations use."""

    servers: int
    gpus_per_server: int
    server_price: float
    network_overhead_pct: float
    lifetime_years: float
    residual_value_pct: float
    server_max_kw: float
    load_factor_pct: float
    pue: float
    electricity_price: float
    colo_price_per_kw_month: float
    colo_includes_power: bool
    maintenance_pct_per_year: float
    staff_cost_per_month: float
    utilisation_pct: float
    cloud_price_per_gpu_hour: float
    cloud_discount_pct: float
    # Share of the month's hours the cloud bills: None = the hours used (on demand). Reserved or committed
    # capacity, and a monthly bill the user pays, are billed for every hour whether used or not (100).
    cloud_billed_pct: float | None = None

    @property
    def billed_pct(self) -> float:
        return self.utilisation_pct if self.cloud_billed_pct is None else self.cloud_billed_pct


@dataclass(frozen=True)
class TcoNumbers:
    gpus: int
    months: int
    capex: float
    residual: float
    depreciation: float
    energy: float
    colo: float
    maintenance: float
    staff: float
    opex: float
    own_monthly: float
    gpu_hours: float
    cloud_rate: float
    cloud_monthly: float
    payback: float | None
    break_even_month: int | None
    break_even_utilisation_pct: float


def evaluate(p: TcoInputs) -> TcoNumbers:
    """The monthly arithmetic of the model in the module docstring."""
    gpus = p.servers * p.gpus_per_server
    months = max(1, round(p.lifetime_years * 12))
    capex = p.servers * p.server_price * (1 + p.network_overhead_pct / 100)
    residual = capex * p.residual_value_pct / 100
    depreciation = (capex - residual) / months
    energy = 0.0 if p.colo_includes_power else (
        p.servers * p.server_max_kw * p.load_factor_pct / 100 * p.pue * HOURS_PER_MONTH * p.electricity_price
    )
    colo = p.servers * p.server_max_kw * p.colo_price_per_kw_month
    maintenance = capex * p.maintenance_pct_per_year / 100 / 12
    opex = energy + colo + maintenance + p.staff_cost_per_month
    gpu_hours = gpus * HOURS_PER_MONTH * p.utilisation_pct / 100
    cloud_rate = p.cloud_price_per_gpu_hour * (1 - p.cloud_discount_pct / 100)
    cloud_monthly = gpus * HOURS_PER_MONTH * p.billed_pct / 100 * cloud_rate
    saving = cloud_monthly - opex
    payback = capex / saving if saving > 0 else None
    # The small tolerance keeps an exact 8.0 from becoming month 9 through float noise.
    month = math.ceil(payback - 1e-9) if payback is not None else None
    return TcoNumbers(
        gpus=gpus, months=months, capex=capex, residual=residual, depreciation=depreciation, energy=energy,
        colo=colo, maintenance=maintenance, staff=p.staff_cost_per_month, opex=opex,
        own_monthly=depreciation + opex, gpu_hours=gpu_hours, cloud_rate=cloud_rate, cloud_monthly=cloud_monthly,
        payback=payback, break_even_month=month if month is not None and month <= months else None,
        break_even_utilisation_pct=(depreciation + opex) / (gpus * HOURS_PER_MONTH * cloud_rate) * 100,
    )  # fmt: skip

