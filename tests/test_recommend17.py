"""Recommendations a buyer can act on (session 17): a small team's peak is what its busy moments reach, not its mean
rounded; a volume of conversations said with its period is traffic in both languages; value words in either language
weigh the premium, at the card prices the user quoted; a workstation or desktop is named as one, not "a server"; the
lead names what to buy with its whole price; a used part on a mainland shortlist is judged as used, not "not sold new".
Wording of our own."""

from __future__ import annotations

import re

import pytest

from advisor.nlu.values import find_values
from knowledge.audience import binomial_quantile, peak_load
from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from tests.threads import ask, lead
from tools.recommend import RecommendRequest, recommend_gpus

CATALOG = load_catalog()
SERVING = load_serving_data()


# --- a small team's peak ---------------------------------------------------------------------------------


@pytest.mark.parametrize("people, said, at_least, at_most", [
    (5, "5 people", 2, 2), (8, "8个人", 2, 2), (6, "a team of 6 engineers", 2, 3),
    (3, "3 researchers", 1, 1), (40, "40 engineers", 5, 8), (2000, "2000 employees", 200, 240),
])  # fmt: skip
def test_a_headcount_peak_covers_its_busy_moments_not_only_the_mean(people, said, at_least, at_most):
    peak = peak_load(people, said)
    assert at_least <= peak.concurrent <= at_most, (said, peak.concurrent)
    assert peak.concurrent >= peak.mean


def test_the_binomial_quantile_agrees_with_its_sum_and_its_approximation():
    assert binomial_quantile(5, 0.1, 0.95) == 2  # P(X <= 1) = 0.919, P(X <= 2) = 0.991
    assert binomial_quantile(0, 0.1, 0.95) == 0 and binomial_quantile(10, 1.0, 0.95) == 10
    exact, approx = binomial_quantile(10_000, 0.01, 0.95), binomial_quantile(10_001, 0.01, 0.95)
    assert abs(exact - approx) <= 1


@pytest.mark.parametrize("message, users", [
    ("We're a small team of 5 people, which GPU should we buy to serve Llama 3.1 8B?", "2 users"),
    ("Five of us will share one box for Qwen2.5-7B chat: what should we buy? We are 5 people.", "2 users"),
    ("我们是8个人的小团队，想部署Qwen2.5-32B，买什么显卡？", "2 人"),
    ("团队6个人，要本地部署Qwen2.5-14B，推荐买什么卡？", "人同时使用"),
])  # fmt: skip
def test_a_small_team_is_sized_for_more_than_one_user_at_once(offline_advisor, message, users):
    first = lead(ask(offline_advisor, message))
    assert users in first, first
    assert "rounds to one" not in first and "取整为 1 人" not in first


# --- conversations a day are traffic ----------------------------------------------------------------------


@pytest.mark.parametrize("text, unit", [
    ("每天10万次对话，部署Qwen2.5-72B", "requests/day"), ("日均10万次会话", "requests/day"),
    ("每天大约10万轮对话", "requests/day"), ("每月300万次对话", "requests/month"),
    ("We expect 100k conversations a day", "requests/day"),
])  # fmt: skip
def test_conversations_said_with_their_period_are_a_request_volume(text, unit):
    rates = [v for v in find_values(text, CATALOG) if v.kind == "request_rate"]
    assert rates and rates[0].unit == unit, find_values(text, CATALOG)


@pytest.mark.parametrize("text", ["我们有8万条对话数据，平均2k token", "一共5千万次请求"])
def test_conversations_or_requests_with_no_period_are_no_rate(text):
    assert not [v for v in find_values(text, CATALOG) if v.kind == "request_rate"]


@pytest.mark.parametrize("message", [
    "每天10万次对话，部署Qwen2.5-72B，需要买什么GPU？",
    "我们日均10万次会话，用Qwen2.5-72B，该采购什么服务器？",
    "We expect 100k conversations a day on Qwen2.5-72B, which GPUs should we buy?",
])  # fmt: skip
def test_a_daily_conversation_volume_sizes_the_recommendation_at_its_peak(offline_advisor, message):
    response = ask(offline_advisor, message)
    assert "4.6" in response.answer  # turns per conversation, the traffic chain's own figure
    assert "one user at a time" not in response.answer and "同时一个用户" not in response.answer


# --- value words weigh the premium, at the user's prices ---------------------------------------------------


@pytest.mark.parametrize("message", [
    "H200比H100贵那么多，划得来吗？我们跑Qwen2.5-72B",
    "5090比4090多花的钱花得值吗？跑Qwen2.5-32B推理",
    "上H200而不是H100，划算吗？部署Llama-3.3-70B",
    "Will the H200 earn back its higher price over the H100 for serving Llama 3.3 70B?",
    "Does the RTX 5090 pay for itself over the RTX 4090 for Qwen2.5-32B serving?",
    "Would the H200 justify the extra over the H100 for serving Llama 3.3 70B?",
])  # fmt: skip
def test_value_words_in_either_language_weigh_the_premium(offline_advisor, routes_taken, message):
    ask(offline_advisor, message)
    assert routes_taken and "value_premium" in routes_taken[-1], routes_taken


