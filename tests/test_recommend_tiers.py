"""Issue #35 items 1-2: server bills of materials as data, whole-configuration prices, and the three tiers
(recommended, budget, room to grow) a consultant would show; China buyers see only parts sold there."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.catalog import CatalogError, load_catalog
from knowledge.serving import load_serving_data
from knowledge.servers import DATA_FILE, load_servers, server_data
from tests.chinese_text import english_words
from tools.recommend import CHINA_BUYABLE, RecommendRequest, recommend_gpus

CATALOG = load_catalog()
SERVING = load_serving_data()
SERVERS = server_data()


def recommend(**args):
    return recommend_gpus(RecommendRequest(**args), CATALOG, SERVING)


def tiers(result):
    return {t.name: t for t in result.tiers}


# --- the bills of materials ---------------------------------------------------------------------------


def test_every_server_class_is_priced_dated_and_sourced():
    assert {c.id for c in SERVERS.classes} == {"hgx-8gpu", "pcie-8gpu", "consumer-8gpu", "workstation-4gpu", "desktop-1gpu"}
    for server in SERVERS.classes:
        assert server.price_usd > 0 and server.power_w_excluding_gpus > 0 and server.date[:2] == "20"
        assert all(s.url.startswith("https://") and s.title for s in server.sources)
        assert all((server.chassis, server.cpus, server.ram, server.nics, server.storage))
        assert server.name.en and server.name.zh and not english_words(server.name.zh.replace("HGX", "").replace("OAM", "").replace("PCIe", ""))
    # an 8-GPU host costs far more than a desktop around one card
    assert SERVERS.for_gpus("board", "datacenter", 8).price_usd > 10 * SERVERS.for_gpus("server", "consumer", 1).price_usd


@pytest.mark.parametrize(
    ("sold_as", "segment", "count", "expected"),
    [("board", "datacenter", 4, "hgx-8gpu"), ("server", "consumer", 1, "desktop-1gpu"), ("server", "consumer", 3, "workstation-4gpu"),
     ("server", "workstation", 8, "pcie-8gpu"), ("server", "datacenter", 1, "workstation-4gpu"), ("server", "datacenter", 2, "workstation-4gpu"),
     ("server", "datacenter", 4, "pcie-8gpu"), ("server", "consumer", 8, "consumer-8gpu"), ("rack", "datacenter", 72, None)],
)  # fmt: skip
def test_each_part_goes_into_the_smallest_server_class_that_holds_it(sold_as, segment, count, expected):
    server = SERVERS.for_gpus(sold_as, segment, count)
    assert (server.id if server else None) == expected


def test_a_malformed_bill_of_materials_fails_loudly(tmp_path: Path):
    broken = tmp_path / "servers.yaml"
    broken.write_text(DATA_FILE.read_text(encoding="utf-8").replace("https://github.com/epoch-research", "epoch-research", 1), encoding="utf-8")
    with pytest.raises(CatalogError, match="servers.yaml"):
        load_servers(broken)


def test_the_whole_configuration_price_adds_the_servers_that_hold_the_gpus():
    (hgx,) = recommend(model="llama-3.1-70b", gpus=["H100 SXM"], max_gpus=16, precision_default="bf16").options  # 16-bit: four cards
    assert hgx.server_class == "hgx-8gpu" and hgx.server_count == 1
    assert hgx.purchase_cost == pytest.approx(hgx.gpu_cost + SERVERS.for_gpus("board", "datacenter", 4).price_usd)
    (two_servers,) = recommend(model="qwen2.5-72b", task="full_finetune", gpus=["H200 SXM"]).options
    assert two_servers.count == 16 and two_servers.server_count == 2
    # a published price of the whole 8x H200 HGX server (servers.yaml quotes) prices each of the two machines
    assert two_servers.purchase_cost == pytest.approx(2 * SERVERS.quote_for("h200-sxm", 8).price)
    in_yuan = recommend(model="llama-3.1-70b", gpus=["H100 SXM"], currency="CNY", usd_to_cny=7.0, precision_default="bf16").options[0]
    assert in_yuan.server_cost == pytest.approx(7.0 * SERVERS.for_gpus("board", "datacenter", 4).price_usd)


# --- the tiers ----------------------------------------------------------------------------------------


def test_a_7b_model_gets_one_current_24gb_card_recommended_not_two_small_cards():
    result = recommend(params_b=7)
    found = tiers(result)
    recommended = found["recommended"].option
    assert recommended.count == 1 and recommended.nominal_memory_gb >= 24 and recommended.headroom_pct >= SERVERS.recommended.min_headroom_pct
    assert CATALOG.gpu(recommended.gpu_id).launch_year >= 2021  # a part a buyer would order today
    assert result.options[0] is not None and result.options[0].gpu_id == recommended.gpu_id  # the answer leads with it
    assert found["budget"].option.purchase_cost <= recommended.purchase_cost
    grow = found["grow"].option
    assert grow.count * grow.capacity_gb >= 2 * recommended.count * recommended.capacity_gb
    for tier in result.tiers:
        assert tier.reason.en and tier.reason.zh and tier.label.zh and not english_words(tier.reason.zh)
        assert tier.option.purchase_cost is not None and tier.option.tokens_per_s_per_user


def test_an_objective_still_ranks_as_asked_and_the_tiers_stay_beside_it():
    cheapest = recommend(params_b=7, objective="cheapest", top=10)
    prices = [o.purchase_cost for o in cheapest.options if o.purchase_cost is not None]
    assert prices == sorted(prices) and cheapest.tiers
    fastest = recommend(params_b=7, objective="fastest", top=3)
    # the fastest leads; options within one 5% speed step count as equal and the fewer cards go first (rank.py)
    assert fastest.options[0].tokens_per_s_total >= 0.95 * max(o.tokens_per_s_total for o in fastest.options)


def test_a_yuan_budget_gets_only_china_buyable_parts_within_it():
    result = recommend(model="qwen2.5-72b", budget=2_000_000, currency="CNY", top=10)
    assert result.options and all(CATALOG.gpu(o.gpu_id).china in CHINA_BUYABLE for o in result.options)
    assert result.tiers and all(t.option.purchase_cost <= 2_000_000 for t in result.tiers)
    assert any("mainland China" in x.en and "中国大陆" in x.zh for x in result.excluded)
    assert not any("not sold new in mainland China" in r.en for o in result.options for r in o.reasons)
    standard = tiers(result)["recommended"].option
    assert standard.sold_as in ("board", "server") and not standard.consumer_server  # a standard server first


def test_a_serving_load_is_met_by_every_tier():
    result = recommend(params_b=7, concurrency=50)
    assert len(result.tiers) >= 2 and all(t.option.meets_target for t in result.tiers)
    budget = tiers(result).get("budget")  # the budget tier names the load it was sized for when it differs
    assert budget is None or ("50 concurrent users" in budget.reason.en and "50 个并发用户" in budget.reason.zh)
    # GeForce cards in a server are a licence problem: the budget pick avoids them when anything else works
    assert not any(t.option.consumer_server for t in result.tiers)


def test_a_large_load_gets_no_budget_tier_of_many_times_the_fewest_cards():
    """"Cheapest" is a deployment someone would run: not dozens of small cards beside a couple of servers."""
    result = recommend(model="llama-3.1-70b", concurrency=2000)
    fewest = min(o.count for o in result.options if o.meets_target is not False and o.purchase_cost is not None)
    limit = max(SERVERS.recommended.budget_count_factor * fewest, SERVERS.recommended.budget_count_floor)
    assert all(t.option.count <= limit for t in result.tiers), [(t.name, t.option.count, t.option.gpu_id) for t in result.tiers]


def test_a_budget_below_any_configuration_gets_no_tiers_and_says_so():
    result = recommend(model="llama-3.1-70b", budget=3000)
    assert result.tiers == []
    assert any("cannot be met" in n.en and "无法满足" in n.zh for n in result.notes)


# --- the answers --------------------------------------------------------------------------------------


def test_the_answer_lists_the_tiers_with_server_price_and_reason_in_both_languages(offline_advisor):
    en = offline_advisor.answer("I have a 7B model, which GPU should I get?", [])
    assert "- **Recommended**: 1×" in en.answer and "- **Budget**:" in en.answer and "- **Room to grow**:" in en.answer
    assert "single-GPU desktop" in en.answer and "tokens/s per user" in en.answer
    zh = offline_advisor.answer("手上有个7B的模型，买哪张显卡合适", [])
    assert "- **推荐**：1×" in zh.answer and "- **经济**：" in zh.answer and "- **留有余地**：" in zh.answer
    assert "单卡台式机" in zh.answer and "整套约" in zh.answer
