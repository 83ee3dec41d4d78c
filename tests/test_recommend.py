"""recommend_gpus (issue #11, item 2): configurations as they are sold, ranked by the buyer's objective,
sized for a serving load, and the offline planner passing the user's wishes through."""

from __future__ import annotations

import itertools

import pytest

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from tests.chinese_text import english_words
from tools.recommend import CHINA_BUYABLE, RecommendRequest, recommend_gpus
from tools.recommend.configs import sold_as, sold_counts

CATALOG = load_catalog()
SERVING = load_serving_data()
BOARD_COUNTS = {4, 8} | set(range(16, 513, 8))


def recommend(**args):
    return recommend_gpus(RecommendRequest(**args), CATALOG, SERVING)


def gpu(option):
    return CATALOG.gpu(option.gpu_id)


# --- configurations as sold --------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["llama-3.1-70b", "qwen2.5-72b"])
def test_70b_bf16_serving_gets_multi_gpu_configurations_as_sold(model):
    cheapest = recommend(model=model, precision="bf16", top=20)
    for option in cheapest.options:
        assert option.count > 1, option.config_label.en  # 140+ GB of weights: no single card or Mac
        assert option.sold_as not in ("rack", "apple"), option.config_label.en
        if option.sold_as == "board":
            assert option.count in BOARD_COUNTS, option.config_label.en
    assert any(gpu(o).segment == "datacenter" for o in cheapest.options[:10])
    fastest = recommend(model=model, precision="bf16", objective="fastest")
    for option in fastest.options:
        assert gpu(option).segment == "datacenter" and option.sold_as == "board" and option.count in (4, 8), option.config_label.en
    assert {o.gpu_id for o in fastest.options} & {"h100-sxm", "h200-sxm", "b200", "mi300x", "mi325x", "mi355x", "a100-80gb-sxm"}


def test_sxm_parts_round_up_to_a_board_and_say_so():
    (h100,) = recommend(model="llama-3.1-70b", gpus=["H100 SXM"]).options
    assert h100.count == 4 and h100.units == 1 and h100.tp == 4  # two would hold it, but HGX boards hold 4 or 8
    assert h100.config_label.en == "1 HGX board, 4× H100 SXM"
    assert h100.config_label.zh == "4× H100 SXM（1 块 HGX 板）"
    assert any("rounded up to 4" in r.en and "向上取整为 4" in r.zh for r in h100.reasons)
    (b200,) = recommend(model="llama-3.1-8b", gpus=["B200"]).options
    assert b200.count == 8  # the catalog sells B200 only on 8-GPU baseboards


def test_pcie_cards_are_one_to_eight_per_server():
    (pair,) = recommend(model="llama-3.1-70b", gpus=["RTX 5090"], precision="awq-int4").options
    # two cards go in a 4-GPU workstation, ordered as one (knowledge/servers.yaml rack_server: false), not "a server"
    assert pair.config_label.en == f"{pair.count}× GeForce RTX 5090 in a 4-GPU workstation"
    assert pair.config_label.zh == f"1 台4 卡工作站 {pair.count}× GeForce RTX 5090"
    assert sold_counts(CATALOG.gpu("rtx-4090"), 64) == [1, 2, 4, 8]  # consumer cards: standard builds, 8 at most
    assert sold_counts(CATALOG.gpu("l40s"), 64)[-1] == 64  # data-center PCIe scales out in whole servers
    assert recommend(model="llama-3.1-405b", gpus=["RTX 4090"]).options == []


def test_grace_blackwell_only_as_a_whole_nvl72_rack():
    for part in ("gb200", "gb300"):
        assert sold_as(CATALOG.gpu(part)) == "rack" and sold_counts(CATALOG.gpu(part), 512) == [72]
    big = recommend(model="llama-3.1-405b", max_gpus=128, top=20)
    racks = [o for o in big.options if o.gpu_id in ("gb200", "gb300")]
    assert racks and all(o.count == 72 and o.sold_as == "rack" for o in racks)
    assert any(o.config_label.en == "GB200 NVL72 rack (72 GPUs)" for o in racks)
    assert big.options[0].sold_as != "rack"  # one model copy does not need 72 GPUs
    assert not [o for o in recommend(model="llama-3.1-70b", top=20).options if o.sold_as == "rack"]  # default limit: 64 GPUs
    named = recommend(model="llama-3.1-70b", gpus=["GB200", "H100"])
    assert [o.gpu_id for o in named.options] == ["h100-sxm"]
    assert any("NVL72" in x.en and "整机柜" in x.zh for x in named.excluded)


