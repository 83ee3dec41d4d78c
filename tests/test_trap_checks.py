"""Trap checks (issue #35): what an experienced engineer sees before the calculator's number becomes the verdict.

A consumer card proposed for a regulated or client-site production service, a quoted price far from the market, and a
measured speed against the expected range each lead the answer, in both languages. Wording here is our own."""

from __future__ import annotations

from knowledge.catalog import load_catalog
from knowledge.trap_checks import trap_checks
from tests.threads import ask, calls


def _lead(response) -> str:
    return response.answer.split("\n\n")[0]


# --- the data the checks stand on

def test_catalog_says_which_cards_are_consumer_and_which_have_ecc():
    catalog = load_catalog()
    assert catalog.gpu("rtx-4090").segment == "consumer" and catalog.gpu("rtx-4090").ecc is False
    assert catalog.gpu("rtx-3090").ecc is False
    assert catalog.gpu("h100-sxm").ecc is True and catalog.gpu("l40s").ecc is True and catalog.gpu("l4").ecc is True
    data = trap_checks()
    assert 0 < data.price.low_ratio < 1 < data.price.high_ratio
    licence = next(f for f in data.deployment.failures if f.id == "licence")
    assert licence.source is not None and licence.source.url.startswith("https://") and licence.source.date
    for market, ids in data.deployment.alternatives.items():
        for gpu_id in ids:
            card = catalog.gpu(gpu_id)
            assert card.segment != "consumer" and card.ecc, (market, gpu_id)


# --- 1. deployment context

def test_geforce_cards_for_an_insurer_lead_with_why_the_plan_fails(offline_advisor):
    response = ask(offline_advisor, "An insurance company wants our claims assistant (Qwen2.5-7B) running 24/7 in their data center "
                                    "with a 99.95% availability SLA. We'd put three RTX 3090 in one box. Is that enough for 30 agents?")
    lead = _lead(response)
    assert "GeForce" in lead and "fails" in lead
    head = response.answer[:2500]
    assert "licence" in head.lower() and "ECC" in head and "support" in head
    assert "at least 2 independent servers" in head and "4.4 hours" in head
    assert "Data-centre alternative" in head
    assert any(call.name == "estimate_server_price" for call in response.tool_calls)


def test_geforce_cards_for_a_government_client_in_chinese(offline_advisor):
    response = ask(offline_advisor, "给某市政务服务中心做本地化部署，对外服务，可用性要求99.9%，准备一台机器插两张4090跑Qwen2.5-14B，能撑住20人同时用吗？")
    lead = _lead(response)
    assert "GeForce" in lead and "不成立" in lead
    head = response.answer[:1500]
    assert "授权" in head and "ECC" in head and "至少要 2 台" in head and "数据中心方案" in head and "L20" in head


def test_a_lab_on_geforce_cards_gets_no_deployment_lead(offline_advisor):
    response = ask(offline_advisor, "Can two RTX 4090 run Qwen2.5-14B for my own experiments at home?")
    assert "GeForce (consumer) cards" not in response.answer


# --- 2. price plausibility

def test_a_server_far_below_market_is_suspicious_before_any_payback(offline_advisor):
    response = ask(offline_advisor, "Someone offers an 8x H100 SXM server for $90,000. Buy it, or keep renting H100s at $2.2 per GPU-hour?")
    lead = _lead(response)
    assert lead.startswith("**This price is suspicious") and "$90,000" in lead and "%" in lead
    head = response.answer[:2000]
    assert "PCIe" in head and "refurbished" in head and "serial numbers" in head


def test_a_server_far_below_market_in_chinese(offline_advisor):
    response = ask(offline_advisor, "渠道商报价一台8卡H100服务器55万元，要不要买？")
    lead = _lead(response)
    assert lead.startswith("**这个价格可疑") and "%" in lead
    head = response.answer[:1500]
    assert "水货" in head and "序列号" in head


def test_a_server_far_above_market_is_flagged(offline_advisor):
    response = ask(offline_advisor, "We were quoted $600,000 for one 8x H100 SXM server, is buying worth it over renting?")
    assert _lead(response).startswith("**This price is above market")


def test_a_market_price_gets_no_price_lead(offline_advisor):
    response = ask(offline_advisor, "An 8x H100 SXM server is quoted at $260,000: buy or rent for 3 years?")
    assert "This price is" not in response.answer


# --- 3. is this speed normal?

def test_a_low_measured_speed_leads_with_low_the_gap_and_the_checks(offline_advisor):
    response = ask(offline_advisor, "Qwen2.5-32B AWQ on two RTX 4090 with vLLM tensor parallel: one user gets 9 tok/s. Is that normal?")
    lead = _lead(response)
    assert lead.startswith("**Low") and "% below" in lead and "expected range" in lead
    assert "Marlin" in response.answer and "enforce-eager" in response.answer and "topo -m" in response.answer
    assert "one user cannot go above" in response.answer


def test_a_low_measured_speed_in_chinese(offline_advisor):
    response = ask(offline_advisor, "两张4090用vLLM张量并行跑Qwen2.5-32B AWQ，单用户只有9 token/s，正常吗？")
    lead = _lead(response)
    assert lead.startswith("**偏低") and "预期区间" in lead and "%" in lead
    assert "Marlin" in response.answer and "P2P" in response.answer


def test_a_normal_speed_says_the_range(offline_advisor):
    response = ask(offline_advisor, "Llama 3.1 8B on one H100 with vLLM, single user, we measure 150 tokens/s. Normal?")
    lead = _lead(response)
    assert "expected" in lead and "–" in lead
