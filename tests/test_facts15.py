"""facts15 (#37 leftovers): China rents of the L40S, L4, Ascend 910B/910C, MLU370-X8 and MTT S4000 from the dated
CMIS Daily audit file (the H20 still has none); the L4's passive cooler verified on a vendor page; a rent-or-buy whose
purchase is the dated estimate says so where it uses it; a CNY API bill says its USD price was converted. Our own wording."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from knowledge.clouds import load_clouds
from tests.threads import ask

AUDIT = "https://github.com/Gavinzll/compute-market-report/blob/940879f022a1a91bc9389b2e596675af4320ace1/data/audit_2026-10-10.json"
CHINA_RENTS = {  # gpu → (CNY per GPU-hour, date of the quote)
    "l40s": (2.78, "2026-10-10"),  # ¥16,000 a month for 8 cards ÷ 8 ÷ 720 h
    "l4": (8.06, "2026-10-10"),  # Volcano Engine on demand
    "ascend-910b": (2.43, "2026-09-24"),  # ¥14,000 a month for 8 cards
    "ascend-910c": (11.28, "2026-09-23"),  # ¥65,000 a month for 8 cards
    "mlu370-x8": (13.0, "2026-10-10"),  # China Telecom Cloud on demand
    "mtt-s4000": (0.5, "2026-10-10"),
}


@pytest.mark.parametrize("gpu", sorted(CHINA_RENTS))
def test_china_rent_is_dated_and_sourced(gpu):
    china = [rate for rate in load_clouds().offers(gpu) if rate.tier == "china"]
    assert len(china) == 1
    rate = china[0]
    assert (rate.price, rate.date) == CHINA_RENTS[gpu] and rate.currency == "CNY" and rate.region == "cn"
    assert rate.source.url == AUDIT and rate.offer and rate.offer_zh and rate.confidence == "L"


def test_lease_rents_are_the_monthly_server_price_per_gpu_hour():
    for gpu, monthly in (("l40s", 16_000), ("ascend-910b", 14_000), ("ascend-910c", 65_000)):
        rate = next(r for r in load_clouds().offers(gpu) if r.tier == "china")
        assert rate.billing == "lease" and rate.price == pytest.approx(monthly / 8 / 720, abs=0.01)


def test_the_h20_still_has_no_china_rent():
    assert not [rate for rate in load_clouds().offers("h20") if rate.tier == "china"]


def test_l4_cooling_is_verified_and_the_rest_stay_flagged():
    catalog = load_catalog()
    assert catalog.gpu("l4").cooling == "passive" and "cooling" not in catalog.gpu("l4").unverified
    for gpu in ("a10", "h100-nvl", "h200-nvl", "l20"):
        assert "cooling" in catalog.gpu(gpu).unverified


@pytest.mark.parametrize(("question", "said"), [
    ("Rent or buy 8 L40S for 3 years at 60% utilisation?", "an estimate: no published price for this card"),
    ("8张L40S用三年，利用率60%，租还是买？", "估算价：此卡没有公开报价"),
])
def test_an_estimated_purchase_is_called_one_where_the_payback_uses_it(offline_advisor, question, said):
    reply = ask(offline_advisor, question)
    assert said in reply.summary, reply.summary


def test_a_china_rent_answers_a_china_rent_question(offline_advisor):
    reply = ask(offline_advisor, "在国内租昇腾910B每卡每小时多少钱？")
    assert "¥2.43" in reply.summary and "2026-09-24" in reply.answer, reply.answer[:1500]