# --- objectives ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [{"region": "cn"}, {"objective": "china"}])
def test_china_returns_only_china_buyable_cards(args):
    result = recommend(model="qwen2.5-72b", currency="CNY", top=20, **args)
    assert result.options and all(gpu(o).china in CHINA_BUYABLE for o in result.options)
    assert any("mainland China" in x.en for x in result.excluded)
    chosen = [t.option for t in result.tiers] if result.objective is None else []
    rest = result.options[len(chosen):]  # without an objective the tiers lead (recommended, budget, room to grow)
    for consumer_build in (False, True):  # GeForce servers rank after the rest, then cheapest within each
        prices = [o.purchase_cost for o in rest if o.purchase_cost is not None and o.consumer_server is consumer_build]
        assert prices == sorted(prices)
    tiers = [o.consumer_server for o in rest]
    assert tiers == sorted(tiers)


def test_cheapest_ranks_the_whole_configuration_price_gpus_and_server():
    result = recommend(model="llama-3.1-8b", objective="cheapest", top=20)
    prices = [o.purchase_cost for o in result.options]
    known = [p for p in prices if p is not None]
    assert known == sorted(known) and prices[: len(known)] == known  # unknown prices after known ones
    # two cheap cards need a workstation around them, so one card in a desktop is the cheaper whole configuration
    assert result.options[0].count == 1 and result.options[0].server_class == "desktop-1gpu"
    for option in result.options:
        if option.purchase_cost is not None and gpu(option).purchase_price is not None and gpu(option).purchase_price.currency == "USD":
            assert option.gpu_cost == pytest.approx(gpu(option).purchase_price.amount * option.count, rel=0.01)
            assert option.purchase_cost == pytest.approx(option.gpu_cost + option.server_cost, rel=0.01)


def test_fastest_orders_by_total_tokens_per_second():
    result = recommend(model="llama-3.1-70b", objective="fastest", top=10)
    speeds = [o.tokens_per_s_total for o in result.options]
    assert all(s is not None for s in speeds)
    # speeds within 5% tie (the estimate is ±30%) and the smaller configuration goes first
    assert all(a * 1.05 >= b for a, b in itertools.pairwise(speeds))
    everything = recommend(model="llama-3.1-70b", objective="fastest", top=20).options
    assert speeds[0] * 1.05 >= max(o.tokens_per_s_total or 0 for o in everything)
    training = recommend(model="llama-3.1-8b", task="lora", objective="fastest", top=8).options
    tflops = [o.total_tflops for o in training]
    assert all(a * 1.05 >= b for a, b in itertools.pairwise(tflops))


def test_cloud_orders_by_cost_per_hour():
    result = recommend(model="llama-3.1-70b", objective="cloud", top=10)
    costs = [o.cloud_cost_per_hour for o in result.options]
    assert all(c is not None for c in costs) and costs == sorted(costs)


def test_power_orders_by_the_board_power_of_the_whole_configuration():
    result = recommend(model="llama-3.1-8b", objective="power", top=10)
    power = [o.power_w for o in result.options if not o.consumer_server]
    assert all(p is not None for p in power) and power == sorted(power)
    catalog = load_catalog()
    assert all(o.power_w == o.count * catalog.find_gpu(o.gpu_id).tdp_w for o in result.options)


def test_memory_orders_by_memory_per_unit_of_price():
    result = recommend(model="qwen2.5-14b", objective="memory", top=10)
    ranked = [o for o in result.options if not o.consumer_server and o.purchase_cost]
    per_price = [o.count * o.capacity_gb / o.purchase_cost for o in ranked]
    assert len(per_price) > 2 and per_price == sorted(per_price, reverse=True)


def test_a_budget_is_respected_or_the_notes_say_it_cannot_be():
    within = recommend(model="qwen2.5-72b", objective="budget", budget=90000, top=10)
    assert within.options and all(o.within_budget and o.purchase_cost <= 90000 for o in within.options)
    for objective in ("cheapest", "fastest", "cloud", None):  # the whole price, servers included, within the budget
        ranked = recommend(model="qwen2.5-72b", objective=objective, budget=90000, top=3)
        assert all(o.within_budget for o in ranked.options), objective
    short = recommend(model="qwen2.5-72b", objective="budget", budget=4000, top=3)
    assert short.options and not any(o.within_budget for o in short.options)
    assert any("cannot be met" in n.en and "无法满足" in n.zh for n in short.notes)
    training = recommend(model="llama-3.1-70b", task="pretrain", budget=10000)
    assert any("cannot be met" in n.en for n in training.notes)
    assert training.options[0].purchase_cost is not None  # the closest known price first, not an unknown one


# --- serving load -------------------------------------------------------------------------------------


