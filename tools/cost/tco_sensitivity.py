"""Which TCO assumptions matter: move each input ±20% and rank by how much the answer moves.

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


def rank_sensitivities(inputs: TcoInputs, currency: Currency) -> tuple[list[Text], list[SensitivityDetail]]:
    """One bilingual line for each of the inputs that move the owning advantage most, and the numbers."""
    base = evaluate(inputs)
    found: list[tuple[SensitivityDetail, Text]] = []
    for key, en, zh, unit, (lowest, highest) in PERTURBED:
        value = getattr(inputs, key)
        low_value, high_value = max(lowest, value * (1 - STEP)), min(highest, value * (1 + STEP))
        low, high = evaluate(replace(inputs, **{key: low_value})), evaluate(replace(inputs, **{key: high_value}))
        swing = abs(_advantage(high) - _advantage(low))
        if swing <= 1e-9 * max(1.0, abs(_advantage(base))):
            continue  # an input at zero (no staff, no discount) cannot move the answer by ±20%
        detail = SensitivityDetail(
            key=key, low_input=low_value, high_input=high_value,
            monthly_advantage_low=_advantage(low), monthly_advantage_high=_advantage(high), swing=swing,
        )  # fmt: skip
        low_shown, high_shown = _shown(key, low_value, currency), _shown(key, high_value, currency)
        span, span_zh = f"{low_shown}{unit[0]} → {high_shown}{unit[0]}", f"{low_shown}{unit[1]} → {high_shown}{unit[1]}"
        adv = f"{money(_advantage(low), currency)} → {money(_advantage(high), currency)}"
        text = Text(
            en=f"{en} {span}: owning's monthly advantage {adv} (now {money(_advantage(base), currency)}); "
               f"break-even month {_month(low)} → {_month(high)}.",
            zh=f"{zh} {span_zh}：自建相对租用的每月净节省 {adv}（当前 {money(_advantage(base), currency)}）；"
               f"回本月份 {_month(low).replace('never', '不回本')} → {_month(high).replace('never', '不回本')}。",
        )  # fmt: skip
        found.append((detail, text))
    found.sort(key=lambda pair: pair[0].swing, reverse=True)
    top = found[:TOP]
    return [text for _, text in top], [detail for detail, _ in top]
