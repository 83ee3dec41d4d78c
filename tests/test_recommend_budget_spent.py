"""Issue #35 item 2: a purchase budget larger than the job is spent on speed and headroom (the recommended tier is
the fastest current, standard configuration within it), and the cheapest that works stays beside it as the budget tier."""

from __future__ import annotations

from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from tools.recommend import RecommendRequest, recommend_gpus

CATALOG = load_catalog()
SERVING = load_serving_data()
NEWEST = max(g.launch_year for g in CATALOG.gpus)


def _tiers(**args):
    result = recommend_gpus(RecommendRequest(**args), CATALOG, SERVING)
    return {t.name: t for t in result.tiers}, result


def tiers_without_load():
    return _tiers(model="llama-3-70b", budget=300_000)[0]


def test_a_large_budget_for_a_team_buys_the_fastest_standard_server_within_it():
    tiers, _ = _tiers(model="llama-3-70b", budget=300_000, concurrency=150)
    best, cheapest = tiers["recommended"].option, tiers["budget"].option
    assert best.purchase_cost <= 300_000 and best.meets_target
    assert best.purchase_cost > cheapest.purchase_cost  # the money is used, the cheaper one is the alternative
    # not faster than every cheaper part (a Gaudi 3 board is estimated faster than the H100 SXM board at this load), but
    # faster than the cheapest that merely holds the model with no load to serve
    assert best.tokens_per_s_total >= tiers_without_load()["budget"].option.tokens_per_s_total
    assert CATALOG.gpu(best.gpu_id).launch_year >= NEWEST - 4
    assert "budget" in tiers["recommended"].reason.en and "预算" in tiers["recommended"].reason.zh


def test_a_budget_with_no_load_buys_more_than_the_smallest_box_that_holds_the_model():
    spent, _ = _tiers(model="llama-3-70b", budget=250_000)
    plain, _ = _tiers(model="llama-3-70b")
    best = spent["recommended"].option
    assert best.purchase_cost <= 250_000
    assert best.count * best.capacity_gb > plain["recommended"].option.count * plain["recommended"].option.capacity_gb
    assert best.count <= 8  # one standard server, not a cluster
    assert CATALOG.gpu(best.gpu_id).launch_year >= NEWEST - 4  # a dated workstation card does not lead


def test_a_yuan_budget_is_spent_on_parts_sold_in_china():
    tiers, _ = _tiers(model="qwen2.5-72b", budget=1_500_000, currency="CNY")
    best = tiers["recommended"].option
    assert best.purchase_cost <= 1_500_000 and best.count > tiers["budget"].option.count
    assert CATALOG.gpu(best.gpu_id).china != "export-controlled"


def test_without_a_budget_the_recommended_tier_stays_the_simplest_that_fits():
    tiers, _ = _tiers(model="qwen2.5-7b")
    assert tiers["recommended"].option.count == 1


def test_grown_configurations_are_listed_only_as_a_tier():
    _, result = _tiers(model="llama-3-70b", budget=300_000, top=20)
    counts = {}
    for option in result.options:
        counts.setdefault(option.gpu_id, []).append(option.count)
    assert sum(len(c) - 1 for c in counts.values()) <= len(result.tiers)  # the rest: one configuration per part