def test_fifty_users_at_twenty_tokens_per_second_need_more_gpus_than_one():
    gpus = ["H100 PCIe", "A100 80GB SXM", "H100 SXM", "L40S"]
    one = {o.gpu_id: o for o in recommend(model="llama-3.1-70b", gpus=gpus, concurrency=1, tokens_per_s_per_user=20).options}
    fifty = {o.gpu_id: o for o in recommend(model="llama-3.1-70b", gpus=gpus, concurrency=50, tokens_per_s_per_user=20).options}
    assert set(fifty) <= set(one)
    assert all(fifty[g].count >= one[g].count for g in fifty)
    assert sum(o.count for o in fifty.values()) > sum(one[g].count for g in fifty)
    for option in fifty.values():
        if option.meets_target:
            assert option.tokens_per_s_per_user >= 20 and option.max_users_at_target >= 50
            assert option.tokens_per_s_total > one[option.gpu_id].tokens_per_s_total
    assert any(o.meets_target for o in fifty.values())


def test_a_load_beyond_one_server_adds_whole_boards():
    (h100,) = recommend(model="llama-3.1-70b", gpus=["H100 SXM"], concurrency=500, tokens_per_s_per_user=20, max_gpus=128).options  # per user = total ÷ users
    # whole boards of 8, filled with copies of a tensor-parallel group no wider than one server
    assert h100.meets_target and h100.count > 8 and h100.count % 8 == 0
    assert h100.tp * h100.replicas == h100.count and 2 <= h100.tp <= 8 and h100.replicas > h100.count // 8
    assert h100.config_label.en.startswith(f"{h100.count // 8} HGX boards")


def test_a_load_that_cannot_be_met_is_marked_and_ranked_last():
    result = recommend(model="llama-3.1-70b", gpus=["RTX 4090", "H100 SXM"], concurrency=500, tokens_per_s_per_user=20)
    assert [o.gpu_id for o in result.options] == ["h100-sxm", "rtx-4090"]
    assert result.options[1].meets_target is False
    assert any("does not reach 500" in r.en and "达不到" in r.zh for r in result.options[1].reasons)


# --- Apple --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [{"concurrency": 10}, {"batch": 4}, {"team": True}])
def test_macs_are_left_out_of_team_serving_with_a_reason(args):
    result = recommend(model="llama-3.1-8b", top=20, **args)
    assert not [o for o in result.options if o.sold_as == "apple"]
    (reason,) = [x for x in result.excluded if "Mac" in x.en]
    assert "single-user" in reason.en and "单人使用" in reason.zh


def test_a_single_user_may_consider_a_mac_with_three_quarters_of_its_memory():
    (mac,) = recommend(model="llama-3.1-70b", gpus=["M3 Ultra"]).options
    assert mac.sold_as == "apple" and mac.count == 1 and mac.config_label.en.startswith("1 Mac with Apple M3 Ultra")
    assert mac.capacity_gb == pytest.approx(512 * 2**30 / 1e9 * 0.75, rel=1e-3)
    assert mac.tokens_per_s_per_user and mac.speed_engine != "vllm"  # vLLM has no Apple backend
    result = recommend(model="llama-3.1-70b", gpus=["M3 Ultra"])
    assert any("75%" in n.en and "75%" in n.zh and "macOS" in n.en for n in result.notes)
    # 192 GB would hold 145 GB of 70B bf16, but macOS lets the GPU wire only ~144 GB of it
    assert recommend(model="llama-3.1-70b", gpus=["M2 Ultra"]).options == []


# --- bad input ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"objective": "budget"}, "missing_budget"),
        ({"concurrency": 0}, "invalid_concurrency"),
        ({"concurrency": -5}, "invalid_concurrency"),
        ({"tokens_per_s_per_user": 0}, "invalid_target"),
        ({"tokens_per_s_per_user": -1.5}, "invalid_target"),
        ({"task": "lora", "concurrency": 20}, "serving_target_for_training"),
    ],
)
def test_bad_input_gets_a_bilingual_error_naming_the_fix(args, code):
    with pytest.raises(AdvisorError) as caught:
        recommend(model="llama-3.1-8b", **args)
    error = caught.value
    assert error.code == code and error.en and error.zh
    assert not any(name in error.en + error.zh for name in ("tokens_per_s_per_user", "concurrency=", "objective="))


