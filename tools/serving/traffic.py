"""Traffic stated over a period (daily or monthly users, users online at the peak, requests per day or month)
turned into the requests arriving per second at the busiest moment and the sequences in flight then.

People who use a service in a day are not all generating at once: at the peak hour a share of them are active,
each sends a few requests in that hour, and each request stays only while it is prefilled and generated. Little's
law turns that rate into a concurrency: sequences in flight = arrival rate × seconds each request stays.
A request volume per day or month is spread over its hours, and the busiest hour carries a multiple of the mean.
Pure function: the caller passes the planning ratios in (knowledge/traffic.yaml, each with its source).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Text
from knowledge.wording import shipped
from tools.common import LineItem
from tools.serving.report import g, line

TEXT = shipped("traffic_text.yaml")

TrafficKind = Literal["daily_users", "monthly_users", "online_users", "requests_per_day", "requests_per_month"]
VolumeUnit = Literal["requests", "conversations", "tokens"]
SECONDS_PER_HOUR = 3600.0
SECONDS_PER_DAY = 86_400.0


class TrafficRequest(BaseModel):
    """A traffic figure as the user gave it, the planning ratios that turn it into a peak, and the time a request stays."""

    model_config = ConfigDict(extra="forbid")

    amount: float = Field(gt=0, description="The figure stated: users, or requests in the period.")
    kind: TrafficKind
    seconds_per_request: float | None = Field(
        None, gt=0, description="Mean time a request stays: first token + output tokens ÷ per-user speed, s; None stops at the peak rate."
    )
    peak_hour_active_share: float = Field(gt=0, le=1, description="Share of a day's users active in the busiest hour.")
    requests_per_active_user_per_hour: float = Field(gt=0, description="Requests one active user sends in the busiest hour.")
    daily_share_of_monthly_users: float = Field(gt=0, le=1, description="Daily users ÷ monthly users (DAU/MAU).")
    peak_to_mean: float = Field(ge=1, description="Requests in the busiest hour ÷ requests in an average hour.")
    days_per_month: float = Field(30.0, gt=0)
    requests_per_user_per_day: float | None = Field(
        None, gt=0, description="Requests each daily user sends a day, when the user says so: the day's volume then peaks like any volume."
    )
    volume_unit: VolumeUnit = Field(
        "requests", description='What a volume a day or a month counts: "requests", "conversations" (each several requests) or "tokens".'
    )
    requests_per_conversation: float | None = Field(None, gt=0, description="Requests (turns) in one conversation, for a volume of conversations.")
    tokens_per_request: float | None = Field(None, gt=0, description="Tokens one request carries (prompt + output), for a volume of tokens.")


class TrafficResult(BaseModel):
    """The peak arrival rate, the sequences in flight at that rate, and each step with its numbers."""

    active_at_peak: float | None = Field(None, description="Users active in the busiest hour (None for a request volume).")
    peak_requests_per_s: float = Field(description="Requests arriving per second in the busiest hour.")
    in_flight: float | None = Field(None, description="Sequences in flight at the peak = rate × seconds per request (Little's law).")
    concurrent: int | None = Field(None, description="Sequences to size for: the mean in flight, rounded up, at least 1.")
    rate_chain: Text = Field(description="The conversion up to the peak rate in one line, numbers substituted.")
    chain: Text = Field(description="The whole conversion in one line, through the sequences in flight when a request time was given.")
    lines: list[LineItem]


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _count(value: float) -> str:
    """People and requests as whole numbers with separators ("3,600", "500"), small fractions as figures."""
    return f"{value:,.0f}" if value >= 10 else g(value)


def _step(steps_en: list[str], steps_zh: list[str], key: str, **values: str) -> None:
    """One step of the chain, in both languages (wording in knowledge/traffic_text.yaml)."""
    step = TEXT.text(f"steps.{key}", **values)
    steps_en.append(step.en)
    steps_zh.append(step.zh)


def _line(key: str, value: float, unit: str, steps_en: list[str], steps_zh: list[str]) -> LineItem:
    """The line item the last step computed, labelled from the text file."""
    en, zh = TEXT.pair(f"labels.{key}")
    return line(key, en, zh, value, unit, steps_en[-1], steps_zh[-1])


def peak_concurrency(request: TrafficRequest) -> TrafficResult:
    """Users or a request volume → peak requests/s → sequences in flight (Little's law: L = λ × W)."""
    r = request
    lines: list[LineItem] = []
    steps_en: list[str] = []
    steps_zh: list[str] = []
    active: float | None = None
    if r.kind in ("daily_users", "monthly_users", "online_users"):
        users = r.amount
        if r.kind == "monthly_users":
            users = r.amount * r.daily_share_of_monthly_users
            _step(steps_en, steps_zh, "monthly_to_daily", monthly=_count(r.amount), share=g(r.daily_share_of_monthly_users * 100), daily=_count(users))
            lines.append(_line("daily_users", users, "users", steps_en, steps_zh))
        if r.requests_per_user_per_day is not None and r.kind != "online_users":  # "each user sends 30 a day": a volume
            per_day = users * r.requests_per_user_per_day
            _step(steps_en, steps_zh, "daily_volume", users=_count(users), each=g(r.requests_per_user_per_day), per_day=_count(per_day))
            lines.append(_line("requests_per_day", per_day, "requests", steps_en, steps_zh))
            return _finish(r, lines, steps_en, steps_zh, None, _peak_of_volume(r, per_day, steps_en, steps_zh))
        if r.kind == "online_users":
            active = users
        else:
            active = users * r.peak_hour_active_share
            _step(steps_en, steps_zh, "active_at_peak", users=_count(users), share=g(r.peak_hour_active_share * 100), active=_count(active))
            lines.append(_line("active_at_peak", active, "users", steps_en, steps_zh))
        rate = active * r.requests_per_active_user_per_hour / SECONDS_PER_HOUR
        per_user = g(r.requests_per_active_user_per_hour)
        _step(steps_en, steps_zh, "active_rate", active=_count(active), per_user=per_user, rate=g(rate))
    else:
        amount = _in_requests(r, lines, steps_en, steps_zh)
        per_day = amount if r.kind == "requests_per_day" else amount / r.days_per_month
        if r.kind == "requests_per_month":
            _step(steps_en, steps_zh, "monthly_volume", monthly=_count(amount), days=g(r.days_per_month), per_day=_count(per_day))
            lines.append(_line("requests_per_day", per_day, "requests", steps_en, steps_zh))
        return _finish(r, lines, steps_en, steps_zh, None, _peak_of_volume(r, per_day, steps_en, steps_zh))
    return _finish(r, lines, steps_en, steps_zh, active, rate)


def _in_requests(r: TrafficRequest, lines: list[LineItem], steps_en: list[str], steps_zh: list[str]) -> float:
    """A volume of conversations or tokens as the requests it makes: conversations × requests in one, tokens ÷ tokens in one."""
    period = "day" if r.kind == "requests_per_day" else "month"
    if r.volume_unit == "conversations" and r.requests_per_conversation:
        amount = r.amount * r.requests_per_conversation
        _step(steps_en, steps_zh, f"conversations_{period}", amount=_count(r.amount), each=g(r.requests_per_conversation), requests=_count(amount))
    elif r.volume_unit == "tokens" and r.tokens_per_request:
        amount = r.amount / r.tokens_per_request
        _step(steps_en, steps_zh, f"tokens_{period}", amount=_count(r.amount), each=_count(r.tokens_per_request), requests=_count(amount))
    else:
        return r.amount
    lines.append(_line(f"requests_per_{period}", amount, "requests", steps_en, steps_zh))
    return amount


def _peak_of_volume(r: TrafficRequest, per_day: float, steps_en: list[str], steps_zh: list[str]) -> float:
    """A day's requests spread over its seconds, times the busiest hour's multiple of the mean."""
    rate = per_day / SECONDS_PER_DAY * r.peak_to_mean
    _step(steps_en, steps_zh, "volume_rate", per_day=_count(per_day), peak=g(r.peak_to_mean), rate=g(rate))
    return rate


def _finish(r: TrafficRequest, lines: list[LineItem], steps_en: list[str], steps_zh: list[str], active: float | None, rate: float) -> TrafficResult:
    """The peak rate's line, then Little's law when a request time was given."""
    lines.append(_line("peak_rate", rate, "requests/s", steps_en, steps_zh))
    rate_chain = Text(en=" → ".join(steps_en), zh=" → ".join(steps_zh))
    if r.seconds_per_request is None:
        return TrafficResult(active_at_peak=_rounded(active), peak_requests_per_s=round(rate, 6), rate_chain=rate_chain, chain=rate_chain, lines=lines)
    in_flight = rate * r.seconds_per_request
    _step(steps_en, steps_zh, "in_flight", rate=g(rate), seconds=g(r.seconds_per_request), in_flight=g(in_flight))
    lines.append(_line("in_flight", in_flight, "sequences", steps_en, steps_zh))
    return TrafficResult(
        active_at_peak=_rounded(active),
        peak_requests_per_s=round(rate, 6),
        in_flight=round(in_flight, 4),
        concurrent=max(1, math.ceil(in_flight - 1e-9)),
        rate_chain=rate_chain,
        chain=Text(en=" → ".join(steps_en), zh=" → ".join(steps_zh)),
        lines=lines,
    )
