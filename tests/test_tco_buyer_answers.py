"""Rent-or-buy answers a buyer forwards (issue 35 item 3): cards already owned are weighed on running cost, a cost
per token is a band per rental tier, stated colocation and staff figures are used, reservations are priced at the
committed rate, and a follow-up says what its change did to the payback. Own wording, both languages."""

from __future__ import annotations

import re

import pytest

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from knowledge.clouds import load_price_book
from tests.threads import ask, calls
from tools.cost.tco import TcoRequest, compute_tco
from tools.cost.token_cost import TokenCostRangeRequest, token_cost_range

CATALOG = load_catalog()
BOOK = load_price_book()


def tco(**fields):
    return compute_tco(TcoRequest(**fields), CATALOG, BOOK)




# --- the tools ---------------------------------------------------------------------------------------------------


def test_owned_cards_are_weighed_on_running_cost_alone():
    r = tco(gpu="a100-sxm-80gb", gpus_per_server=8, servers=2, owned=True)
    k = r.keep_or_rent
    assert k is not None and k.running_cost_per_month == pytest.approx(r.own_monthly_opex)
    # the purchase is sunk: keeping costs less than owning with the purchase amortised
    assert k.running_cost_per_month < r.own_monthly_cost
    assert all(row.keeping_saves == pytest.approx(row.monthly_rent - k.running_cost_per_month) for row in k.tiers)
    assert k.keep == (min(row.monthly_rent for row in k.tiers) > k.running_cost_per_month)
    assert tco(gpu="a100-sxm-80gb", gpus_per_server=8, servers=2).keep_or_rent is None


def test_owned_cards_with_dear_power_and_little_use_are_better_rented():
    r = tco(gpu="a100-sxm-80gb", gpus_per_server=8, owned=True, utilisation_pct=5, electricity_price=0.5, staff_cost_per_month=20_000)
    assert r.keep_or_rent.keep is False


def test_commitments_and_leases_do_not_shrink_with_use():
    busy, idle = tco(gpu="h100-sxm", utilisation_pct=90), tco(gpu="h100-sxm", utilisation_pct=30)
    for a, b in zip(busy.tier_paybacks, idle.tier_paybacks, strict=True):
        if a.billed_every_hour:
            assert a.payback_months == pytest.approx(b.payback_months)
        else:
            assert a.monthly_rent_avoided == pytest.approx(b.monthly_rent_avoided * 3)
    assert any(row.billed_every_hour for row in busy.tier_paybacks) and any(not row.billed_every_hour for row in busy.tier_paybacks)


def test_a_named_tier_prices_the_rent_and_falls_back_when_the_card_has_none():
    reserved = tco(gpu="h100-sxm", rent_tier="hyperscaler_3yr", cloud_committed=True)
    rate = next(row.price_per_gpu_hour for row in reserved.tier_paybacks if row.tier == "hyperscaler_3yr")
    assert reserved.rent_tier == "hyperscaler_3yr"
    assert reserved.cloud_monthly_cost == pytest.approx(8 * 730 * rate)
    bare = next(g for g in CATALOG.gpus if g.cloud_price is not None and g.purchase_price is not None and g.tdp_w
                and "hyperscaler_3yr" not in {rate.tier for rate in BOOK.clouds.for_gpu(g.id)})
    assert tco(gpu=bare.id, rent_tier="hyperscaler_3yr").rent_tier is None  # no such figure for the card: the catalog's rent


def test_owning_cost_alone_needs_no_rental_price():
    cardless = next(g for g in CATALOG.gpus if g.cloud_price is None and g.purchase_price is not None and g.tdp_w)
    with pytest.raises(AdvisorError):
        tco(gpu=cardless.id)
    assert tco(gpu=cardless.id, rent_needed=False).own_cost_per_used_gpu_hour > 0


def test_a_colocation_bill_is_spread_over_the_servers_kw():
    r = tco(gpu="h100-sxm", servers=2, server_max_kw=10, colo_per_month=5_000)
    assert next(a.value for a in r.assumptions if a.key == "colo_price_per_kw_month") == pytest.approx(250)
    assert next(i.value for i in r.items if i.key == "colocation") == pytest.approx(5_000)


