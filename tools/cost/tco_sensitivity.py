"""Which TCO assumptions matter: move each input ±20% (or between the bounds given for it, such as the service
lives the user might keep the servers) and rank by how much the answer moves.

The answer measured is the monthly advantage of owning (cloud bill − amortised owned cost), which
exists for every input, lifetime included, and does not depend on the horizon length.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, Field

from knowledge.bilingual import Text
from knowledge.wording import shipped
from tools.cost.money import Currency, money
from tools.cost.tco_model import TcoInputs, TcoNumbers, evaluate

COST_TEXT = shipped("cost_text.yaml")

STEP = 0.2
TOP = 3

# field, English label, Chinese label, unit shown after the value (English, Chinese), (lowest, highest) allowed value
PERTURBED: list[tuple[str, str, str, tuple[str, str], tuple[float, float]]] = [
    (key, row["label"]["en"], row["label"]["zh"], tuple(row["unit"]), tuple(row["range"]))
    for key, row in COST_TEXT.entry("sensitivity.inputs").items()
]
MONTHS_UNIT = {key: tuple(row["months_unit"]) for key, row in COST_TEXT.entry("sensitivity.inputs").items() if "months_unit" in row}
MONTHS_PER_YEAR = 12
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


def _month(numbers: TcoNumbers) -> Text:
    month = numbers.break_even_month
    return COST_TEXT.text("sensitivity.never") if month is None else Text(en=str(month), zh=str(month))


def _shown(key: str, value: float, currency: Currency) -> str:
    return money(value, currency) if key in MONEY_FIELDS else f"{value:.3g}"


def _with_unit(key: str, value: float, currency: Currency, unit: tuple[str, str]) -> tuple[str, str]:
    """The value with its unit in each language; a span of years under one is said in months (cost_text.yaml months_unit)."""
    if key in MONTHS_UNIT and value < 1:
        months = f"{value * MONTHS_PER_YEAR:.3g}"
        return months + MONTHS_UNIT[key][0], months + MONTHS_UNIT[key][1]
    shown = _shown(key, value, currency)
    return shown + unit[0], shown + unit[1]


def rank_sensitivities(
    inputs: TcoInputs, currency: Currency, bounds: dict[str, tuple[float, float]] | None = None
) -> tuple[list[Text], list[SensitivityDetail]]:
    """One bilingual line for each of the inputs that move the owning advantage most, and the numbers.

    Inputs that move it by exactly the same figures (utilisation and the cloud price both scale the rent
    the owned GPUs avoid) share one line that says so, rather than two lines that read like a repeat."""
    base = evaluate(inputs)
    found: list[tuple[SensitivityDetail, str, str, tuple[float, float], Text, Text]] = []
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
        (low_en, low_zh), (high_en, high_zh) = _with_unit(key, low_value, currency, unit), _with_unit(key, high_value, currency, unit)
        span_en, span_zh = f"{en} {low_en} → {high_en}", f"{zh} {low_zh} → {high_zh}"
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
        joiner_en, joiner_zh = COST_TEXT.pair("sensitivity.or")
        spans = Text(en=joiner_en.join(r[1] for r in rows), zh=joiner_zh.join(r[2] for r in rows))
        shared = COST_TEXT.text("sensitivity.shared") if len(rows) > 1 else Text(en="", zh="")
        lines.append(COST_TEXT.text("sensitivity.line", inputs=spans, shared=shared, advantage=adv, now=now, month_low=month_low, month_high=month_high))
        details += [r[0] for r in rows]
    return lines, details
