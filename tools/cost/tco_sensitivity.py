"""Which TCO assumptions matter: move each input ±20% (or between the bounds given for it, such as the service
lives the user might keep the servers) and rank by how much the answer moves.

The answer measured is the monthly advantage of owning (cloud bill − amortised owned cost), which
exists for every input, lifetime included, and does not depend on the horizon length.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, Field

from knowledge.bilingual import Text
from tools.cost.money import Currency, money
from tools.cost.tco_model import TcoInputs, TcoNumbers, evaluate

STEP = 0.2
TOP = 3

# field, English label, Chinese label, unit shown after the value (English, Chinese), (lowest, highest) allowed value
PERTURBED: list[tuple[str, str, str, tuple[str, str], tuple[float, float]]] = [
    ("server_price", "Server price", "服务器价格", ("", ""), (0, float("inf"))),
    ("lifetime_years", "Service life", "使用年限", (" yr", " 年"), (0.25, 15)),
    ("residual_value_pct", "Resale value", "残值", ("%", "%"), (0, 95)),
    ("utilisation_pct", "Utilisation", "利用率", ("%", "%"), (0, 100)),
    ("cloud_price_per_gpu_hour", "Cloud price per GPU-hour", "云上每卡时价格", ("", ""), (0, float("inf"))),
    ("cloud_discount_pct", "Cloud discount", "云上折扣", ("%", "%"), (0, 99)),
    ("electricity_price", "Electricity price", "电价", ("/kWh", "/kWh"), (0, float("inf"))),
    ("pue", "PUE", "PUE", ("", ""), (1, 3)),
    ("load_factor_pct", "Average power draw", "平均功耗", ("%", "%"), (0, 100)),
    ("colo_price_per_kw_month", "Colocation price", "机房托管费", ("/kW-month", "/kW·月"), (0, float("inf"))),
    ("maintenance_pct_per_year", "Maintenance", "维保费用", ("%/yr", "%/年"), (0, 100)),
    ("staff_cost_per_month", "Ops staff cost", "运维人力成本", ("/month", "/月"), (0, float("inf"))),
    ("network_overhead_pct", "Network/storage overhead", "网络/存储附加", ("%", "%"), (0, 200)),
]  # fmt: skip
MONEY_FIELDS = {"server_price", "cloud_price_per_gpu_hour", "electricity_price", "colo_price_per_kw_month", "staff_cost_per_month"}


class SensitivityDetail(BaseModel):
    key: str
    low_input: float
    high_input: float
    monthly_advantage_low: float = Field(description="Cloud cost minus amortised owned cost per month with the input lowered.")
    monthly_advantage_high: float = Field(description="The same with the input raised.")
    swing: float = Field(description="|advantage_high − advantage_low|: how much this input moves the answer.")


def _advantage(numbers: TcoNumbers) -> float:
    return numbers.cloud_monthly - numbers.own_monthly


def _month(numbers: TcoNumbers) -> str:
    return "never" if numbers.break_even_month is None else str(numbers.break_even_month)


def _shown(key: str, value: float, currency: Currency) -> str:
    return money(value, currency) if key in MONEY_FIELDS else f"{value:.3g}"


def rank_sensitivities(
    inputs: TcoInputs, currency: Currency, bounds: dict[str, tuple[float, float]] | None = None
) -> tuple[list[Text], list[SensitivityDetail]]:
    """One bilingual line for each of the inputs that move the owning advantage most, and the numbers.

    Inputs that move it by exactly the same figures (utilisation and the cloud price both scale the rent
    the owned GPUs avoid) share one line that says so, rather than two lines that read like a repeat."""
    base = evaluate(inputs)
    found: list[tuple[SensitivityDetail, str, str, tuple[float, float], str, str]] = []
    for key, en, zh, unit, (lowest, highest) in PERTURBED:
        value = getattr(inputs, key)
        low_value, high_value = (bounds or {}).get(key) or (max(lowest, value * (1 - STEP)), min(highest, value * (1 + STEP)))
        low, high = evaluate(replace(inputs, **{key: low_value})), evaluate(replace(inputs, **{key: high_value}))
        swing = abs(_advantage(high) - _advantage(low))
        if swing <= 1e-9 * max(1.0, abs(_advantage(base))):
            continue  # an input at zero (no staff, no discount) cannot move the answer by ±20%
        detail = SensitivityDetail(
            key=key, low_input=low_value, high_input=high_value,
            monthly_advantage_low=_advantage(low), monthly_advantage_high=_advantage(high), swing=swing,
        )  # fmt: skip
        low_shown, high_shown = _shown(key, low_value, currency), _shown(key, high_value, currency)
        span_en, span_zh = f"{en} {low_shown}{unit[0]} → {high_shown}{unit[0]}", f"{zh} {low_shown}{unit[1]} → {high_shown}{unit[1]}"
        found.append((detail, span_en, span_zh, (round(_advantage(low), 2), round(_advantage(high), 2)), _month(low), _month(high)))
    found.sort(key=lambda row: row[0].swing, reverse=True)
    groups: dict[tuple[float, float], list] = {}
    for row in found:
        groups.setdefault(row[3], []).append(row)
    lines, details = [], []
    for rows in list(groups.values())[:TOP]:
        detail, _, _, _, month_low, month_high = rows[0]
        adv = f"{money(detail.monthly_advantage_low, currency)} → {money(detail.monthly_advantage_high, currency)}"
        now = money(_advantage(base), currency)
        shared_en = " (the same figures for each: both scale the rent the owned GPUs avoid)" if len(rows) > 1 else ""
        shared_zh = "（两者数字相同：都按比例改变自建所省下的租金）" if len(rows) > 1 else ""
        lines.append(Text(
            en=f"{' or '.join(r[1] for r in rows)}{shared_en}: owning's monthly advantage {adv} (now {now}); "
               f"break-even month {month_low} → {month_high}.",
            zh=f"{'，或'.join(r[2] for r in rows)}{shared_zh}：自建相对租用的每月净节省 {adv}（当前 {now}）；"
               f"回本月份 {month_low.replace('never', '不回本')} → {month_high.replace('never', '不回本')}。",
        ))  # fmt: skip
        details += [r[0] for r in rows]
    return lines, details
