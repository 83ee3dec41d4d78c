"""Cost questions the rent-or-buy answer used to get wrong (issue 35 item 3, issue 36 item 4): how many years GPUs
should be depreciated over gets the economic-versus-book-life card, not a payback; "and renting?" after a rent-or-buy
leads with the renting side; a multi-year payback says rents have been falling; hourly rates keep their cents.
Own wording, both languages."""

from __future__ import annotations

import pytest

from advisor.markdown import money
from knowledge.rent_trend import rent_trend
from tests.threads import ask, calls

BUY_OR_RENT_EN = "We're weighing buying eight H100s against renting them for three years at about 70% load. Which is cheaper?"
BUY_OR_RENT_ZH = "八张H100，买下来用三年还是租，利用率七成左右，哪个省钱"


# --- depreciation life: the card, not a payback ------------------------------------------------------------------


@pytest.mark.parametrize("question", [
    "Our accountants propose depreciating the GPU servers across six years. Is that sensible?",
    "is a 3-year depreciation too aggressive for our H100 servers?",
])
def test_a_depreciation_life_question_gets_economic_versus_book_life_in_english(offline_advisor, question):
    response = ask(offline_advisor, question)
    lead = response.summary[:400]  # the card's title, then its verdict
    assert "4–5 years" in lead and "book life" in lead
    assert "20–40%" in response.answer  # resale at the end of the first service life
    assert not response.summary.startswith("**Payback")


@pytest.mark.parametrize("question", ["显卡服务器的折旧期定多少年比较靠谱？", "财务打算把GPU按六年摊销，现实吗"])
def test_a_depreciation_life_question_gets_economic_versus_book_life_in_chinese(offline_advisor, question):
    response = ask(offline_advisor, question)
    lead = response.summary[:200]
    assert "4–5 年" in lead and "账面" in lead
    assert "20–40%" in response.answer


def test_stating_a_life_after_a_rent_or_buy_still_recomputes_it(offline_advisor):
    en = ask(offline_advisor, "stretch that to 5 years", BUY_OR_RENT_EN)
    assert any(call.args["lifetime_years"] == 5 for call in calls(en, "compute_tco"))  # the earlier plan is re-run beside it
    zh = ask(offline_advisor, "按五年折旧呢", BUY_OR_RENT_ZH)
    assert any(call.args["lifetime_years"] == 5 for call in calls(zh, "compute_tco"))


# --- "and if we rent?": the renting side first ----------------------------------------------------------------------


def _renting_lead_matches_the_tool(response):
    """The lead's monthly figures are the tool's; returns the lead and whether renting is the cheaper side."""
    result = calls(response, "compute_tco")[-1].result
    first = response.summary.split("\n\n")[0]
    rent = money(result["cloud_monthly_cost"], result["currency"])
    own = money(result["own_monthly_cost"], result["currency"])
    assert rent in first and own in first
    return first, result["verdict"] == "rent"


def test_asking_to_rent_instead_leads_with_the_rent_in_english(offline_advisor):
    response = ask(offline_advisor, "suppose we lease instead?", BUY_OR_RENT_EN)
    first, renting_cheaper = _renting_lead_matches_the_tool(response)
    assert first.startswith("Renting the same 8 GPUs")
    assert ("renting is cheaper" in first) == renting_cheaper and ("owning stays cheaper" in first) == (not renting_cheaper)


def test_asking_to_rent_instead_leads_with_the_rent_in_chinese(offline_advisor):
    response = ask(offline_advisor, "那要是租的话呢？", BUY_OR_RENT_ZH)
    first, renting_cheaper = _renting_lead_matches_the_tool(response)
    assert first.startswith("租同样的 8 张卡")
    assert ("租更便宜" in first) == renting_cheaper and ("自购更便宜" in first) == (not renting_cheaper)


def test_the_first_rent_or_buy_answer_does_not_open_with_the_renting_side(offline_advisor):
    assert not ask(offline_advisor, BUY_OR_RENT_EN).summary.startswith("Renting the same")
    assert not ask(offline_advisor, BUY_OR_RENT_ZH).summary.startswith("租同样的")


# --- rents have been falling --------------------------------------------------------------------------------------


def test_the_rent_trend_data_is_dated_and_falling():
    trend = rent_trend()
    assert trend.now.price < trend.then.price and trend.sources
    assert 0 < trend.fall_pct < 100


def test_a_one_year_comparison_has_no_rent_trend_line(offline_advisor):
    assert "Rents have been falling" not in ask(offline_advisor, "buy or rent four H100s for one year?").answer
    assert "租金一直在降" not in ask(offline_advisor, "四张H100只用一年，买还是租？").answer


# --- hourly rates keep their cents -------------------------------------------------------------------------------


@pytest.mark.parametrize(("amount", "currency", "shown"), [(2.69, "USD", "$2.69"), (2.7, "USD", "$2.70"), (3.0, "USD", "$3.00"),
                                                            (13.5, "CNY", "¥13.50"), (345_000, "USD", "$345,000")])
def test_money_below_a_hundred_shows_cents(amount, currency, shown):
    assert money(amount, currency) == shown


def test_a_quoted_hourly_rent_is_echoed_with_cents(offline_advisor):
    en = ask(offline_advisor, "8x H100 server for $260k versus renting at $2.69 per GPU-hour, 3 years, who wins?")
    assert "$2.69" in en.answer and "$3/" not in en.answer
    zh = ask(offline_advisor, "8卡H100整机26万美元，对比每卡时2.69美元的租金，用三年，哪个划算")
    assert "$2.69" in zh.answer
