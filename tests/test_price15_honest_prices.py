"""Prices and fallbacks said honestly (issue #35/#37): a rent from another market when the buyer's has none, owning's
hour said as a floor, the verdict across rent tiers, hosting in a site thread at the sourced colocation rate, and
figures without a dated source dropped or said as assumptions. Own wording, en and zh."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from knowledge.clouds import load_price_book
from knowledge.tco_defaults import shipped_tco_defaults
from tools.cost.rental_market import RentalMarketRequest, other_market, rent_market, rental_prices
from tools.cost.tco import TcoRequest, compute_tco
from tools.facility import FacilityPlanRequest, plan_facility
from knowledge.facility import shipped_facility_book
from tests.threads import ask, lead

CATALOG = load_catalog()
BOOK = load_price_book()
CJK = re.compile(r"[\u4e00-\u9fff]")


# ---- another market's rent ----
@pytest.mark.parametrize(("tiers", "china", "expected"), [
    ({"china"}, False, "china"), ({"specialist", "hyperscaler_on_demand"}, True, "abroad"), ({"china", "specialist"}, True, None),
    ({"specialist"}, False, None), (set(), True, None), (set(), False, None),
])  # fmt: skip
def test_whose_market_prices_a_card_when_the_buyers_has_none(tiers, china, expected):
    assert other_market(tiers, china) == expected


def test_a_card_rented_only_in_china_is_priced_for_a_buyer_elsewhere_and_marked():
    r = rental_prices(RentalMarketRequest(gpu="L20", currency="USD"), CATALOG, BOOK)
    assert r.other_market == "china" and r.fair_tier == "china" and r.tiers
    offer = r.tiers[0].offers[0]
    assert offer.quoted_currency == "CNY" and abs(offer.price - offer.quoted_price / r.usd_to_cny) < 1e-9


def test_a_china_buyer_of_a_card_with_no_china_rent_gets_the_rent_abroad_converted_not_a_refusal():
    r = compute_tco(TcoRequest(gpu="RTX A6000", currency="CNY"), CATALOG, BOOK)
    assert r.rent_market == "abroad" and r.payback_months is not None


def test_a_buyer_outside_china_weighs_a_china_only_card_against_its_china_rent():
    r = compute_tco(TcoRequest(gpu="L20", currency="USD"), CATALOG, BOOK)
    assert r.rent_market == "china" and r.rent_tier == "china" and r.payback_months is not None
    assert [t.tier for t in r.tier_paybacks] == ["china"]


def test_a_china_buyer_of_a_card_barred_from_china_is_not_priced_at_a_foreign_rent():
    """A foreign cloud's rate is no price a China buyer can rent a barred card at: the China rent is said missing."""
    assert rent_market(CATALOG.gpu("B200"), {"specialist", "hyperscaler_on_demand"}, True, catalog_rent=True) is None
    r = rental_prices(RentalMarketRequest(gpu="B200", currency="CNY", china=True), CATALOG, BOOK)
    assert r.other_market is None


def test_a_card_no_tier_prices_gets_the_catalogs_dated_rent_marked_for_a_china_buyer():
    """One card (RTX A6000) has only the catalog's rent: both tools say whose market it is, a barred card none."""
    r = rental_prices(RentalMarketRequest(gpu="RTX A6000", currency="CNY", china=True), CATALOG, BOOK)
    assert not r.tiers and r.catalog_rent is not None and r.catalog_rent.quoted_currency == "USD" and r.other_market == "abroad"
    t = compute_tco(TcoRequest(gpu="RTX A6000", currency="CNY", rent_needed=True), CATALOG, BOOK)
    assert t.rent_market == "abroad" and t.rent_quoted is not None and t.rent_quoted.currency == "USD"
    barred = rental_prices(RentalMarketRequest(gpu="B300", currency="CNY", china=True), CATALOG, BOOK)
    assert barred.catalog_rent is None and barred.other_market is None


def test_the_buyers_own_market_is_never_marked_as_another():
    assert compute_tco(TcoRequest(gpu="H100", currency="USD"), CATALOG, BOOK).rent_market is None
    assert compute_tco(TcoRequest(gpu="H100", currency="CNY"), CATALOG, BOOK).rent_market is None


def test_rent_or_buy_of_a_china_only_card_says_whose_rent_it_is_en(offline_advisor):
    text = lead(ask(offline_advisor, "We might buy eight L20 cards and keep them 3 years, or rent instead: which is cheaper?"))
    assert "another market's price" in text and "7.2 CNY/USD" in text and "¥15.72" in text


def test_rent_or_buy_of_a_card_with_no_china_rent_says_whose_rent_it_is_zh(offline_advisor):
    text = lead(ask(offline_advisor, "我们在考虑8张RTX A6000自己买来用3年，还是直接租，哪个划算？"))
    assert "另一个市场的价格" in text and "7.2 元/美元" in text
    assert "请提供国内服务商" not in text  # answered, not refused


