"""Issue 35, TCO: the lessor's question (servers bought to be rented out), electricity and colocation by the region the
servers run in, a follow-up that changes only how busy the GPUs are, and the falling-rent line quoted from a tool.
Own wording, both languages."""

from __future__ import annotations

import re

import pytest

from advisor.nlu.cues import says
from advisor.nlu.regions import site_region
from knowledge.catalog import load_catalog
from knowledge.clouds import load_price_book
from knowledge.region_tariffs import region_tariffs
from tests.threads import ask, calls
from tools.cost.rental_market import RentalMarketRequest, rental_prices
from tools.cost.tco import TcoRequest, compute_tco
from tools.cost.tco_model import HOURS_PER_MONTH

CATALOG = load_catalog()
PRICES = load_price_book()
# one 8×H100 box at a stated price, nothing added on top, power and colocation as stated: the lessor's arithmetic by hand
BOX = dict(gpu="h100-sxm", server_price=250_000, network_overhead_pct=0, server_max_kw=10, load_factor_pct=80, pue=1.25,
           electricity_price=0.12, colo_price_per_kw_month=200, maintenance_pct_per_year=6, staff_cost_per_month=1_000,
           lifetime_years=3, residual_value_pct=25)  # fmt: skip


def tco(**fields):
    return compute_tco(TcoRequest(**fields), CATALOG, PRICES)


# --- the lessor's arithmetic --------------------------------------------------------------------------------------


def test_a_lessors_margin_and_payback_follow_rate_occupancy_and_running_costs():
    lessor = tco(**BOX, cloud_price_per_gpu_hour=2.4, utilisation_pct=65, rents_out=True).lessor
    revenue = 2.4 * 8 * HOURS_PER_MONTH * 0.65
    running = 10 * 0.80 * 1.25 * HOURS_PER_MONTH * 0.12 + 10 * 200 + 250_000 * 0.06 / 12 + 1_000
    assert lessor.revenue_per_month == pytest.approx(revenue)
    assert lessor.running_cost_per_month == pytest.approx(running)
    assert lessor.margin_per_month == pytest.approx(revenue - running)
    assert lessor.payback_months == pytest.approx(250_000 / (revenue - running))
    assert lessor.profit_over_horizon == pytest.approx((revenue - running) * 36 - 250_000 + 62_500)
    # the rate that repays the box in 3 years, at that occupancy, gives a payback of exactly 36 months
    needed = tco(**BOX, cloud_price_per_gpu_hour=lessor.rate_to_pay_back_in_horizon, utilisation_pct=65, rents_out=True).lessor
    assert needed.payback_months == pytest.approx(36)


def test_a_rate_below_running_costs_never_pays_back_and_says_the_rate_that_would():
    lessor = tco(**BOX, cloud_price_per_gpu_hour=0.5, utilisation_pct=50, rents_out=True).lessor
    assert lessor.payback_months is None and lessor.margin_per_month < 0
    covering = tco(**BOX, cloud_price_per_gpu_hour=lessor.rate_to_cover_running, utilisation_pct=50, rents_out=True).lessor
    assert covering.margin_per_month == pytest.approx(0, abs=1e-6)


def test_a_lessor_priced_at_a_china_lease_earns_only_for_the_hours_let():
    # the China tier is a lease billed every hour for a renter; a lessor still earns only when a card is let
    half = tco(gpu="h100-sxm", currency="CNY", rent_tier="auto", utilisation_pct=50, rents_out=True)
    full = tco(gpu="h100-sxm", currency="CNY", rent_tier="auto", utilisation_pct=100, rents_out=True)
    assert half.lessor.rate_from_market and half.lessor.revenue_per_month == pytest.approx(full.lessor.revenue_per_month / 2)


def test_no_lessor_view_unless_the_cards_are_let_out():
    assert tco(**BOX, cloud_price_per_gpu_hour=2.4).lessor is None


# --- regions ------------------------------------------------------------------------------------------------------


