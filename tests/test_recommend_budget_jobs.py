"""Issue #35 item 2 (s4-rec): a recommendation honours the budget, is sized for the most demanding of the jobs asked,
shows a China buyer only parts sold there, says when a budget buys nothing (with the price that would), and adds
one rent-or-buy line when the thread speaks of renting."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from tools.recommend import CHINA_BUYABLE, RecommendRequest, Workload, recommend_gpus

CATALOG = load_catalog()
SERVING = load_serving_data()


def recommend(**args):
    return recommend_gpus(RecommendRequest(**args), CATALOG, SERVING)


def _first(response, name):
    return next((c for c in response.tool_calls if c.name == name), None)


# --- the tool ------------------------------------------------------------------------------------------


def test_the_heaviest_of_several_jobs_sets_the_size():
    # a 7B LoRA stated first must not size the box when a full fine-tune of the same model is also wanted
    result = recommend(params_b=7, task="lora", workloads=[Workload(params_b=13, task="inference"), Workload(params_b=7, task="full_finetune")])
    sized = [d for d in result.workloads if d.sized_for]
    assert len(sized) == 1 and sized[0].task == "full_finetune"
    assert sized[0].memory_gb == max(d.memory_gb for d in result.workloads)
    assert result.task == "full_finetune"
    recommended = result.tiers[0].option
    assert recommended.count * recommended.capacity_gb > sized[0].memory_gb * 0.5  # sharded over cards that hold it
    lone = recommend(params_b=7, task="lora")
    assert recommended.count * recommended.capacity_gb > lone.tiers[0].option.count * lone.tiers[0].option.capacity_gb


def test_the_largest_model_sets_the_size_when_several_are_served():
    result = recommend(model="llama-3.1-8b", workloads=[Workload(model="qwen2.5-72b")])
    assert result.params_b > 70
    assert [d.model_id for d in result.workloads if d.sized_for] == [result.model_id]


def test_one_job_keeps_the_single_answer():
    assert recommend(params_b=7, workloads=[Workload(params_b=7)]).workloads == []


@pytest.mark.parametrize(("budget", "currency"), [(60_000, "USD"), (400_000, "CNY")])
def test_every_tier_fits_the_budget(budget, currency):
    result = recommend(model="qwen2.5-32b", budget=budget, currency=currency)
    assert result.tiers and not result.budget_short
    assert all(t.option.purchase_cost <= budget for t in result.tiers)
    assert result.options[0].within_budget


def test_a_china_buyer_with_a_dollar_budget_sees_only_parts_sold_there():
    result = recommend(params_b=70, budget=150_000, region="cn")
    offered = [t.option for t in result.tiers] + result.options
    assert offered and all(CATALOG.gpu(o.gpu_id).china in CHINA_BUYABLE for o in offered)
    assert not any("not sold new" in r.en for o in offered for r in o.reasons)


def test_a_budget_that_buys_nothing_says_what_would():
    result = recommend(params_b=70, budget=2_000)
    assert result.budget_short and not result.tiers
    assert result.cheapest_cost > 2_000
    assert result.options[0].purchase_cost == result.cheapest_cost  # the closest is the cheapest that works, not a flagship
    assert result.cheapest_rent_per_hour and result.cheapest_rent_per_hour > 0
    assert result.fallback is None or result.fallback.option.purchase_cost <= 2_000


def test_a_short_training_budget_offers_the_lighter_method_it_buys():
    result = recommend(params_b=13, task="full_finetune", budget=400_000, currency="CNY")
    assert result.budget_short
    assert result.fallback is not None and result.fallback.change in ("lora", "qlora")
    assert result.fallback.option.purchase_cost <= 800_000
    assert CATALOG.gpu(result.fallback.option.gpu_id).china in CHINA_BUYABLE


# --- the answers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "says"),
    [("Our team will LoRA-tune an 8B model, serve a 14B one, and once in a while run a full fine-tune of the 8B. $80k to spend: what hardware?",
      "most demanding"),
     ("要做8B模型的LoRA微调、部署14B模型推理，偶尔还要把8B全参微调一遍，预算60万，买什么配置？", "最吃显存")],
)
def test_the_answer_names_the_job_that_set_the_size(offline_advisor, question, says):
    response = offline_advisor.answer(question, [])
    call = _first(response, "recommend_gpus")
    assert call is not None and call.args.get("workloads")
    assert call.result["task"] == "full_finetune"
    assert says in response.summary


@pytest.mark.parametrize(
    ("question", "says", "number"),
    [("With only $1,500, what should I buy to run a 70B model for chat?", "does not buy", "$"),
     ("手上只有3000元，想本地跑70B大模型推理，买什么？", "买不到", "¥")],
)
def test_an_impossible_budget_is_said_first_with_the_price_that_works(offline_advisor, question, says, number):
    response = offline_advisor.answer(question, [])
    first = response.summary.split("\n\n")[0]
    result = _first(response, "recommend_gpus").result
    assert says in first and number in first
    assert f"{result['cheapest_cost']:,.0f}" in first


@pytest.mark.parametrize(
    ("question", "says"),
    [("Which GPUs should we get to serve Qwen2.5-32B on a $40k budget, and is renting cheaper than buying?", "Rent or buy"),
     ("预算30万元部署Qwen2.5-32B，推荐什么卡？租和买哪个划算？", "租还是买")],
)
def test_rent_or_buy_is_answered_inside_the_recommendation(offline_advisor, question, says):
    response = offline_advisor.answer(question, [])
    assert _first(response, "recommend_gpus") is not None
    tco = _first(response, "compute_tco")
    assert tco is not None and tco.args["server_price"] > 0  # the recommended configuration's whole price, not a default
    assert says in response.answer


def test_no_rent_line_when_renting_is_not_mentioned(offline_advisor):
    response = offline_advisor.answer("Which GPUs should we buy to serve Qwen2.5-32B on a $40k budget?", [])
    assert _first(response, "compute_tco") is None and "Rent or buy" not in response.answer


def test_a_yuan_budget_lists_only_parts_sold_in_china(offline_advisor):
    response = offline_advisor.answer("预算120万人民币，部署70B模型给团队用，推荐什么服务器？", [])
    result = _first(response, "recommend_gpus").result
    offered = [t["option"] for t in result["tiers"]] + result["options"]
    assert offered and all(CATALOG.gpu(o["gpu_id"]).china in CHINA_BUYABLE for o in offered)
    assert "买不到新卡" not in response.summary


def test_a_published_whole_server_quote_prices_the_configuration():
    # the H20 8-GPU machine has a distributor's price in knowledge/servers.yaml: the whole configuration uses it
    result = recommend(params_b=70, currency="CNY", region="cn", gpus=["h20"])
    h20 = next(o for o in result.options if o.count == 8)
    assert h20.purchase_cost == 1_400_000
    assert any("1,400,000" in r.en and "1,400,000" in r.zh for r in h20.reasons)
    usd = recommend(params_b=70, region="cn", gpus=["h20"]).options[0]
    assert usd.purchase_cost == pytest.approx(1_400_000 / RecommendRequest(params_b=1).usd_to_cny, rel=1e-6)


@pytest.mark.parametrize(
    "question",
    ["Plan: LoRA on Llama 3.1 8B plus a Qwen2.5-32B endpoint for 25 people at the same time, $70k. Which hardware?",
     "计划用LoRA微调Llama-3.1-8B，再上线一个Qwen2.5-32B给25人同时使用，预算60万元，配什么硬件？"],
)
def test_a_serving_load_stated_beside_a_training_job_sizes_the_serving_job(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    call = _first(response, "recommend_gpus")
    assert call.args.get("concurrency") == 25  # kept for the serving job, not set aside as a training input
    sized = next(d for d in call.result["workloads"] if d["sized_for"])
    assert sized["task"] == "inference" and sized["params_b"] > 30


def test_rent_or_buy_without_a_rental_price_says_what_to_give(offline_advisor):
    # a China buyer's DeepSeek-V3 box is an 8-GPU H20, which has no rental price in the catalog
    response = offline_advisor.answer("给DeepSeek-V3推荐一台服务器，预算280万元，租还是买？", [])
    tco = _first(response, "compute_tco")
    assert tco is not None and tco.result is None
    assert "没有" in response.summary and "租还是买" in response.summary and "报价" in response.summary