# --- bilingual labels ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        {"model": "llama-3.1-70b", "top": 20},
        {"model": "llama-3.1-405b", "max_gpus": 128, "top": 20, "objective": "fastest"},
        {"model": "llama-3.1-70b", "concurrency": 500, "tokens_per_s_per_user": 20, "top": 20},
        {"model": "llama-3.1-8b", "gpus": ["M3 Ultra", "H100 NVL", "TPU v5p"]},
        {"model": "qwen2.5-72b", "objective": "budget", "budget": 4000},
    ],
)
def test_labels_reasons_and_notes_read_in_each_language(args):
    result = recommend(**args)
    texts = [t for o in result.options for t in (o.config_label, o.plan_label, *o.reasons)] + result.notes + result.excluded
    for text in texts:
        assert not english_words(text.zh), (text.zh, english_words(text.zh))
        assert not any("\u4e00" <= c <= "\u9fff" for c in text.en), text.en


# --- the offline planner ------------------------------------------------------------------------------


def recommend_call(response):
    (call,) = [c for c in response.tool_calls if c.name == "recommend_gpus"]
    return call


def test_the_planner_passes_load_speed_and_objective(offline_advisor):
    response = offline_advisor.answer("Which GPUs should I buy to serve Llama 3.1 70B for 50 users at 20 tokens/s each?", [])
    args = recommend_call(response).args
    assert args["concurrency"] == 50 and args["tokens_per_s_per_user"] == 20
    assert "tokens/s per user" in response.answer and "Meets the load" in response.answer
    assert "Ranked by: the three tiers first" in response.answer  # no ranking asked for: recommended, budget, room to grow
    response = offline_advisor.answer("fastest setup to serve llama 3.1 8b for my team", [])
    args = recommend_call(response).args
    assert args["objective"] == "fastest" and args["team"] is True
    assert "Mac" in response.answer  # left out, with the reason


def test_the_planner_maps_chinese_objectives_and_answers_in_chinese(offline_advisor):
    response = offline_advisor.answer("国内能买到的卡里，部署Qwen2.5-72B推理，给团队30个人用，用什么卡最便宜", [])
    args = recommend_call(response).args
    # a team of 30 is an audience: a tenth of a headcount at the busiest moment on average (knowledge/audience.yaml), and
    # the load is the count covering 95% of such moments (6)
    assert args["region"] == "cn" and args["concurrency"] == 6 and args["objective"] in ("cheapest", "china")
    table = next(part for part in response.answer.split("\n\n") if part.startswith("| #"))
    assert "配置" in table and "整套采购价" in table and "每用户 token/s" in table
    gpu_names = {w for g in CATALOG.gpus for w in g.name.split()}
    lead = response.answer.split("\n\n")[0]
    assert lead.startswith("**推荐：") and not [w for w in english_words(lead) if w not in gpu_names]
    assert not english_words(table)


def test_a_budget_without_an_objective_gets_the_tiers_within_it(offline_advisor):
    response = offline_advisor.answer("Best GPU setup for serving Qwen2.5-72B with a $40k budget?", [])
    call = recommend_call(response)
    assert call.args.get("objective") is None and call.args["budget"] == 40000
    assert call.result["tiers"] and all(t["option"]["purchase_cost"] <= 40000 for t in call.result["tiers"])
    assert "Ranked by: the three tiers first" in response.answer and "- **Recommended**:" in response.answer


def test_the_ranking_line_says_why_a_slower_workstation_card_leads_geforce_builds(offline_advisor):
    response = offline_advisor.answer("what gpus for a 60-person company to run qwen2.5 14b internally, budget $20k", [])
    options = recommend_call(response).result["options"]
    assert not options[0]["consumer_server"] and any(o["consumer_server"] for o in options)
    assert "then the rest by whole-configuration price; GeForce builds after data-center and workstation cards" in response.answer
    # a budget in yuan is a mainland buyer: only parts sold new there, and no line pointing elsewhere
    zh = offline_advisor.answer("公司六十个人用Qwen2.5-14B，预算15万，买什么卡", [])
    zh_options = recommend_call(zh).result["options"]
    assert zh_options and all(CATALOG.gpu(o["gpu_id"]).china in CHINA_BUYABLE for o in zh_options)
    assert "排序依据：先列三档" in zh.answer and "若在中国大陆采购" not in zh.answer


def test_geforce_servers_rank_after_data_center_options_and_say_why():
    result = recommend(model="llama-3.1-70b", task="inference", precision="bf16", top=20)
    tiers = [o.consumer_server for o in result.options]
    assert tiers == sorted(tiers) and not tiers[0]
    builds = [o for o in result.options if o.consumer_server]
    assert all(any("GeForce" in r.en and "GeForce" in r.zh for r in o.reasons) for o in builds)
    single = recommend(model="llama-3.1-8b", task="inference", precision="bf16", top=20)
    assert any(o.count == 1 and not o.consumer_server and o.gpu_id.startswith("rtx-") for o in single.options)
