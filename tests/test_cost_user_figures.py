"""Cost answers use the user's own figures and answer the cost decision asked (issue #35), in both languages. Own
wording: use said as GPU-hours is a use, not a count; reserved against on-demand is its own decision; a price per card
is times the cards; a stated rent prices tokens and API bills; a China buyer is told first when a card cannot be bought
new there."""

from __future__ import annotations

import pytest

from advisor.markdown import money

from advisor.nlu.tco_said import gpu_hours_used
from tools.cost.reservation import ReservationRequest, reserved_or_on_demand


def call_of(response, name):
    return next(c for c in response.tool_calls if c.name == name)


@pytest.mark.parametrize(
    ("text", "hours", "per"),
    [
        ("we burn roughly 450 GPU-hours a week on A100s", 450, "week"),
        ("each month about 1,200 gpu hours", 1200, "month"),
        ("团队每周差不多600卡时", 600, "week"),
        ("一个月大概3000卡时左右", 3000, "month"),
        ("a 5,000 GPU-hour fine-tuning job", 5000, None),
        ("rent at $2.1 per GPU-hour", None, None),  # a price per GPU-hour states no use
        ("每卡时12元", None, None),
    ],
)
def test_gpu_hours_are_read_as_use(text, hours, per):
    said = gpu_hours_used(text)
    assert (said.hours if said else None) == hours
    assert (said.per if said else None) == per


def test_reservation_tool_break_even_and_mix():
    r = reserved_or_on_demand(ReservationRequest(reserved_per_gpu_hour=2.0, on_demand_per_gpu_hour=4.0, gpu_hours_per_month=2920, peak_gpus=10))
    assert r.break_even_utilisation_pct == pytest.approx(50)
    ways = {o.way: o for o in r.options}
    assert ways["on_demand"].monthly == pytest.approx(2920 * 4.0)
    assert ways["reserve_peak"].monthly == pytest.approx(10 * 730 * 2.0)
    assert ways["mix"].reserved_gpus == 4 and ways["mix"].monthly == pytest.approx(4 * 730 * 2.0)
    assert r.best == "mix" and r.options[0].way == "mix"


def test_reservation_tool_steady_use_reserves_the_peak_and_no_use_gives_the_rule():
    steady = reserved_or_on_demand(ReservationRequest(reserved_per_gpu_hour=3.0, on_demand_per_gpu_hour=5.0, gpu_hours_per_month=8 * 730, peak_gpus=8))  # busy around the clock
    assert steady.best == "reserve_peak"
    rule = reserved_or_on_demand(ReservationRequest(reserved_per_gpu_hour=3.0, on_demand_per_gpu_hour=5.0, currency="CNY"))
    assert rule.options == [] and rule.best is None and rule.break_even_utilisation_pct == pytest.approx(60)


def test_reserved_or_on_demand_en(offline_advisor):
    response = offline_advisor.answer("Is a 1-year commitment on A100 at $1.8/hr better than on-demand at $3.6/hr? We use about 250 GPU-hours a week "
                                      "and peak at 12 GPUs.")  # fmt: skip
    call = call_of(response, "reserved_or_on_demand")
    assert call.args["reserved_per_gpu_hour"] == 1.8 and call.args["on_demand_per_gpu_hour"] == 3.6
    assert call.args["peak_gpus"] == 12 and call.args["gpu_hours_per_month"] == pytest.approx(250 * 730 / 168)
    assert not any(c.name == "compute_tco" for c in response.tool_calls)  # an hourly rate is no purchase price
    lead = response.answer.split("\n\n")[0]
    assert lead.startswith("**Mix: reserve 1×") or lead.startswith("**Stay on demand")
    assert "1.8 ÷ 3.6 = 50%" in response.answer


def test_reserved_or_on_demand_zh(offline_advisor):
    response = offline_advisor.answer("按需H100每卡时40元，包年的每卡时22元，我们每月大概用4000卡时，最多同时跑10张卡，选哪种划算？")
    call = call_of(response, "reserved_or_on_demand")
    assert call.args["reserved_per_gpu_hour"] == 22 and call.args["on_demand_per_gpu_hour"] == 40 and call.args["currency"] == "CNY"
    assert call.args["peak_gpus"] == 10 and call.args["gpu_hours_per_month"] == pytest.approx(4000)
    assert response.answer.startswith("**混合最省：预留 5 张")
    assert "22 ÷ 40 = 55%" in response.answer


def test_gpu_hours_set_utilisation_not_the_count_en(offline_advisor):
    response = offline_advisor.answer("We need roughly 600 GPU-hours a week of H100 time. Buy a single 8-GPU box at $240k or keep renting at $2.6/hr?")
    call = call_of(response, "compute_tco")
    assert call.args["servers"] == 1 and call.args["gpus_per_server"] == 8
    assert call.args["utilisation_pct"] == pytest.approx(600 * 730 / 168 / (8 * 730) * 100)
    assert call.args.get("lifetime_years") is None  # "a week" is the period of the use, not the servers' life
    assert "600 GPU-hours a week" in response.answer and "not a count of cards" in response.answer


