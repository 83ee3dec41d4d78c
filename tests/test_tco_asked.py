"""TCO questions answered as asked (issue 35, the blind review's TCO causes): a comparison of rent tiers with nothing
bought gets each tier at the stated use, not a rent-or-buy payback; GPU-hours after a card's name are read as use; a
question about where a rent is heading leads with the trend, today's price as its baseline. Own wording, both languages."""

from __future__ import annotations

import pytest

from advisor.nlu.tco_said import gpu_hours_used, rent_tiers_named
from tests.threads import ask, calls


# --- GPU-hours said after a card's name --------------------------------------------------------------------------


@pytest.mark.parametrize(("message", "hours", "per"), [
    ("our team burns roughly 450 A100 GPU-hours per month", 450, "month"),
    ("每个月大概用300个H100卡时", 300, "month"),
    ("a 2,000 H200 GPU-hour job", 2000, None),
    ("120 gpu-hours a week", 120, "week"),
])
def test_gpu_hours_after_a_card_name_are_the_amount_before_the_name(message, hours, per):
    used = gpu_hours_used(message)
    assert used is not None and used.hours == hours and used.per == per


def test_a_card_name_alone_before_gpu_hours_is_no_amount():
    assert gpu_hours_used("what do H100 GPU-hours cost on Lambda?") is None


# --- rent tiers compared, nothing bought -------------------------------------------------------------------------


@pytest.mark.parametrize(("message", "tiers"), [
    ("Is Vast.ai reliable enough for our training, or should we stick with GCP?", {"hyperscaler", "marketplace"}),
    ("spot instances or a 1-year savings plan for inference?", {"committed", "marketplace"}),
    ("用AutoDL还是阿里云包年？", {"hyperscaler", "committed", "marketplace"}),
])
def test_rent_tiers_are_read_from_cue_data(message, tiers):
    assert tiers <= set(rent_tiers_named([message]))


TIERS_EN = "We use about 900 A100 GPU-hours a month for fine-tuning. Is a community host like Vast good enough, or should we rent from Azure?"
TIERS_ZH = "我们每月大概用800个H100卡时做微调，租社区算力平台（比如Vast）可以吗，还是继续用腾讯云？"


def test_a_rent_tier_comparison_gets_each_tier_at_the_use_in_english(offline_advisor):
    response = ask(offline_advisor, TIERS_EN)
    assert not calls(response, "compute_tco")  # nothing bought: no payback
    market = calls(response, "rental_prices")
    assert market and market[0].args["gpu_hours"] == pytest.approx(900)
    lead = response.summary.split("\n")[0]
    assert "cheapest reliable tier" in lead and "900 GPU-hours a month" in lead
    for words in ("Hyperscaler on-demand", "Marketplace", "What decides besides the price", "SLA", "egress"):
        assert words in response.answer


def test_a_rent_tier_comparison_gets_each_tier_at_the_use_in_chinese(offline_advisor):
    response = ask(offline_advisor, TIERS_ZH)
    assert not calls(response, "compute_tco")
    market = calls(response, "rental_prices")
    assert market and market[0].args["gpu_hours"] == pytest.approx(800)
    lead = response.summary.split("\n")[0]
    assert "最便宜的可靠档位" in lead and "800 卡时" in lead
    for words in ("公有云按需", "算力市场/社区主机", "价格之外的取舍", "SLA"):
        assert words in response.answer


def test_reserved_against_on_demand_alone_keeps_the_reservation_answer(offline_advisor):
    response = ask(offline_advisor, "Reserved H100s at $3.1/hr for a year, or on-demand at $5.5/hr? We use about 2000 GPU-hours a month.")
    assert calls(response, "reserved_or_on_demand") and not response.summary.startswith("**For ")


def test_a_purchase_named_is_no_rent_tier_comparison(offline_advisor):
    response = ask(offline_advisor, "Buy 8 H100s for $290k or rent them on AWS on-demand for 3 years at 70% use?")
    assert calls(response, "compute_tco")


# --- where a rent is heading -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("message", "opens", "contract", "baseline"), [
    ("Are H100 rents likely to come down over the next 12 months? Thinking about locking in a one-year contract.",
     "**Probably lower", "1-year contract", "baseline"),
    ("H100租金接下来一年会不会降？我们在纠结要不要签一年的合同。", "**一年后大概率更低", "一年合同", "基准"),
])  # fmt: skip
def test_a_future_rent_question_leads_with_the_trend(offline_advisor, message, opens, contract, baseline):
    response = ask(offline_advisor, message)
    lead = response.summary.split("\n")[0]
    assert lead.startswith(opens) and "28%" in lead
    assert contract in response.answer and baseline in response.answer
    assert not calls(response, "compute_tco")


# --- self-hosting's cost per million tokens at the volume stated -------------------------------------------------


def test_self_hosting_per_million_at_the_volume_is_the_month_over_the_tokens():
    from tools.cost.api_vs_self_host import ApiVsSelfHostRequest, api_vs_self_host

    r = api_vs_self_host(ApiVsSelfHostRequest(tokens_per_day=4e6, output_share=0.2, api_input_per_m=0.2, api_output_per_m=0.2,
                                              deployment_output_tokens_per_s=1000, gpus_per_deployment=1, price_per_gpu_hour=1.0,
                                              planned_load=0.5))  # fmt: skip
    assert r.self_host_per_m_at_volume == pytest.approx(730 / (4 * 30.4))  # $730 a month over 121.6M tokens
    assert r.utilisation_at_volume_pct == pytest.approx(4e6 * 0.2 / 86_400 / 1000 * 100)
    assert r.self_host_per_m_at_volume > r.self_host_per_m_at_load  # a card mostly idle costs more per token than one kept busy


@pytest.mark.parametrize(("question", "words"), [
    ("We push about 3M tokens a day through an API at $0.15 per million. Would one A100 running Llama 3.1 8B be cheaper?", "per million tokens at your volume"),
    ("我们每天大约300万token，API每百万token 0.8元；自己拿一张4090跑Qwen2.5-7B会更便宜吗？", "按您的用量折算每百万 token"),
])
def test_api_against_self_hosting_prices_a_million_tokens_at_the_volume_said(offline_advisor, question, words):
    response = ask(offline_advisor, question)
    assert words in response.answer.casefold() or words in response.answer
    bill = calls(response, "rental_prices")
    assert bill  # the GPU side is priced from the rent tiers


@pytest.mark.parametrize(("message", "job", "no_commitment"), [
    ("Should we rent H100s on RunPod or stay on Azure for a 3-week fine-tune?", "3 weeks", "not an option"),
    ("用4张A100做一个月的微调，走按需、包年还是AutoDL这类平台？", "个月", "不适用"),
])  # fmt: skip
def test_a_job_shorter_than_a_commitment_gets_its_whole_bill_and_no_reservation(offline_advisor, message, job, no_commitment):
    """A stated job length under a year: the bill for the whole job by the hour, and a 1- or 3-year commitment is ruled
    out instead of weighed (it would be paid for the whole term)."""
    response = offline_advisor.answer(message, [])
    lead = response.summary.split("\n\n")[0]
    assert job in lead and no_commitment in lead, lead
    assert "pays against on-demand" not in lead and "比按需划算" not in lead
