"""Rent-or-buy answers built on the figures the user states: their bill, their purchase price, their commitment and
their horizon reach the calculator unchanged, and the first sentence is the payback at their rent. Own wording."""

from __future__ import annotations

import pytest

from advisor.markdown import money, number


def tco_call(response):
    # the comparison answered; a follow-up then re-runs the one before it, to say what changed
    call = next(c for c in response.tool_calls if c.name == "compute_tco")
    return call


def payback_at(result):
    return result["capex"] / (result["cloud_monthly_cost"] - result["own_monthly_opex"])


def test_a_monthly_bill_and_a_purchase_price_are_used_as_stated_en(offline_advisor):
    response = offline_advisor.answer("Our cloud bill for 8 H100s is $55k a month. One server would cost us roughly $300k to buy. How long until it pays back?")
    call = tco_call(response)
    assert call.args["cloud_monthly_bill"] == 55_000 and call.args["server_price"] == 300_000
    assert call.args.get("cloud_price_per_gpu_hour") is None and call.args["network_overhead_pct"] == 0
    r = call.result
    assert r["capex"] == 300_000 and r["cloud_monthly_cost"] == pytest.approx(55_000)
    assert response.answer.startswith(f"**Payback ≈ {number(payback_at(r))} months** at your $55,000 a month rent")
    assert "taken as the whole purchase" in response.answer


def test_a_monthly_bill_and_a_purchase_price_are_used_as_stated_zh(offline_advisor):
    response = offline_advisor.answer("8张H100在云上每个月租金差不多9万，自己买一台大概200万，多长时间能回本？")
    call = tco_call(response)
    assert call.args["cloud_monthly_bill"] == 90_000 and call.args["server_price"] == 2_000_000 and call.args["currency"] == "CNY"
    r = call.result
    assert r["cloud_monthly_cost"] == pytest.approx(90_000)  # a bill is what is paid: no utilisation scales it
    assert response.answer.startswith(f"**约 {number(payback_at(r))} 个月回本**（按您每月 ¥90,000 的租金）")
    assert "视为全部采购" in response.answer
    assert call.args.get("claimed_payback_months") is None


def test_a_reservation_is_billed_every_hour_and_its_term_is_not_the_life_en(offline_advisor):
    response = offline_advisor.answer("We hold a 3-year reservation on 8 H100 at $2.2/GPU-hr. Buying a server is $310k. Should we buy instead?")
    call = tco_call(response)
    assert call.args["cloud_committed"] is True and call.args["cloud_price_per_gpu_hour"] == 2.2
    assert call.args.get("lifetime_years") is None  # the reservation's term prices the rent; the servers' life is the default
    r = call.result
    assert r["cloud_monthly_cost"] == pytest.approx(8 * 730 * 2.2)
    assert "reserved and billed every hour" in response.answer.split("\n\n")[1]  # the reasons under the one-sentence verdict


def test_a_yearly_package_is_billed_every_hour_zh(offline_advisor):
    response = offline_advisor.answer("我们包年租了8张H100，每卡时16块，自己买一台要220万，多久能回本？")
    call = tco_call(response)
    assert call.args["cloud_committed"] is True and call.args["cloud_price_per_gpu_hour"] == 16
    r = call.result
    assert r["cloud_monthly_cost"] == pytest.approx(8 * 730 * 16)
    first = response.answer.split("\n\n")[0]
    assert first.startswith(f"**约 {number(payback_at(r))} 个月回本**") and "按全部小时计费" in first


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("renting 8 A100 costs us $9k per month, buying is $180k, and we'd keep it 2 to 3 years. Is buying worth it?", "kept 2–3 years"),
        ("租8卡A100每月6万，买的话140万，打算用2-3年，买还是租？", "使用 2–3 年"),
    ],
)
def test_a_range_of_years_is_the_horizon_and_its_ends_are_tried(offline_advisor, message, said):
    response = offline_advisor.answer(message)
    call = tco_call(response)
    assert call.args["lifetime_years"] == pytest.approx(2.5) and tuple(call.args["lifetime_bounds_years"]) == pytest.approx((2, 3))
    assert call.args.get("utilisation_pct") is None  # the "2" of the range is no utilisation
    assert all((d["low_input"], d["high_input"]) == pytest.approx((2, 3)) for d in call.result["sensitivity_details"] if d["key"] == "lifetime_years")
    assert said in response.answer


def test_a_yuan_bill_in_an_english_question_stays_in_yuan(offline_advisor):
    response = offline_advisor.answer("We pay ¥80,000 a month to rent 8 H100 in Shanghai, and buying one would be ¥2.1M. What's the payback?")
    call = tco_call(response)
    assert call.args["currency"] == "CNY" and call.args["cloud_monthly_bill"] == 80_000
    assert response.answer.startswith("**Payback ≈ ") and f"your {money(80_000, 'CNY')} a month rent" in response.answer
    assert "$" not in response.answer.split("\n\n")[0]


def test_a_rent_below_the_running_cost_never_pays_back_and_says_what_would(offline_advisor):
    response = offline_advisor.answer("we rent 8 H100 for $3k a month; buying the server would be $300k. when would buying break even?")
    r = tco_call(response).result
    assert r["payback_months"] is None
    first = response.answer.split("\n\n")[0]
    assert first.startswith("**Rent: buying never pays back** at your $3,000 a month rent")
    assert money(r["rent_to_pay_back_in_horizon"], "USD") in first


@pytest.mark.parametrize(
    ("question", "capex"),
    [("buying two 8-gpu h100 boxes would run us roughly $620k; we spend $50k a month renting 16 h100s. when does buying pay off?", 620_000),
     ("自建的话两台8卡H100大概要花450万，现在云上16卡每月租金40万，几个月能回本", 4_500_000)],
)
def test_a_price_beside_several_servers_is_read_as_the_total_when_that_is_nearer_the_catalog(offline_advisor, question, capex):
    response = offline_advisor.answer(question)
    r = tco_call(response).result
    assert r["capex"] == pytest.approx(capex, rel=0.01)  # not twice the price said
    assert any(a["key"] == "server_price_is_total" for a in r["assumptions"])