def test_the_rent_of_a_china_only_card_is_given_as_another_markets_en(offline_advisor):
    answer = ask(offline_advisor, "What's a reasonable hourly rate to rent a single L20?").answer
    assert "another market's price" in answer.split("\n\n")[1]


def test_the_rent_of_a_card_with_no_china_rent_is_given_as_another_markets_zh(offline_advisor):
    answer = ask(offline_advisor, "国内租一张RTX A6000每小时要多少钱？").answer
    assert "另一个市场的价格" in answer


# ---- owning's hour, said as a floor ----
def test_a_rent_estimated_from_owning_is_a_floor_with_what_it_leaves_out_en(offline_advisor):
    text = lead(ask(offline_advisor, "Roughly what would renting one A800 cost me per hour?"))
    assert "At least" in text and "floor" in text and "margin" in text and "staff" in text


def test_a_rent_estimated_from_owning_is_a_floor_with_what_it_leaves_out_zh(offline_advisor):
    text = lead(ask(offline_advisor, "租一张A800一小时大概多少钱？"))
    assert "至少" in text and "下限" in text and "利润" in text and "人员成本" in text


# ---- the verdict across rent tiers ----
def test_rent_or_buy_says_where_the_verdict_flips_across_tiers_en(offline_advisor):
    response = ask(offline_advisor, "Eight H100s for three years, busy about 60% of the time: buy them or rent?")
    text = "\n\n".join(response.answer.split("\n\n")[:3])  # the verdict, its reasons and, right under them, where it turns
    assert "Specialist GPU cloud rate" in text and "So the tier decides" in text and "Specialist GPU cloud" in text.split("not against")[-1]
    assert "From your message" in response.summary


def test_rent_or_buy_says_where_the_verdict_flips_across_tiers_zh(offline_advisor):
    # a Chinese question is a mainland buyer's: the note that the H100 is not sold new there sits between verdict and reasons
    text = "\n\n".join(ask(offline_advisor, "8张H100用三年，大概六成时间在跑，买还是租划算？").answer.split("\n\n")[:4])
    assert "所以结论取决于租哪一档" in text


# ---- hosting in a site thread ----
def test_plan_facility_prices_colocation_on_the_it_load_at_the_sourced_rate():
    r = plan_facility(FacilityPlanRequest(gpu="H100", servers=2), CATALOG, shipped_facility_book(), BOOK)
    rate = shipped_tco_defaults()["colo_price_per_kw_month_usd"]
    assert r.colocation is not None and r.colocation.per_kw_month == rate.value
    assert abs(r.colocation.per_month - rate.value * r.it_kw) < 1e-6
    assert abs(r.colocation.hosting_per_month - r.colocation.per_month - r.cost_per_month) < 1e-6
    assert r.colocation.urls and r.colocation.date and not r.colocation.converted


def test_plan_facility_in_yuan_says_the_colocation_rate_was_converted():
    r = plan_facility(FacilityPlanRequest(gpu="H100", servers=2, currency="CNY"), CATALOG, shipped_facility_book(), BOOK)
    assert r.colocation.converted and abs(r.colocation.per_kw_month - 180 * r.colocation.usd_to_cny) < 1e-6


SITE_EN = "Three servers with 8x H200 each are going into a data centre: how much power, how many racks and what cooling do they need?"
SITE_ZH = "我们有3台8卡H200服务器要进数据中心，需要多少供电、几个机柜，散热怎么解决？"


def test_hosting_asked_after_a_site_plan_is_colocation_on_that_plan_en(offline_advisor):
    response = ask(offline_advisor, "What would hosting them cost us per month?", SITE_EN)
    text = lead(response)
    assert text.startswith("**Hosting 3 ×") and "per kW-month" in text and "colocation" in text
    assert "plan_facility" in [c.name for c in response.tool_calls]
    assert any("cbre.com" in url for s in response.sources for url in s.urls)


def test_hosting_asked_after_a_site_plan_is_colocation_on_that_plan_zh(offline_advisor):
    text = lead(ask(offline_advisor, "那托管费一个月要多少？", SITE_ZH))
    assert text.startswith("**托管 3 台") and "每 kW 每月" in text and "元/美元" in text


# ---- figures without a dated source ----
def test_the_cny_rate_cites_a_page_a_reader_can_open():
    rate = shipped_tco_defaults()["usd_to_cny"]
    assert any("fred.stlouisfed.org" in s.url and s.date for s in rate.sources)


def test_an_assumed_sample_length_is_said_in_the_details_with_its_date_en(offline_advisor):
    answer = ask(offline_advisor, "How long would a LoRA fine-tune of Qwen2.5-7B take on one A100 with 40k samples?").answer
    assert "Sample length 1,024 tokens: a planning assumption (set 2026-12-07)" in answer


def test_an_assumed_sample_length_is_said_in_the_details_with_its_date_zh(offline_advisor):
    answer = ask(offline_advisor, "用一张A100对Qwen2.5-7B做LoRA微调，4万条样本要多久？").answer
    assert "每条样本 1,024 token：这是规划用的假设值（2026-12-07 设定）" in answer
