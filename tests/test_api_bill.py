"""An API bill weighed against self-hosting the same traffic: the arithmetic (tools/cost/api_vs_self_host.py), the
reading of the traffic (advisor/nlu/tco_said.api_usage) and the answer's first lines, in both languages."""

from __future__ import annotations

import pytest

from advisor.config import Settings
from advisor.deps import build_advisor
from advisor.nlu.ask import Ask
from advisor.nlu.reader import shared_understanding
from knowledge.api_prices import api_prices
from knowledge.catalog import load_catalog
from tools.cost.api_vs_self_host import ApiVsSelfHostRequest, api_vs_self_host

BASE = dict(output_share=0.2, api_input_per_m=1.0, api_output_per_m=3.0, deployment_output_tokens_per_s=500.0, gpus_per_deployment=2,
            price_per_gpu_hour=2.5, planned_load=0.5)  # fmt: skip


def test_small_volume_stays_on_the_api_and_large_volume_moves_off_it():
    small = api_vs_self_host(ApiVsSelfHostRequest(tokens_per_day=5e6, **BASE))
    large = api_vs_self_host(ApiVsSelfHostRequest(tokens_per_day=2e9, **BASE))
    assert small.verdict == "api" and small.deployments == 1
    assert large.verdict == "self_host" and large.saving_monthly > 0
    # the break-even volume is where one deployment's month equals the API bill
    one = 2 * 730 * 2.5
    assert small.break_even_tokens_per_day == pytest.approx(one / (30.4 * (0.8 * 1.0 + 0.2 * 3.0)) * 1e6)


def test_deployments_are_whole_and_sized_for_the_planned_load():
    r = api_vs_self_host(ApiVsSelfHostRequest(tokens_per_day=2e9, **BASE))
    needed = 2e9 * 0.2 / 86_400
    assert r.deployments == -(-needed // (500 * 0.5))
    assert r.gpus == r.deployments * 2
    busier = api_vs_self_host(ApiVsSelfHostRequest(tokens_per_day=2e9, **{**BASE, "planned_load": 1.0}))
    assert busier.deployments < r.deployments


def test_a_cheap_api_is_never_beaten():
    cheap = api_vs_self_host(ApiVsSelfHostRequest(tokens_per_day=5e9, **{**BASE, "api_input_per_m": 0.01, "api_output_per_m": 0.02}))
    assert cheap.verdict == "api" and cheap.break_even_tokens_per_day is None


def test_every_api_price_is_dated_and_sourced():
    for price in api_prices().prices:
        assert price.source.date and price.source.url.startswith("https://") and price.source.title


@pytest.fixture(scope="module")
def ask_of():
    understanding, catalog = shared_understanding(), load_catalog()
    return lambda message: Ask.read(understanding.read(message, []), catalog)


@pytest.mark.parametrize(
    ("message", "per_day"),
    [
        ("Our support bot pushes about 120 million tokens a day through an API. Cheaper to host Llama 3.3 70B ourselves?", 120e6),
        ("We make 20,000 requests a day to the GPT-4o API at about 3,000 tokens each; self-hosting Qwen2.5-72B worth it?", 60e6),
        ("每天通过API消耗大约5亿token，用Llama 3.1 70B，自己部署会不会更省钱？", 500e6),
        ("每天1万次请求，每次大概4000 token，调用DeepSeek API，自建值得吗？", 40e6),
    ],
)
def test_the_daily_volume_is_read_in_both_languages(ask_of, message, per_day):
    ask = ask_of(message)
    assert ask.weighs_api
    assert ask.api_usage.tokens_per_day == pytest.approx(per_day)


def test_a_rent_or_buy_question_names_no_api(ask_of):
    assert not ask_of("Buy or rent two 8x H100 servers for three years?").weighs_api
    assert not ask_of("两台8卡H100服务器，三年内租还是买？").weighs_api


@pytest.fixture(scope="module")
def advisor():
    return build_advisor(Settings.from_env({}))


def test_the_first_line_is_a_verdict_with_both_monthly_figures_in_english(advisor):
    r = advisor.answer("We pay an API for roughly 3 billion tokens per day on Llama 3.1 70B. Would our own GPUs be cheaper?", [])
    first = r.summary.split("\n")[0]
    assert first.startswith("**") and ("cheaper" in first or "same" in first)
    assert first.count("$") >= 2 and "a month" in first
    assert "rental_prices" in [c.name for c in r.tool_calls] and "estimate_throughput" in [c.name for c in r.tool_calls]
    assert "Break-even" in r.answer or "any volume" in r.answer


def test_the_first_line_is_a_verdict_in_chinese_and_the_api_price_is_cited(advisor):
    r = advisor.answer("每天3万个请求、每个约1500 token，现在用DeepSeek的API，自建部署划算吗？", [])
    first = r.summary.split("\n")[0]
    assert "更便宜" in first or "差不多" in first
    assert "每月" in first
    assert "api-docs.deepseek.com" in r.answer


def test_without_a_published_price_the_answer_says_what_price_self_hosting_beats(advisor):
    r = advisor.answer("We send about 400M tokens a day to an API running Qwen2.5-72B. Is self-hosting cheaper?", [])
    first = r.summary.split("\n")[0]
    assert "per million tokens" in first and "tell me yours" in first


def test_a_yuan_answer_says_its_api_price_is_a_conversion_of_the_dated_usd_list_price(advisor):
    """No dated CNY API price list is on file: a Chinese answer converts the USD list price and says at what rate and
    from when; a dollar answer shows the price as published, with no conversion note."""
    from tools.cost.money import DEFAULT_USD_TO_CNY, USD_TO_CNY_SOURCE

    assert all(price.currency == "USD" for price in api_prices().prices)
    yuan = advisor.answer("我们的客服每天走 DeepSeek 接口大约2亿 token，改成自己买卡部署能省钱吗？", [])
    assert "¥" in yuan.summary.split("\n")[0]
    assert f"1 美元 = {DEFAULT_USD_TO_CNY:g} 元换算" in yuan.answer and USD_TO_CNY_SOURCE.date in yuan.answer and USD_TO_CNY_SOURCE.url in yuan.answer
    dollars = advisor.answer("Our app sends about 300 million tokens a day to GPT-4o; would hosting Llama 3.3 70B ourselves be cheaper?", [])
    assert "$" in dollars.summary.split("\n")[0] and "planning rate" not in dollars.answer and "CNY per USD" not in dollars.answer
