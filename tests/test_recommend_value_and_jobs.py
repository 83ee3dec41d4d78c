"""Issue #35 item 2: value-for-money questions rank by speed per price at a team's load; two jobs in one request
("quantised serving of one model, LoRA on another") are sized each on its own, the serving job in 4-bit; a large
budget is spent on the recommended tier. Both languages, wording of our own."""

from __future__ import annotations

import pytest

from advisor.markdown import number
from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from tools.recommend import RecommendRequest, recommend_gpus

CATALOG = load_catalog()
SERVING = load_serving_data()


def _call(response, name="recommend_gpus"):
    return next(c for c in response.tool_calls if c.name == name)


def test_value_ranks_by_tokens_per_second_per_price_not_by_price():
    result = recommend_gpus(RecommendRequest(model="llama-3-70b", objective="value", concurrency=16), CATALOG, SERVING)
    values = [o.tokens_per_s_per_10k for o in result.options if o.tokens_per_s_per_10k is not None]
    assert len(values) >= 2 and values == sorted(values, reverse=True)
    cheapest = recommend_gpus(RecommendRequest(model="llama-3-70b", objective="cheapest", concurrency=16), CATALOG, SERVING)
    assert result.options[0].tokens_per_s_per_10k >= cheapest.options[0].tokens_per_s_per_10k


@pytest.mark.parametrize(
    ("question", "heading"),
    [("For serving anything between 8B and 70B, which accelerator is the most cost-effective?", "Best value first"),
     ("部署8B到70B之间的模型，买哪种卡最有性价比？", "按性价比排序")],
)
def test_a_value_question_is_answered_by_speed_per_price_at_a_team_load(offline_advisor, question, heading):
    response = offline_advisor.answer(question, [])
    call = _call(response)
    assert call.args["objective"] == "value" and call.args["concurrency"] >= 2
    assert heading in response.summary
    first = call.result["options"][0]
    assert number(first["tokens_per_s_per_10k"]) in response.summary  # the figure is the tool's


@pytest.mark.parametrize(
    "question",
    ["Cheapest card that can host Qwen2.5-14B?", "跑Qwen2.5-14B最便宜的卡是哪张？"],
)
def test_cheapest_still_means_the_lowest_price(offline_advisor, question):
    assert _call(offline_advisor.answer(question, [])).args["objective"] == "cheapest"


@pytest.mark.parametrize(
    "question",
    ["Plan: serve a quantized 70B for chat, and separately LoRA-tune a 30B. What should we buy for about $12,000?",
     "打算部署一个70B量化模型做推理，另外再对30B做LoRA微调，预算8万元，买什么？"],
)
def test_quantised_serving_and_a_lora_on_another_model_are_two_jobs(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    call = _call(response)
    jobs = {(d["params_b"], d["task"]) for d in call.result["workloads"]}
    assert jobs == {(70.0, "inference"), (30.0, "lora")}  # no LoRA on the 70B, no serving of the 30B
    sized = next(d for d in call.result["workloads"] if d["sized_for"])
    assert sized["task"] == "lora"  # 4-bit 70B weights need less than a 16-bit LoRA of the 30B
    serving = [w for w in [call.args, *call.args["workloads"]] if w.get("task") == "inference"]
    assert serving and all("int4" in (w.get("precision") or "") for w in serving)


@pytest.mark.parametrize(
    ("question", "word"),
    [("We can spend $280k on hardware to serve Llama 3 70B to roughly 150 staff. What should we buy?", "budget"),
     ("公司预算28万美元，给大约150名员工部署Llama 3 70B，该买什么硬件？", "预算")],
)
def test_a_large_budget_leads_with_the_best_configuration_it_buys(offline_advisor, question, word):
    response = offline_advisor.answer(question, [])
    result = _call(response).result
    tiers = {t["name"]: t for t in result["tiers"]}
    best = tiers["recommended"]["option"]
    assert best["within_budget"] and best["count"] == 8
    assert "budget" not in tiers or tiers["budget"]["option"]["purchase_cost"] < best["purchase_cost"]
    first = response.summary.split("\n\n")[0]
    assert best["gpu_name"].split()[-1] in first or best["gpu_name"].split()[-2] in first
    assert word in response.summary
