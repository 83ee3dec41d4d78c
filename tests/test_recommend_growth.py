"""Issue #35 item 2: how a recommendation grows with the load. Several users get copies of the smallest group
that holds the model (data parallel) before tensor parallelism widens; every user gets at least a sourced floor
speed when none is stated; one or two data-centre PCIe cards sit in a 4-GPU host, not an 8-GPU server."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from knowledge.servers import server_data
from knowledge.serving import load_serving_data
from knowledge.traffic import chat_floor
from tests.chinese_text import english_words
from tools.recommend import RecommendRequest, recommend_gpus

CATALOG = load_catalog()
SERVING = load_serving_data()
FLOOR = chat_floor().tokens_per_s_per_user
FLOOR_URL = chat_floor().source.url
SOLD_STEPS = {1, 2, 4, 8}


def recommend(**args):
    return recommend_gpus(RecommendRequest(**args), CATALOG, SERVING)


def load_args(users: int) -> dict:
    return {"concurrency": users} if users > 1 else {}


# --- growth on several workloads ---------------------------------------------------------------------------

# (model, users) -> most GPUs the recommended tier may take: one server for small models, a couple for 70B at 500
CEILINGS = {("7B", 1): 1, ("7B", 20): 1, ("7B", 100): 2, ("7B", 500): 8,
            ("14B", 1): 1, ("14B", 20): 2, ("14B", 100): 4, ("14B", 500): 8,
            ("70B", 1): 4, ("70B", 20): 4, ("70B", 100): 8, ("70B", 500): 16}  # fmt: skip


@pytest.mark.parametrize(("model", "users"), sorted(CEILINGS))
def test_every_tier_is_a_sane_configuration_for_the_load(model, users):
    result = recommend(model=model, **load_args(users))
    assert result.tiers, "a common workload always gets tiers"
    recommended = next(t.option for t in result.tiers if t.name == "recommended")
    assert recommended.count <= CEILINGS[(model, users)]
    for tier in result.tiers:
        o = tier.option
        # sold as servers of 1, 2, 4 or 8, whole servers of 8 beyond; a group never wider than one server
        assert o.count in SOLD_STEPS or o.count % 8 == 0
        assert o.tp in SOLD_STEPS and o.tp * o.pp * o.replicas == o.count
        assert o.purchase_cost and o.purchase_cost > (o.gpu_cost or 0)  # the host is in the price
        if users > 1:
            assert o.meets_target and o.max_users_at_target >= users
        else:
            assert o.replicas == 1  # one stream: extra cards only help as tensor parallelism


@pytest.mark.parametrize("users", [20, 100, 500])
def test_a_small_model_for_many_users_is_copied_not_split(users):
    """A 7B fits one card: more users mean more copies of it, never one copy split over several cards."""
    for tier in recommend(model="7B", concurrency=users).tiers:
        assert tier.option.tp == 1 and tier.option.replicas == tier.option.count


def test_more_users_never_shrink_the_configuration():
    sizes = []
    for users in (20, 100, 500):
        (option,) = recommend(model="14B", gpus=["L40S"], concurrency=users).options
        sizes.append(option.count)
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]


def test_a_seventy_b_grows_by_copies_of_the_group_that_holds_it():
    (one,) = recommend(model="llama-3.1-70b", gpus=["H100 SXM"]).options
    (many,) = recommend(model="llama-3.1-70b", gpus=["H100 SXM"], concurrency=200).options
    assert one.replicas == 1 and many.replicas > 1
    assert many.tp <= max(one.tp, 8) and many.count == many.tp * many.replicas


# --- the per-user floor ------------------------------------------------------------------------------------


def test_the_floor_is_sourced_and_dated():
    floor = chat_floor()
    assert 1 <= floor.tokens_per_s_per_user <= 30 and re.fullmatch(r"\d{4}-\d{2}-\d{2}", floor.source.date)
    assert floor.source.url.startswith("https://") and floor.source.title
    note = server_data().serving_floor.text
    assert "{floor}" in note.en and "{floor}" in note.zh


def test_several_users_without_a_speed_each_get_at_least_the_floor():
    result = recommend(model="14B", concurrency=100)
    assert result.speed_floor == FLOOR
    assert all(o.meets_target and o.tokens_per_s_per_user >= FLOOR for o in result.options)
    note = next(n for n in result.notes if FLOOR_URL in n.en)
    assert f"{FLOOR:g}" in note.en and f"{FLOOR:g}" in note.zh and FLOOR_URL in note.zh
    assert not english_words(note.zh.split("（")[0].replace("MLPerf", ""))  # Chinese before its source, the benchmark's name aside


def test_the_floor_grows_a_configuration_that_would_crawl():
    """A slow card that holds a hundred users' caches still has to give each of them the floor speed."""
    crawling = recommend(model="14B", gpus=["L4"], concurrency=100, tokens_per_s_per_user=0.5).options[0]
    floored = recommend(model="14B", gpus=["L4"], concurrency=100).options[0]
    assert floored.count > crawling.count and floored.meets_target