def test_token_cost_band_scales_with_the_rate_and_not_the_order_given():
    band = token_cost_range(TokenCostRangeRequest(low_per_gpu_hour=4, high_per_gpu_hour=2, gpus=2, output_tokens_per_s=1000))
    assert band.low == pytest.approx(2 * 2 / 3.6e6 * 1e6) and band.high == pytest.approx(2 * band.low)


# --- the answers -------------------------------------------------------------------------------------------------


def test_cost_per_million_tokens_on_one_card_is_a_band_per_tier(offline_advisor):
    en = offline_advisor.answer("roughly what do a million generated tokens cost running llama 3.1 70b on four rented h100s?", [])
    assert en.summary.startswith("**≈ $") and "per million output tokens" in en.summary.split("\n")[0]
    assert calls(en, "rental_prices") and not calls(en, "compute_tco")
    zh = offline_advisor.answer("两张H200跑Qwen2.5-72B，每百万token大概要多少钱？", [])
    assert zh.summary.startswith("**每百万输出 token 约 ¥") and "–" in zh.summary.split("\n")[0]


def test_a_card_no_tier_prices_still_gets_a_labelled_cost_per_token(offline_advisor):
    zh = offline_advisor.answer("H20部署Qwen2.5-32B，每百万token成本多少？", [])
    assert zh.summary.startswith("**每百万输出 token 至少约 ¥") and "估算" in zh.summary and "下限" in zh.summary and "⚠️" not in zh.summary


def test_cards_already_owned_are_kept_or_rented_on_running_cost(offline_advisor):
    en = offline_advisor.answer("We already have 16 A100 80GB in our racks. Keep running them or move to rented GPUs?", [])
    (call,) = calls(en, "compute_tco")
    assert call.args["owned"] is True
    assert en.summary.startswith(("**Keep them", "**Renting is cheaper")) and "spent whether you keep them" in en.summary
    zh = offline_advisor.answer("公司手上已经有8张4090，利用率只有两成，继续用还是租云？", [])
    assert zh.summary.startswith(("**建议继续用自有卡", "**租更划算")) and "沉没成本" in zh.summary


def test_stated_colocation_and_staff_are_used_not_read_as_a_purchase(offline_advisor):
    en = offline_advisor.answer("Buy or rent 16 H100 over 4 years? Colo runs $190 per kW-month and a part-time admin costs $6k/month.", [])
    args = next(iter(calls(en, "compute_tco"))).args
    assert args["colo_price_per_kw_month"] == 190 and args["staff_cost_per_month"] == 6000
    assert "server_price" not in args and "cloud_monthly_bill" not in args
    assert "colocation $190/kW-month" in en.summary and "staff $6,000 a month" in en.summary
    zh = offline_advisor.answer("16张H100自建还是租云，用四年，机房托管每千瓦每月850元，运维工程师每月1.8万元", [])
    args = next(iter(calls(zh, "compute_tco"))).args
    assert args["colo_price_per_kw_month"] == 850 and args["staff_cost_per_month"] == 18000


def test_a_follow_up_leads_with_the_payback_before_and_after(offline_advisor):
    first = "rent or buy 8 H100 over 3 years at 70% use?"
    en = ask(offline_advisor, "what about at 35%?", first)
    assert "→" in en.summary.split("\n")[0] and "the verdict" in en.summary.split("\n")[0]
    zh = ask(offline_advisor, "利用率降到三成呢？", "8张H100自建还是租，三年，利用率七成")
    lead = zh.summary.split("\n")[0]
    # against a China lease, paid for every hour, the payback does not move: said in one line, never as "47 → 47"
    assert "回本时间" in lead and ("→" in lead or "仍为" in lead)
    assert not re.search(r"(\d+(?:\.\d+)?) → \1 个月", lead)


