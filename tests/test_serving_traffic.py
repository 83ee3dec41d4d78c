"""Traffic over a period and stated hardware facts, as a senior engineer would size them.

Daily or monthly users and request volumes per day or month become the busiest hour's arrival rate and, by
Little's law, the sequences in flight (never all users at once, never ignored); a card's memory as the user states
it (a 40 GB A100, a modded 48 GB 4090) replaces the catalog's figure. Wording here is our own.
"""

from __future__ import annotations

import pytest

from advisor.nlu.values import find_values
from advisor.name_matcher import normalize_text
from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from knowledge.traffic import planning_ratios
from tools.memory.estimator import estimate_memory
from tools.memory.schema import MemoryRequest
from tools.serving.estimator import estimate_throughput
from tools.serving.schema import ThroughputRequest
from tools.serving.traffic import TrafficRequest, peak_concurrency


def traffic(amount: float, kind: str, seconds: float | None = 10.0):
    return peak_concurrency(TrafficRequest(amount=amount, kind=kind, seconds_per_request=seconds, **planning_ratios()))


# --- the pure conversion -------------------------------------------------------------------------


def test_daily_users_go_through_the_peak_hour_and_littles_law():
    ratios = planning_ratios()
    result = traffic(40_000, "daily_users", seconds=8)
    active = 40_000 * ratios["peak_hour_active_share"]
    rate = active * ratios["requests_per_active_user_per_hour"] / 3600
    assert result.active_at_peak == pytest.approx(active)
    assert result.peak_requests_per_s == pytest.approx(rate, rel=1e-6)
    assert result.in_flight == pytest.approx(rate * 8, rel=1e-4)
    assert result.concurrent < 40_000 * 0.05  # far below "everyone at once" and below the old 5 % headcount share
    assert "Little's law" in result.chain.en and "利特尔法则" in result.chain.zh


def test_monthly_users_are_first_made_daily():
    daily = traffic(10_000, "daily_users")
    monthly = traffic(10_000 / planning_ratios()["daily_share_of_monthly_users"], "monthly_users")
    assert monthly.peak_requests_per_s == pytest.approx(daily.peak_requests_per_s, rel=1e-6)
    assert "monthly users" in monthly.chain.en and "月活" in monthly.chain.zh


def test_a_request_volume_is_spread_over_its_hours_with_a_peak_factor():
    per_day = traffic(864_000, "requests_per_day")  # 10 requests/s on average
    assert per_day.peak_requests_per_s == pytest.approx(10 * planning_ratios()["peak_to_mean"])
    per_month = traffic(864_000 * 30, "requests_per_month")
    assert per_month.peak_requests_per_s == pytest.approx(per_day.peak_requests_per_s)
    assert "86,400" in per_day.chain.en and "高峰系数" in per_day.chain.zh


def test_requests_per_user_per_day_make_the_daily_users_a_volume():
    ratios = planning_ratios()
    result = peak_concurrency(TrafficRequest(amount=12_000, kind="daily_users", seconds_per_request=10,
                                             requests_per_user_per_day=24, **ratios))  # fmt: skip
    assert result.peak_requests_per_s == pytest.approx(12_000 * 24 / 86_400 * ratios["peak_to_mean"])
    assert "24 requests each" in result.chain.en and "每人每天 24 次" in result.chain.zh


def test_users_online_at_the_peak_skip_the_daily_share():
    online = traffic(720, "online_users", seconds=20)
    assert online.peak_requests_per_s == pytest.approx(720 * planning_ratios()["requests_per_active_user_per_hour"] / 3600)
    assert online.concurrent == pytest.approx(online.peak_requests_per_s * 20, abs=1)


def test_without_a_request_time_it_stops_at_the_rate():
    result = traffic(5_000, "daily_users", seconds=None)
    assert result.in_flight is None and result.concurrent is None and result.chain == result.rate_chain


def test_a_tiny_audience_still_needs_one_sequence():
    assert traffic(3, "daily_users").concurrent == 1


@pytest.mark.parametrize("bad", [{"amount": 0}, {"amount": -5}, {"peak_to_mean": 0.5}, {"seconds_per_request": 0}])
def test_impossible_traffic_figures_are_refused(bad):
    with pytest.raises(ValueError):
        TrafficRequest(**{"amount": 100, "kind": "daily_users", "seconds_per_request": 5, **planning_ratios(), **bad})


# --- what the reader keeps ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def kept(text: str, catalog):
    return [(v.kind, v.value, v.unit) for v in find_values(normalize_text(text), catalog) if v.kind in ("users", "request_rate", "money")]


@pytest.mark.parametrize("text,value", [
    ("around 35,000 daily active users hit our assistant", 35_000),
    ("the bot has 8k DAU today", 8_000),
    ("客服机器人日活差不多3万", 30_000),
    ("预计月活20万左右", 200_000),
])  # fmt: skip
def test_period_audiences_are_users_never_money(text, value, catalog):
    found = kept(text, catalog)
    assert ("users", value, "") in found and not any(kind == "money" for kind, _, _ in found)


@pytest.mark.parametrize("text,unit,per_day", [
    ("we log 2 million requests a day", "requests/day", 2e6),
    ("roughly 6M calls per month", "requests/month", 6e6 / 30),
    ("每天大概有80万次请求", "requests/day", 8e5),
    ("每个月500万次调用", "requests/month", 5e6 / 30),
])  # fmt: skip
def test_request_volumes_per_day_or_month_are_kept_with_their_period(text, unit, per_day, catalog):
    rates = [(u, v) for kind, v, u in kept(text, catalog) if kind == "request_rate"]
    assert rates and rates[0][0] == unit and rates[0][1] * 86_400 == pytest.approx(per_day)


# --- a stated memory replaces the catalog's ------------------------------------------------------------


def test_a_modded_card_is_sized_with_the_memory_stated(catalog):
    stock = estimate_memory(MemoryRequest(model="qwen2.5-32b", gpu="rtx-4090", precision="fp8"), catalog)
    modded = estimate_memory(MemoryRequest(model="qwen2.5-32b", gpu="rtx-4090", gpu_memory_gb=48, precision="fp8"), catalog)
    assert stock.verdict != modded.verdict and modded.gpu_capacity_gb > 2 * stock.gpu_capacity_gb * 0.95


def test_the_serving_estimate_takes_the_stated_memory(catalog):
    data = load_serving_data()
    stock = estimate_throughput(ThroughputRequest(model="qwen2.5-7b", gpu="rtx-4090", batch=4), catalog, data)
    modded = estimate_throughput(ThroughputRequest(model="qwen2.5-7b", gpu="rtx-4090", gpu_memory_gb=48, batch=4), catalog, data)
    assert modded.memory_gb_per_gpu > 1.9 * stock.memory_gb_per_gpu
    assert modded.max_batch_fits > stock.max_batch_fits
    assert modded.decode_tokens_per_s_per_seq == pytest.approx(stock.decode_tokens_per_s_per_seq, rel=0.05)  # same bandwidth


def test_a_stated_memory_out_of_range_is_a_bilingual_error(catalog):
    from knowledge.bilingual import AdvisorError

    with pytest.raises(AdvisorError) as raised:
        estimate_throughput(ThroughputRequest(model="qwen2.5-7b", gpu="rtx-4090", gpu_memory_gb=0.2), catalog, load_serving_data())
    assert raised.value.en and raised.value.zh