def test_every_region_price_is_dated_and_sourced_or_left_empty_on_purpose():
    for region in region_tariffs().root.values():
        for price in (region.electricity, region.colocation):
            if price is not None:
                assert price.source.url.startswith("https://") and price.source.date


def test_a_region_with_a_sourced_tariff_prices_power_with_it():
    germany = tco(gpu="h100-sxm", server_price=300_000, cloud_price_per_gpu_hour=2.5, site_region="eu")
    power = next(a for a in germany.assumptions if a.key == "electricity_price")
    assert power.value == pytest.approx(region_tariffs().get("eu").electricity.usd) and "Eurostat" in power.source
    plain = tco(gpu="h100-sxm", server_price=300_000, cloud_price_per_gpu_hour=2.5)
    assert germany.own_monthly_opex > plain.own_monthly_opex  # dearer power than the US planning figure
    assert not germany.region.electricity_fallback and germany.region.colocation_global_average


def test_a_region_without_a_sourced_tariff_falls_back_to_the_us_figure_even_in_yuan():
    japan = tco(gpu="h100-sxm", server_price=2_000_000, cloud_price_per_gpu_hour=18, site_region="jp", currency="CNY")
    power = next(a for a in japan.assumptions if a.key == "electricity_price")
    assert japan.region.electricity_fallback and "no sourced price for Japan" in power.source
    assert power.value == pytest.approx(0.10 * 7.2)  # the US planning figure converted, not China's own tariff


def test_a_tariff_the_user_gives_beats_the_regions():
    stated = tco(gpu="h100-sxm", server_price=300_000, cloud_price_per_gpu_hour=2.5, site_region="uk", electricity_price=0.05)
    assert next(a for a in stated.assumptions if a.key == "electricity_price").source == "given"


@pytest.mark.parametrize(("text", "region"), [
    ("our racks would sit in Frankfurt", "eu"), ("we're a Singapore startup", "sg"), ("hosting in Tokyo", "jp"),
    ("机房在贵州", "cn"), ("我们公司在新加坡", "sg"), ("服务器放在德国", "eu"), ("打算放到英国的机房", "uk"),
    ("let us know what you think", None), ("help us pick", None),
])
def test_where_the_servers_run_is_read_in_both_languages(text, region):
    assert site_region([text]) == region


def test_the_newest_message_placing_the_servers_wins():
    assert site_region(["we're in the US", "actually the cluster goes to London"]) == "uk"


@pytest.mark.parametrize(("text", "lets_out"), [
    ("plan is to buy H100 boxes and lease them out by the hour", True), ("we'd rent the cards to other companies", False),
    ("we would rent to other companies at $2 per GPU-hour", True), ("买服务器回来做算力租赁生意", True), ("把卡租给别人用", True),
    ("buy or rent eight H100s?", False), ("租云还是自己买？", False),
])
def test_renting_out_is_a_cue_of_its_own(text, lets_out):
    assert says("rents_out", text) is lets_out


# --- the lessor's answer ------------------------------------------------------------------------------------------


def test_an_english_lessor_question_gets_margin_and_payback_not_rent_or_buy(offline_advisor):
    response = ask(offline_advisor, "Thinking of buying three 8-GPU H100 servers at $270k each to rent them out at $2.40 per GPU-hour. How long until it pays back?")
    first = response.summary.split("\n\n")[0]
    lessor = calls(response, "compute_tco")[0].result["lessor"]
    assert first.startswith("**Pays back in") or first.startswith("**Never pays back")
    assert "margin" in first and "renting wins" not in response.summary
    assert f"{lessor['payback_months']:.1f}" in first


def test_a_chinese_lessor_question_gets_margin_and_payback(offline_advisor):
    response = ask(offline_advisor, "准备买两台8卡H100，每台210万，租给别人每卡每小时11块，几个月能回本？")
    first = response.summary.split("\n\n")[0]
    assert "回本" in first and "毛利" in first and "租更划算" not in response.summary
    assert calls(response, "compute_tco")[0].args["rents_out"] is True


