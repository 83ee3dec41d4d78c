"""#35: the workload the user states is what gets sized, never a calculator default; and a rent-or-buy over a short time is
said in a buyer's units. Our own wording, both languages:
- a team's size ("our crew of 40 will share it") is a headcount: a stated share of it at once, never 1 nor all of them;
- a daily volume of conversations or tokens becomes a peak request rate (each conversion step and ratio said);
- a horizon under a year is said in months, and a break-even above full use as "never pays back within N at any utilisation"."""

from __future__ import annotations

import re

import pytest

from advisor.offline.tasks.tco.spans import span
from knowledge.audience import peak_load
from knowledge.traffic import planning_ratios
from tests.chinese_text import english_words
from tests.threads import ask, calls, lead
from tools.serving.traffic import TrafficRequest, peak_concurrency


@pytest.mark.parametrize(
    ("months", "en", "zh"),
    [(3, "3 months", "3 个月"), (1, "1 month", "1 个月"), (0.5, "2.2 weeks", "2.2 周"), (12, "1 year", "1 年"), (18, "1.5 years", "1.5 年"),
     (36, "3 years", "3 年")],
)
def test_a_span_is_said_in_weeks_months_or_years(months, en, zh):
    said = span(months)
    assert (said.en, said.zh) == (en, zh)


@pytest.mark.parametrize(("unit", "amount", "requests"), [("conversations", 10_000, 46_000), ("tokens", 2_560_000, 2_000), ("requests", 7_000, 7_000)])
def test_a_daily_volume_is_counted_in_requests_before_its_peak(unit, amount, requests):
    result = peak_concurrency(TrafficRequest(amount=amount, kind="requests_per_day", volume_unit=unit, **planning_ratios()))
    ratios = planning_ratios()
    assert result.peak_requests_per_s == pytest.approx(requests / 86_400 * ratios["peak_to_mean"], rel=1e-3)


SHORT_HORIZON = [
    ("We need 4 H100s for a 6-month project. Rent them or buy them?", "6 months", "years"),
    ("项目只做6个月，要4张H100，租还是买？", "6 个月", "年"),
]


@pytest.mark.parametrize(("question", "horizon", "year_word"), SHORT_HORIZON)
def test_a_short_horizon_is_said_in_months_and_an_unreachable_break_even_in_words(offline_advisor, question, horizon, year_word):
    response = ask(offline_advisor, question)
    assert calls(response, "compute_tco")
    text = response.answer
    assert horizon in lead(response)
    assert not re.search(r"0\.\d+ " + year_word, text), text  # never "0.5 years"
    for figure in re.findall(r"([\d,]+(?:\.\d+)?)%", text):  # no utilisation (or any share) above full use
        assert float(figure.replace(",", "")) <= 100, figure


@pytest.mark.parametrize(
    "question",
    ["Our crew of 40 will share one deployment of Qwen2.5-32B: how many L40S do we need?",
     "我们组里40个人共用，部署Qwen2.5-32B需要几张L40S？"],
)
def test_a_team_size_is_sized_at_a_stated_share_at_once(offline_advisor, question):
    response = ask(offline_advisor, question)
    loads = [c.args.get("batch") for c in calls(response, "estimate_throughput")] + [c.args.get("concurrency") for c in calls(response, "recommend_gpus")]
    loads = [load for load in loads if load]
    # 10% of 40 at the busiest moment on average (knowledge/audience.yaml), sized for the count that covers 95% of such
    # moments (7), not 1 and not 40
    assert loads and max(loads) == peak_load(40, "40 people").concurrent == 7, loads
    assert "10%" in response.answer and "codingace" in response.answer  # the share is said, with its source


@pytest.mark.parametrize(
    ("question", "chain_word"),
    [("Our support bot has about 30k conversations a day on Qwen2.5-14B. Which GPUs should we buy?", "4.6 requests each"),
     ("客服机器人大约3万次对话/天，用Qwen2.5-14B，需要买什么卡？", "每次对话 4.6 个请求")],
)
def test_daily_conversations_are_sized_at_their_peak_request_rate(offline_advisor, question, chain_word):
    response = ask(offline_advisor, question)
    assert chain_word in response.answer
    loads = [c.args.get("concurrency") for c in calls(response, "recommend_gpus")] + [c.args.get("batch") for c in calls(response, "estimate_throughput")]
    assert max(load or 0 for load in loads) > 1, loads  # never one user
    if "对话" in question:
        assert not english_words(lead(response)), english_words(lead(response))


@pytest.mark.parametrize(
    ("question", "chain_word"),
    [("We push about 60M tokens per day through Llama 3.1 8B. How many L40S should we get?", "tokens per request"),
     ("每天大约6000万token，跑Llama 3.1 8B，需要几张L40S？", "每个请求 1,280 个 token")],
)
def test_daily_tokens_are_sized_as_requests_at_their_peak(offline_advisor, question, chain_word):
    response = ask(offline_advisor, question)
    assert chain_word in response.answer
    loads = [c.args.get("concurrency") for c in calls(response, "recommend_gpus")] + [c.args.get("batch") for c in calls(response, "estimate_throughput")]
    assert max(load or 0 for load in loads) > 1, loads
