"""Dated default inputs for the rent-vs-buy (TCO) calculator, each with where it comes from.

Figures are from ../shared/reference/troubleshooting-and-tco.md §2.2–2.3 and gpu-specs-notes.md
§3–5 (2025–26 snapshots). They are starting points: every one can be overridden per request.
Money defaults are stored in USD and converted; electricity has its own CNY default because
Chinese industrial tariffs are not US tariffs times an exchange rate.
"""

from __future__ import annotations

from typing import NamedTuple


class Default(NamedTuple):
    value: float
    unit: str
    source: str


# Node power ≈ 1.8 × its GPU boards: DGX H100 is rated 10.2 kW max for 8 × 700 W = 5.6 kW of GPUs.
SERVER_POWER_PER_GPU_POWER = 1.8
# GPUs are ~80% of an 8-GPU server's price: HGX H100 server typ. $285k vs $25–30k per H100 (8 × 27.5k = 220k).
SERVER_PRICE_PER_GPU_PRICE = 1.25

DEFAULTS: dict[str, Default] = {
    "gpus_per_server": Default(8, "GPUs", "HGX/DGX-style 8-GPU servers are the usual unit (reference §2.2)"),
    "servers": Default(1, "servers", "one server unless you say otherwise"),
    "network_overhead_pct": Default(15, "%", "network, cabling, transceivers, storage add 10–15% of capex (reference §2.2, 2025–26)"),
    "lifetime_years": Default(4, "years", "4–5 years is common; 3 aggressive, 6 hyperscaler book life (reference §2.2)"),
    "residual_value_pct": Default(20, "%", "resale 20–40% at the end of primary service, low end taken (reference §2.2)"),
    "load_factor_pct": Default(75, "%", "DGX H100 draws 6.5–8.5 kW of its 10.2 kW max under load: 7.5/10.2 ≈ 75% (reference §2.2)"),
    "pue": Default(1.3, "", "plan with PUE 1.2–1.4; hyperscale 1.1–1.15, enterprise colo 1.5–1.8 (Uptime Institute 2024, reference §2.2)"),
    "electricity_price_usd": Default(0.10, "USD/kWh", "US industrial $0.06–0.12/kWh, 2025 (reference §2.2)"),
    "electricity_price_cny": Default(0.63, "CNY/kWh", "China average industrial ≈ ¥0.63/kWh (US$0.088, 2024, China Briefing); provinces ¥0.45–0.90 (reference §2.2)"),
    "colo_price_per_kw_month_usd": Default(180, "USD/kW-month", "GPU colocation $130–250 per kW-month on contracted (max) kW, 2025–26 (reference §2.2)"),
    "maintenance_pct_per_year": Default(8, "%/year", "support/maintenance ~8–10%/yr of hardware (reference §2.2–2.3)"),
    "staff_cost_per_month_usd": Default(0, "USD/month", "not included unless given; fleets of 4–8 servers need 0.5–1.5 FTE (reference §2.2)"),
    "utilisation_pct": Default(70, "%", "crossover is usually quoted at 50–70%; training clusters 40–50%, inference 60–70% (reference §2.2)"),
    "cloud_discount_pct": Default(0, "%", "on-demand; reserved 1–3 yr is 30–60% off, spot 50–90% off (reference §2.2)"),
}  # fmt: skip

SERVER_PRICE_SOURCE = (
    f"catalog price per GPU × GPUs × {SERVER_PRICE_PER_GPU_PRICE} (GPUs are ~80% of an 8-GPU server: "
    "HGX H100 server typ. $285k vs $25–30k per GPU, gpu-specs-notes §4, 2026)"
)
SERVER_POWER_SOURCE = (
    f"GPU TDP × GPUs × {SERVER_POWER_PER_GPU_POWER} (DGX H100: 10.2 kW max for 8 × 700 W, gpu-specs-notes §5)"
)