@pytest.mark.parametrize(("question", "words"), [
    ("If I buy an 8x H100 server for $350k and rent it out at $0.90 per GPU-hour, do I make money?", ("Never pays back", "/GPU-hour")),
    ("买一台8卡H100，花260万，出租给客户每卡时3元，能回本吗？", ("回不了本", "每卡时至少")),
])
def test_a_rate_too_low_says_never_with_the_rate_that_would_pay(offline_advisor, question, words):
    summary = ask(offline_advisor, question).summary
    assert all(word in summary for word in words)


def test_a_lessor_in_germany_is_told_whose_power_prices_were_used(offline_advisor):
    en = ask(offline_advisor, "We'd host 8x H100 in Frankfurt, bought for $300k, and rent them out at $2.5 per GPU-hour. Payback?")
    assert "Germany / the EU" in en.answer and calls(en, "compute_tco")[0].args["site_region"] == "eu"
    zh = ask(offline_advisor, "机房在日本，买一台8卡H100 230万元，租出去每卡时15元，多久回本？")
    assert "日本" in zh.answer and "美国的规划值" in zh.answer  # no sourced Japanese tariff: the fallback is said


# --- a follow-up that changes only how busy the GPUs are -----------------------------------------------------------


def test_a_lower_use_follow_up_leads_with_the_cost_of_each_hour_used_in_english(offline_advisor):
    response = ask(offline_advisor, "and at only 35% utilisation?", "Own or rent one 8x H100 box at $310k, kept 3 years?")
    first = response.summary.split("\n\n")[0]
    results = [c.result for c in calls(response, "compute_tco")]
    now = next(r for r in results if any(a["key"] == "utilisation_pct" and a["value"] == 35 for a in r["assumptions"]))
    assert "35% use" in first and f"${now['own_cost_per_used_gpu_hour']:,.2f}" in first
    assert "pay-as-you-go" in first or "per hour used" in first


def test_a_lower_use_follow_up_against_a_lease_never_repeats_an_unchanged_payback_as_a_change(offline_advisor):
    response = ask(offline_advisor, "要是一半时间闲着呢？利用率50%", "国内买一台8卡H100整机220万，用4年，比租划算吗？")
    first = response.summary.split("\n\n")[0]
    assert "实际用到的卡时成本" in first
    assert not re.search(r"(\d+(?:\.\d+)?) → \1 个月", first)  # never "53.5 → 53.5"
    assert "仍为" in first  # the one line saying why it did not move


# --- the falling-rent line, quoted from a tool ------------------------------------------------------------------------


def test_rental_prices_carries_the_dated_rent_trend():
    trend = rental_prices(RentalMarketRequest(gpu="h100-sxm", currency="CNY"), CATALOG, PRICES).trend
    assert trend is not None and trend.currency == "USD" and trend.now_price < trend.then_price
    assert trend.source_url.startswith("https://") and trend.now_date > trend.then_date


@pytest.mark.parametrize(("question", "marker"), [
    ("Buy or rent eight H100s over four years at 70% load?", "Rents have been falling"),
    ("八张H100用三年，买还是租？", "租金一直在降"),
])
def test_a_multi_year_rent_or_buy_quotes_the_trend_from_the_tool(offline_advisor, question, marker):
    response = ask(offline_advisor, question)
    assert marker in response.answer
    trend = calls(response, "rental_prices")[0].result["trend"]
    assert f"${trend['now_price']:.2f}" in response.answer and f"{trend['fall_pct']:.0f}%" in response.answer


@pytest.mark.parametrize(("question", "lead"), [
    ("We already have 8 H100s standing idle; would renting them out at $2 per GPU-hour be worth it?", "Letting them out earns"),
    ("手上已有一台8卡A100，拿来出租每卡时1元，值不值？", "出租每月约亏"),
])
def test_cards_already_owned_and_let_out_get_the_monthly_margin_not_a_payback(offline_advisor, question, lead):
    summary = ask(offline_advisor, question).summary
    assert summary.startswith(f"**{lead}") and "Pays back" not in summary and "个月回本" not in summary