@pytest.mark.parametrize("message, quotes", [
    ("4090卖1.6万，5090卖2万，多花的钱花得值吗？跑Qwen2.5-32B", ("¥16,000", "¥20,000")),
    ("Our vendor has the RTX 4090 at $1,800 and the RTX 5090 at $2,600. Is the 5090 worth the extra for serving Qwen2.5-32B?", ("$1,800", "$2,600")),
])  # fmt: skip
def test_the_premium_is_worked_out_at_the_card_prices_the_user_quoted(offline_advisor, message, quotes):
    response = ask(offline_advisor, message)
    answer = response.answer
    for quote in quotes:
        assert quote in answer, answer
    assert "8× NVIDIA GeForce RTX 4090" not in answer  # a card's price is no eight-card server's


# --- what to buy, named as it is bought ---------------------------------------------------------------------


def test_a_desktop_or_workstation_card_is_not_labelled_a_server():
    result = recommend_gpus(RecommendRequest(model="llama-3.1-8b", concurrency=1), CATALOG, SERVING)
    for tier in result.tiers:
        option = tier.option
        if option.server_class in ("desktop-1gpu", "workstation-4gpu"):
            assert "server" not in option.config_label.en and "服务器" not in option.config_label.zh, option.config_label
    cn = recommend_gpus(RecommendRequest(model="qwen2.5-32b", concurrency=2, currency="CNY", region="cn"), CATALOG, SERVING)
    assert any("工作站" in t.option.config_label.zh or "台式机" in t.option.config_label.zh for t in cn.tiers)


@pytest.mark.parametrize("message, price", [
    ("Which GPU should I buy for serving Llama 3.1 405B with a $600k budget?", r"≈ \$[\d,]+ as a whole configuration"),
    ("What hardware should we buy to serve Qwen2.5-32B for 20 users?", r"≈ \$[\d,]+ as a whole configuration"),
    ("我们在国内，预算200万人民币，部署DeepSeek-V3，买什么？", r"整套约 ¥[\d,]+"),
    ("部署Qwen2.5-32B给20个人用，买什么卡？", r"整套约 ¥[\d,]+"),
])  # fmt: skip
def test_the_lead_names_the_configuration_to_buy_with_its_whole_price(offline_advisor, message, price):
    first = lead(ask(offline_advisor, message))
    head = re.search(r"\*\*(.+?)\*\*", first)
    assert head and re.search(price, head.group(1)), first


@pytest.mark.parametrize("message", ["我们在深圳，预算50万，部署Qwen2.5-72B，买什么？", "国内采购，预算100万元，跑Llama-3.3-70B推理，推荐配置？",
                                     "我们在北京，想买H100跑Llama-3.3-70B，需要几张？"])
def test_a_mainland_buyer_gets_tiers_sold_there_without_a_warning_that_undoes_them(offline_advisor, message):
    response = ask(offline_advisor, message)
    assert "买不到新卡" not in lead(response), lead(response)
    assert "只适用于在境外" not in response.answer


def test_a_used_only_part_on_a_mainland_shortlist_is_judged_as_used_not_as_barred(offline_advisor):
    response = ask(offline_advisor, "二手A800两张还是H20四张，跑Qwen2.5-72B，选哪个？")
    assert "只有它在中国大陆能买到新卡" not in response.answer
    assert "二手" in response.answer and "只适用于在境外" not in response.answer


def test_a_part_with_no_list_price_is_weighed_to_buy_by_its_estimate(offline_advisor):
    response = ask(offline_advisor, "MI300X or H100 for Llama 3.1 405B serving, which should we buy?")
    assert "cheaper to buy" in response.answer or "to buy" in response.answer, response.answer
    premium = ask(offline_advisor, "Is the MI300X worth the premium over the H100?")
    assert "whole machines" in premium.answer, premium.answer


@pytest.mark.parametrize("message, quotes", [
    ("4090卖1.7万，5090卖2.2万，多花的钱划得来吗？", ("¥17,000", "¥22,000")),
    ("A 4090 goes for $1,700 and a 5090 for $2,300 here: is the dearer card worth the extra money?", ("$1,700", "$2,300")),
])
def test_quoted_card_prices_decide_a_premium_asked_without_a_job(offline_advisor, message, quotes):
    """No model named: the premium is still the buyer's quoted card prices, in the buyer's currency, not list prices."""
    first = lead(offline_advisor.answer(message, []))
    assert all(quote in first for quote in quotes), first