@pytest.mark.parametrize("args", [{"concurrency": 100, "tokens_per_s_per_user": 20}, {}, {"concurrency": 1}])
def test_a_stated_speed_or_a_single_user_gets_no_floor(args):
    result = recommend(model="14B", **args)
    assert result.speed_floor is None
    assert not any(FLOOR_URL in n.en for n in result.notes)


# --- the host each configuration is priced with ---------------------------------------------------------


@pytest.mark.parametrize(("segment", "cards", "host"),
                         [("datacenter", 1, "workstation-4gpu"), ("datacenter", 2, "workstation-4gpu"), ("datacenter", 4, "pcie-8gpu"),
                          ("datacenter", 8, "pcie-8gpu"), ("workstation", 4, "workstation-4gpu"), ("consumer", 1, "desktop-1gpu")])  # fmt: skip
def test_pcie_cards_go_into_the_server_class_their_count_and_power_need(segment, cards, host):
    assert server_data().for_gpus("server", segment, cards).id == host


def test_one_pcie_card_is_not_priced_with_an_eight_gpu_host():
    servers = server_data()
    (one,) = recommend(model="7B", gpus=["H200 NVL"]).options
    host = next(c for c in servers.classes if c.id == "workstation-4gpu")
    assert one.count == 1 and one.server_class == host.id and one.server_count == 1
    assert one.purchase_cost == pytest.approx(one.gpu_cost + host.price_usd, abs=1)
    assert one.server_cost < servers.for_gpus("board", "datacenter", 8).price_usd / 2
    # the budget may also buy a larger configuration as the recommended tier; the one-card option is priced the same way
    yuan = next(o for o in recommend(model="7B", gpus=["L20"], budget=300000, currency="CNY").options if o.count == 1)
    assert yuan.server_class == host.id and yuan.server_cost == pytest.approx(host.price_usd * RecommendRequest(model="7B").usd_to_cny, rel=0.01)


def test_a_module_sold_in_its_vendors_eight_way_server_rounds_up_to_it():
    (ascend,) = recommend(model="7B", gpus=["Ascend 910C"], region="cn").options
    assert ascend.count == 8 and ascend.sold_as == "board"
    assert any("8" in r.en and "sold only" in r.en for r in ascend.reasons)


# --- a running budget -------------------------------------------------------------------------------------


def test_a_monthly_budget_is_set_against_renting_around_the_clock():
    # sized with 16-bit weights: with the serving-format default a one-off $5,000 buys a 4-bit 32B on one GeForce card,
    # a real option but not the comparison this test makes (the same workload bought once or rented every month)
    result = recommend(model="32B", budget=5000, budget_per="month", precision_default="bf16")
    lead = result.tiers[0].option
    assert lead.rent_per_month == pytest.approx(lead.cloud_cost_per_hour * 730, abs=1)
    assert lead.within_budget is (lead.rent_per_month <= 5000)
    assert result.budget_months_to_buy == pytest.approx(lead.purchase_cost / 5000, abs=0.1)
    # the same sum as a one-off purchase budget buys less than the same sum every month rents
    once = recommend(model="32B", budget=5000, precision_default="bf16")
    assert once.budget_short and not result.budget_short


def test_a_yearly_budget_is_a_twelfth_a_month():
    yearly = recommend(model="32B", budget=60000, budget_per="year")
    monthly = recommend(model="32B", budget=5000, budget_per="month")
    assert yearly.budget_months_to_buy == pytest.approx(monthly.budget_months_to_buy, rel=0.01)
    assert [o.within_budget for o in yearly.options] == [o.within_budget for o in monthly.options]


def test_a_running_budget_nothing_rents_within_says_so_and_offers_the_cheapest_rent_first():
    result = recommend(model="32B", budget=100, budget_per="month")
    assert result.budget_short
    rents = [o.rent_per_month for o in result.options if o.rent_per_month is not None]
    assert result.options[0].rent_per_month == min(rents)
    assert all(o.within_budget is False for o in result.options)
