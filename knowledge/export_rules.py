"""Mainland-China status of an accelerator, derived from ECCN 3A090 and dated licensing events.

The rules and events are data (export_rules.yaml); ``china_rule`` is the pure function that applies
them. It sits in ``knowledge`` because every catalog row carries its status from load time and the
layers import downwards only; ``tools.export_control`` exposes it as a tool with an "as of" date.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

ChinaStatus = Literal["available", "export-controlled", "china-variant", "second-hand", "licensed", "domestic", "not-sold"]
RULES_PATH = Path(__file__).parent / "export_rules.yaml"


class RuleText(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: ChinaStatus
    label_en: str = Field(description="A few words naming the rule, for lists that group parts by it.")
    label_zh: str
    en: str
    zh: str


class Thresholds(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a1_tpp: float
    a2_tpp: float
    a2_pd: float
    b1_tpp: tuple[float, float]
    b1_pd: tuple[float, float]
    b2_tpp: float
    b2_pd: tuple[float, float]


class ExportEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    date: date
    gpus: list[str] = Field(min_length=1)
    status: ChinaStatus
    label_en: str
    label_zh: str
    en: str
    zh: str
    source: str = Field(min_length=10)


class ExportRules(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule_source: str
    rule_date: date
    bits: dict[str, int]
    thresholds: Thresholds
    domestic_vendors: list[str]
    rules: dict[str, RuleText]
    event_text: dict[str, str] = Field(description="'en'/'zh' templates joining an event's sentence and the overridden rule.")
    events: list[ExportEvent]


class ChinaRule(BaseModel):
    """Which rule decides a part's China status, with the figures it was decided on."""

    status: ChinaStatus
    rule: str = Field(description="'a1', 'a2', 'b', 'consumer', 'below', 'domestic', 'unknown_density' or an event id.")
    tpp: float | None = Field(None, description="Total processing performance: dense TFLOPS × bit length, best precision.")
    performance_density: float | None = Field(None, description="TPP per mm² of die, where the die area is known.")
    label_en: str
    label_zh: str
    en: str
    zh: str
    date: date
    source: str


@lru_cache(maxsize=1)
def load_export_rules(path: Path = RULES_PATH) -> ExportRules:
    return ExportRules.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def total_processing_performance(tflops: dict[str, float | None], bits: dict[str, int]) -> float | None:
    """The highest dense TFLOPS × bit length over the precisions the part supports."""
    scores = [value * bits[name] for name, value in tflops.items() if value and name in bits]
    return max(scores) if scores else None


def _within(value: float, bounds: tuple[float, float]) -> bool:
    return bounds[0] <= value < bounds[1]


def threshold_rule(tpp: float | None, pd: float | None, datacenter: bool, t: Thresholds) -> str:
    """The 3A090 paragraph that applies, or 'consumer'/'below' when none does."""
    if tpp is None or tpp < min(t.a2_tpp, t.b2_tpp):
        return "below"
    if tpp >= t.a1_tpp:
        return "a1"
    if not datacenter:
        return "consumer"
    if pd is None:
        return "unknown_density"
    if pd >= t.a2_pd and tpp >= t.a2_tpp:
        return "a2"
    if (_within(tpp, t.b1_tpp) and _within(pd, t.b1_pd)) or (tpp >= t.b2_tpp and _within(pd, t.b2_pd)):
        return "b"
    return "below"


def _figure(value: float | None, digits: int) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def china_rule(
    gpu_id: str,
    vendor: str,
    datacenter: bool,
    tflops: dict[str, float | None],
    die_area_mm2: float | None,
    rules: ExportRules,
    as_of: date | None = None,
) -> ChinaRule:
    """The part's status in mainland China on ``as_of`` (default: after every known event)."""
    tpp = total_processing_performance(tflops, rules.bits)
    pd = round(tpp / die_area_mm2, 2) if tpp and die_area_mm2 else None
    key = "domestic" if vendor in rules.domestic_vendors else threshold_rule(tpp, pd, datacenter, rules.thresholds)
    text = rules.rules[key]
    fill = {"tpp": _figure(tpp, 0), "pd": _figure(pd, 2)}
    derived = ChinaRule(status=text.status, rule=key, tpp=tpp, performance_density=pd, label_en=text.label_en,
                        label_zh=text.label_zh, en=text.en.format(**fill),
                        zh=text.zh.format(**fill), date=rules.rule_date, source=rules.rule_source)  # fmt: skip
    applicable = sorted((e for e in rules.events if gpu_id in e.gpus and (as_of is None or e.date <= as_of)), key=lambda e: e.date)
    if not applicable:
        return derived
    latest = applicable[-1]  # the most recent event decides; the derived rule is kept as the reason behind it
    return ChinaRule(status=latest.status, rule=latest.id, tpp=tpp, performance_density=pd, label_en=latest.label_en, label_zh=latest.label_zh,
                     en=rules.event_text["en"].format(event=latest.en, reason=derived.en),
                     zh=rules.event_text["zh"].format(event=latest.zh, reason=derived.zh), date=latest.date, source=latest.source)  # fmt: skip