def test_gpu_hours_set_utilisation_not_the_count_zh(offline_advisor):
    response = offline_advisor.answer("我们每个月差不多1500卡时的A100需求，自己买一台8卡服务器还是继续租？租价每卡时7元。")
    call = call_of(response, "compute_tco")
    assert call.args["servers"] == 1 and call.args["cloud_price_per_gpu_hour"] == 7
    assert call.args["utilisation_pct"] == pytest.approx(1500 / (8 * 730) * 100)
    assert "每月 1,500 卡时" in response.answer and "不是卡数" in response.answer


def test_gpu_hours_size_two_rentals_en(offline_advisor):
    response = offline_advisor.answer("L40S at $1.2/hr or A100 at $2.1/hr, for about 2000 GPU-hours a month: which rental is cheaper?")
    call = call_of(response, "compare_rentals")
    assert [o["gpus"] for o in call.args["options"]] == [3, 3]
    assert call.args["utilisation_pct"] == pytest.approx(2000 / (3 * 730) * 100)


def test_price_per_card_times_the_cards_en(offline_advisor):
    response = offline_advisor.answer("H100 PCIe cards go for $27k apiece and we'd put 8 in one server. Against renting at $2.4/hr over 3 years?")
    call = call_of(response, "compute_tco")
    assert call.args["server_price"] == pytest.approx(27_000 * 8) and call.args["servers"] == 1
    assert "$27,000 per GPU × 8 GPUs = $216,000" in response.answer


def test_price_per_card_times_the_cards_zh(offline_advisor):
    response = offline_advisor.answer("L20每张卡2.5万，装一台8卡的机器，和租比哪个划算？租的话每卡时4元。")
    call = call_of(response, "compute_tco")
    assert call.args["server_price"] == pytest.approx(25_000 * 8) and call.args["currency"] == "CNY"
    assert "每卡 ¥25,000 × 8 张" in response.answer


def test_a_server_price_read_as_a_rent_is_the_purchase_zh(offline_advisor):
    response = offline_advisor.answer("每台机器40万，打算买三台8卡A100，跟租比呢？")
    assert "必须" not in response.answer  # no range error on a 400,000-an-hour rent
    assert any(c.name == "compute_tco" and c.args.get("server_price") == 400_000 for c in response.tool_calls)


def test_a_stated_rent_prices_the_token_en(offline_advisor):
    response = offline_advisor.answer("Our H100s cost us $2.9 per GPU-hour. What's our cost per million output tokens serving Qwen2.5 7B?")
    assert not any(c.name == "compute_tco" for c in response.tool_calls)
    assert response.answer.startswith("**≈ $") and "at your $2.90/GPU-hour" in response.answer.split("\n\n")[0]


def test_a_stated_rent_prices_the_api_comparison_zh(offline_advisor):
    response = offline_advisor.answer("我们每天走GPT-4o的API大约6000万token，如果自己租H100跑Llama 3.3 70B，每卡时16元，能省钱吗？")
    lead = response.answer.split("\n\n")[0]
    assert "按您报的价每卡时 ¥16.00" in lead


def test_china_buyer_told_first_that_the_card_is_not_sold_new_zh(offline_advisor):
    response = offline_advisor.answer("公司在杭州，打算自购两台8卡H100服务器，还是租更合适？")
    first = response.answer.split("\n\n")[:3]  # in the first lines, right under the verdict
    assert any(part.startswith("**NVIDIA H100 SXM 在中国大陆买不到新卡**") and "H20" in part for part in first)


def test_china_buyer_told_first_that_the_card_is_not_sold_new_en(offline_advisor):
    response = offline_advisor.answer("We're a startup in Shenzhen. Buy one 8x H100 server or rent, priced in CNY?")
    first = response.answer.split("\n\n")[:3]
    assert any(part.startswith("**The NVIDIA H100 SXM cannot be bought new in mainland China**") for part in first)


def test_an_unrestricted_card_has_no_china_block_en(offline_advisor):
    response = offline_advisor.answer("Buy or rent 8 H100 for our lab in Texas over 3 years?")
    assert "cannot be bought new in mainland China" not in response.answer


def test_low_use_against_a_lease_gives_the_hourly_rate_that_beats_owning_zh(offline_advisor):
    response = offline_advisor.answer("我们8卡A100的利用率只有35%左右，买还是租好？")
    call = call_of(response, "compute_tco")
    r = call.result
    assert r["cloud_billing"] == "every_hour"  # the China lease
    rate = r["own_monthly_cost"] / (r["total_gpus"] * 730 * 0.35)
    assert "按量（按小时）租" in response.answer and f"**{money(rate, 'CNY')}**" in response.answer


def test_low_use_is_paid_by_the_used_hours_en(offline_advisor):
    response = offline_advisor.answer("Eight A100s in one box, busy maybe 35% of the time. Own or rent?")
    call = next(c for c in response.tool_calls if c.name == "compute_tco" and c.result is not None)
    assert call.args["utilisation_pct"] == pytest.approx(35) and call.result["cloud_billing"] == "used_hours"
