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
from tools.common import LineItem
from tools.serving.report import g, line

TrafficKind = Literal["daily_users", "monthly_users", "online_users", "requests_per_day", "requests_per_month"]
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
            steps_en.append(f"{_count(r.amount)} monthly users × {g(r.daily_share_of_monthly_users * 100)}% daily = {_count(users)} daily users")
            steps_zh.append(f"月活 {_count(r.amount)} × 日活占比 {g(r.daily_share_of_monthly_users * 100)}% = 日活 {_count(users)}")
            lines.append(line("daily_users", "Daily users", "日活用户", users, "users", steps_en[-1], steps_zh[-1]))
        if r.requests_per_user_per_day is not None and r.kind != "online_users":  # "each user sends 30 a day": a volume
            per_day = users * r.requests_per_user_per_day
            steps_en.append(f"{_count(users)} daily users × {g(r.requests_per_user_per_day)} requests each = {_count(per_day)} a day")
            steps_zh.append(f"日活 {_count(users)} × 每人每天 {g(r.requests_per_user_per_day)} 次 = 每天 {_count(per_day)} 次")
            lines.append(line("requests_per_day", "Requests a day", "每天请求数", per_day, "requests", steps_en[-1], steps_zh[-1]))
            return _finish(r, lines, steps_en, steps_zh, None, _peak_of_volume(r, per_day, steps_en, steps_zh))
        if r.kind == "online_users":
            active = users
        else:
            active = users * r.peak_hour_active_share
            steps_en.append(f"{_count(users)} daily users × {g(r.peak_hour_active_share * 100)}% active in the busiest hour = {_count(active)}")
            steps_zh.append(f"日活 {_count(users)} × 高峰小时活跃 {g(r.peak_hour_active_share * 100)}% = {_count(active)} 人")
            lines.append(line("active_at_peak", "Users active in the busiest hour", "高峰小时活跃用户", active, "users", steps_en[-1], steps_zh[-1]))
        rate = active * r.requests_per_active_user_per_hour / SECONDS_PER_HOUR
        per_user = g(r.requests_per_active_user_per_hour)
        steps_en.append(f"{_count(active)} active users × {per_user} requests per user per hour ÷ 3,600 s = {g(rate)} requests/s")
        steps_zh.append(f"{_count(active)} 人 × 每人每小时 {per_user} 次请求 ÷ 3,600 秒 = 每秒 {g(rate)} 个请求")
    else:
        per_day = r.amount if r.kind == "requests_per_day" else r.amount / r.days_per_month
        if r.kind == "requests_per_month":
            steps_en.append(f"{_count(r.amount)} requests a month ÷ {g(r.days_per_month)} days = {_count(per_day)} a day")
            steps_zh.append(f"每月 {_count(r.amount)} 次请求 ÷ {g(r.days_per_month)} 天 = 每天 {_count(per_day)} 次")
            lines.append(line("requests_per_day", "Requests a day", "每天请求数", per_day, "requests", steps_en[-1], steps_zh[-1]))
        return _finish(r, lines, steps_en, steps_zh, None, _peak_of_volume(r, per_day, steps_en, steps_zh))
    return _finish(r, lines, steps_en, steps_zh, active, rate)


def _peak_of_volume(r: TrafficRequest, per_day: float, steps_en: list[str], steps_zh: list[str]) -> float:
    """A day's requests spread over its seconds, times the busiest hour's multiple of the mean."""
    rate = per_day / SECONDS_PER_DAY * r.peak_to_mean
    steps_en.append(f"{_count(per_day)} a day ÷ 86,400 s × {g(r.peak_to_mean)} (busiest hour ÷ average hour) = {g(rate)} requests/s")
    steps_zh.append(f"每天 {_count(per_day)} 次 ÷ 86,400 秒 × 高峰系数 {g(r.peak_to_mean)} = 每秒 {g(rate)} 个请求")
    return rate


def _finish(r: TrafficRequest, lines: list[LineItem], steps_en: list[str], steps_zh: list[str], active: float | None, rate: float) -> TrafficResult:
    """The peak rate's line, then Little's law when a request time was given."""
    lines.append(line("peak_rate", "Requests arriving at the peak", "高峰到达率", rate, "requests/s", steps_en[-1], steps_zh[-1]))
    rate_chain = Text(en=" → ".join(steps_en), zh=" → ".join(steps_zh))
    if r.seconds_per_request is None:
        return TrafficResult(active_at_peak=_rounded(active), peak_requests_per_s=round(rate, 6), rate_chain=rate_chain, chain=rate_chain, lines=lines)
    in_flight = rate * r.seconds_per_request
    steps_en.append(f"{g(rate)} requests/s × {g(r.seconds_per_request)} s per request = {g(in_flight)} in flight (Little's law)")
    steps_zh.append(f"每秒 {g(rate)} 个请求 × 每个请求 {g(r.seconds_per_request)} 秒 = 同时在途 {g(in_flight)} 路（利特尔法则）")
    lines.append(line("in_flight", "Sequences in flight at the peak", "高峰同时在途序列", in_flight, "sequences", steps_en[-1], steps_zh[-1]))
    return TrafficResult(
        active_at_peak=_rounded(active),
        peak_requests_per_s=round(rate, 6),
        in_flight=round(in_flight, 4),
        concurrent=max(1, math.ceil(in_flight - 1e-9)),
        rate_chain=rate_chain,
        chain=Text(en=" → ".join(steps_en), zh=" → ".join(steps_zh)),
        lines=lines,
    )
