"""Ranged, labelled price estimates for parts without a catalog price, and what recommend makes of them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from knowledge.catalog import CatalogError, load_catalog
from knowledge.price_estimates import load_price_estimates, price_estimates, rent_ratio
from knowledge.serving import load_serving_data
from tools.recommend import RecommendRequest, recommend_gpus
from tools.recommend.configs import sold_counts
from tools.recommend.price_estimate import ServerPriceRequest, estimate_server_price


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_every_estimate_stands_on_dated_pages_for_a_part_without_a_catalog_price(catalog):
    data = price_estimates()
    assert data.estimates
    for estimate in data.estimates:
        assert catalog.gpu(estimate.gpu).purchase_price is None  # an estimate never hides a catalog figure
        assert estimate.derivation.en and estimate.derivation.zh
        for anchor in estimate.anchors:
            assert anchor.url.startswith(("http://", "https://")) and anchor.date[:2] == "20"


def test_an_estimate_for_a_gpu_the_catalog_lacks_is_refused(tmp_path: Path):
    raw = yaml.safe_load(Path("knowledge/price_estimates.yaml").read_text(encoding="utf-8"))
    raw["estimates"][0]["gpu"] = "imaginary-x9000"
    bad = tmp_path / "estimates.yaml"
    bad.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CatalogError, match="imaginary-x9000"):
        load_price_estimates(bad)


def test_a_second_hand_a800_server_gets_a_range_not_a_dead_end(catalog):
    price = estimate_server_price(ServerPriceRequest(gpu="A800", currency="CNY"), catalog)
    assert price.gpus == 8 and price.whole is not None
    assert price.whole.basis == "estimate" and price.whole.low < price.whole.high
    assert price.card.low == 83000 and price.card.high == 89000  # the two anchors, in yuan as published
    assert price.whole.low == pytest.approx(8 * 83000 + price.host)
    assert len(price.card.sources) == 2


def test_a_published_whole_server_quote_beats_cards_plus_host(catalog):
    price = estimate_server_price(ServerPriceRequest(gpu="H20", currency="CNY"), catalog)
    assert price.whole.basis == "quote" and price.whole.low == price.whole.high == 1_400_000


def test_dollar_and_yuan_answers_agree_at_the_stated_rate(catalog):
    yuan = estimate_server_price(ServerPriceRequest(gpu="L20", currency="CNY", usd_to_cny=7.0), catalog)
    dollars = estimate_server_price(ServerPriceRequest(gpu="L20", currency="USD", usd_to_cny=7.0), catalog)
    assert yuan.card.low == pytest.approx(dollars.card.low * 7.0, rel=1e-3)


def test_a_910c_range_spans_a_dollar_report_and_two_910b_chips(catalog):
    price = estimate_server_price(ServerPriceRequest(gpu="910C", currency="CNY", usd_to_cny=7.2), catalog)
    assert (price.card.low, price.card.high) == (pytest.approx(28000 * 7.2), pytest.approx(240000))


def test_no_price_and_no_estimate_gives_no_number(catalog):
    price = estimate_server_price(ServerPriceRequest(gpu="A10", currency="USD"), catalog)
    assert price.whole is None and price.card is None


def test_a_china_buyer_sees_estimated_parts_priced_with_their_range():
    catalog, serving = load_catalog(), load_serving_data()
    result = recommend_gpus(RecommendRequest(model="70B", region="cn", currency="CNY", top=10), catalog, serving)
    l20 = next(o for o in result.options if o.gpu_id == "l20")
    assert l20.price_estimated and l20.purchase_cost is not None
    assert l20.purchase_low <= l20.purchase_cost <= l20.purchase_high
    assert any("estimate" in r.en and "估算" in r.zh for r in l20.reasons)
    quoted = next(o for o in result.options if o.gpu_id == "h20")
    assert not quoted.price_estimated  # the distributor's whole-server price is a quote, not an estimate


def test_pairs_and_pcie_servers_come_in_standard_counts(catalog):
    for gpu in catalog.gpus:
        within_one_server = [c for c in sold_counts(gpu, 8)]
        assert not {3, 5, 6, 7} & set(within_one_server), gpu.id


def test_a_budget_never_puts_a_configuration_missing_the_load_first():
    catalog, serving = load_catalog(), load_serving_data()
    request = RecommendRequest(model="Qwen2.5-72B", region="cn", currency="CNY", budget=800_000, concurrency=50, top=5)
    result = recommend_gpus(request, catalog, serving)
    assert result.options[0].meets_target is not False
    if result.budget_short:  # the answer says the budget is short; what leads then is what does run the job
        assert result.options[0].purchase_cost == result.cheapest_cost


@pytest.mark.parametrize(
    ("question", "says", "estimate_word"),
    [
        ("what would a full 8-card A800 box set us back these days?", "whole machine", "estimate"),
        ("想问下现在一台八卡A800整机要多少钱", "整机约", "估算"),
    ],
)
def test_a_price_question_leads_with_the_machine_price_labelled(offline_advisor, question, says, estimate_word):
    response = offline_advisor.answer(question, [])
    first = response.summary.split("\n\n")[0]
    assert says in first and estimate_word in first
    assert "estimate_server_price" in [c.name for c in response.tool_calls]


@pytest.mark.parametrize(
    ("question", "status"),
    [("roughly what does an H20 server go for in China?", "China variant"), ("H20八卡服务器大概什么价位", "中国特供版")],
)
def test_a_price_answer_states_one_china_status_with_its_rule(offline_advisor, question, status):
    response = offline_advisor.answer(question, [])
    first = response.summary.split("\n\n")[0]
    assert status in first and "2025" in first  # the dated event that decides the H20's status


def test_a_rent_scaled_estimate_is_derived_from_the_catalog_rents_not_typed(catalog):
    """The L40S and L4 estimates scale the H100's card price by the two parts' catalog rents (gpus.yaml cloud_price):
    the scale is computed, and a different H100 rent would move it, with the figures shown in the derivation."""
    h100, l40s = catalog.gpu("h100-sxm"), catalog.gpu("l40s")
    estimate = price_estimates().for_gpu("l40s")
    ratio = rent_ratio(l40s, h100)
    assert ratio.scale == pytest.approx(l40s.cloud_price.amount / h100.cloud_price.amount)
    assert all(a.scale == pytest.approx(ratio.scale) for a in estimate.anchors)
    for words in (f"${l40s.cloud_price.amount:g}", f"${h100.cloud_price.amount:g}"):
        assert words in estimate.derivation.en and words in estimate.derivation.zh
    dearer = h100.model_copy(update={"cloud_price": h100.cloud_price.model_copy(update={"amount": h100.cloud_price.amount * 2})})
    assert rent_ratio(l40s, dearer).scale == pytest.approx(ratio.scale / 2)
    price = estimate_server_price(ServerPriceRequest(gpu="L40S", currency="USD"), catalog)
    assert (price.card.low, price.card.high) == (pytest.approx(25000 * ratio.scale, abs=0.01), pytest.approx(30000 * ratio.scale, abs=0.01))


def test_a_rent_scale_naming_a_gpu_the_catalog_lacks_is_refused(tmp_path: Path):
    raw = yaml.safe_load(Path("knowledge/price_estimates.yaml").read_text(encoding="utf-8"))
    next(e for e in raw["estimates"] if e.get("scaled_by_rent"))["scaled_by_rent"] = "imaginary-x9000"
    bad = tmp_path / "estimates.yaml"
    bad.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CatalogError, match="imaginary-x9000"):
        load_price_estimates(bad)