def test_a_reservation_is_priced_at_the_committed_rate(offline_advisor):
    en = ask(offline_advisor, "and if we took a 3-year reservation instead?", "buy or rent 8x H200 over 3 years")
    assert next(iter(calls(en, "compute_tco"))).args["rent_tier"] == "hyperscaler_3yr"
    zh = ask(offline_advisor, "要是签三年包年呢？", "8卡H100自建还是租，用三年")
    assert next(iter(calls(zh, "compute_tco"))).args["rent_tier"] == "auto"  # a China buyer's 包年 is the China lease


def test_self_build_or_cloud_with_figures_is_a_calculation(offline_advisor):
    zh = offline_advisor.answer("8卡H800自建还是上云划算？整机两百万，用三年", [])
    assert calls(zh, "compute_tco") and zh.summary.startswith("**")


def test_a_quoted_multiple_is_checked_per_tier():
    r = tco(gpu="h100-sxm", claimed_cloud_ratio=2.5)
    check = r.ratio_check
    assert check is not None and len(check.tiers) == len(r.tier_paybacks)
    for tier, row in zip(check.tiers, r.tier_paybacks, strict=True):
        assert tier.ratio == pytest.approx(row.monthly_rent_avoided / r.own_monthly_cost)
    assert check.holds_at_your_use == any(t.ratio * 1.1 >= 2.5 for t in check.tiers)
    assert tco(gpu="h100-sxm", claimed_cloud_ratio=40).ratio_check.holds_at_your_use is False
    assert tco(gpu="h100-sxm").ratio_check is None


def test_a_quoted_multiple_gets_a_verdict_and_its_number_is_no_gpu_count(offline_advisor):
    en = offline_advisor.answer("I keep hearing GPU clouds cost 4x more than running your own H100 server. Is that so?", [])
    args = next(iter(calls(en, "compute_tco"))).args
    assert args["claimed_cloud_ratio"] == 4 and args["gpus_per_server"] == 8
    assert en.summary.startswith("**“Cloud costs 4× owning”")
    zh = offline_advisor.answer("听说租卡比自己买贵两三倍，8卡H100是这样吗？", [])
    assert next(iter(calls(zh, "compute_tco"))).args["claimed_cloud_ratio"] == 3
    assert zh.summary.startswith("**“云比自建贵 3 倍”")


def test_the_electricity_line_needs_no_rental_price(offline_advisor):
    unpriced = next(g for g in CATALOG.gpus if g.cloud_price is None and g.purchase_price is not None and g.tdp_w
                    and not BOOK.clouds.for_gpu(g.id) and g.memory_gb >= 80)
    first = f"buy one 8x {unpriced.name} server or rent, payback?"
    en = ask(offline_advisor, "and the power bill?", first)
    assert en.summary.startswith("**Electricity: $")
    zh = ask(offline_advisor, "电费多少？", f"买一台8卡{unpriced.name}和租比，多久回本？")
    assert zh.summary.startswith("**电费：每月 ¥")


# --- a quoted rent for cards already owned ---------------------------------------------------------------------------


def test_owned_cards_are_compared_with_the_rent_quoted_not_the_catalog_tiers():
    r = tco(gpu="h100-sxm", gpus_per_server=8, servers=2, owned=True, cloud_price_per_gpu_hour=1.9)
    assert [row.price_per_gpu_hour for row in r.keep_or_rent.tiers] == [pytest.approx(1.9)]


@pytest.mark.parametrize(
    ("message", "rate"),
    [
        ("Our 24 H100s sit in a colo cage today; should we keep them or switch to a cloud offering $1.95/GPU-hour?", 1.95),
        ("我们托管机房里有24张H100，是继续用还是换到云上？云上报价每卡每小时14元", 14.0),
    ],
)
def test_an_hourly_rate_beside_colocation_words_is_the_rent_not_the_colocation_bill(offline_advisor, message, rate):
    response = ask(offline_advisor, message)
    (call,) = calls(response, "compute_tco")
    assert call.args.get("cloud_price_per_gpu_hour") == pytest.approx(rate)
    assert call.args.get("colo_per_month") is None
    assert call.result["keep_or_rent"]["tiers"][0]["price_per_gpu_hour"] == pytest.approx(rate)
