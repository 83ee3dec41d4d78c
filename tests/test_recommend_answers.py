"""What a recommendation answer says about the buyer's market and budget (real offline answers)."""

from __future__ import annotations

import pytest


def _first_tool(response, name):
    return next(c for c in response.tool_calls if c.name == name)


@pytest.mark.parametrize(
    "question",
    ["Budget is $120k, we need to serve a 70B model to our support team. Which server?",
     "what should a US lab buy to fine-tune qwen2.5 32b with lora, about $90k to spend"],
)
def test_a_dollar_buyer_is_not_offered_china_market_parts(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    result = _first_tool(response, "recommend_gpus").result
    offered = {o["gpu_id"] for o in result["options"]}
    assert offered and not offered & {"h20", "l20", "h800-sxm", "a800-80gb-sxm", "ascend-910b", "ascend-910c", "rtx-4090d", "rtx-5090d"}
    # the China-market parts are named only when one would otherwise have taken a tier, never as the whole list
    lines = [e["en"] for e in result["excluded"] if "outside China" in e["en"]]
    assert len(lines) <= 1 and all(line.count(",") <= 2 for line in lines), lines


def test_a_named_china_part_is_still_compared_for_a_dollar_buyer(offline_advisor):
    response = offline_advisor.answer("H20 or H100 for serving llama 3.1 70b, budget $300k?", [])
    calls = [c for c in response.tool_calls if c.name == "recommend_gpus"]
    if calls:  # answered as a recommendation: the named cards stay
        assert "h20" in {o["gpu_id"] for o in calls[0].result["options"]}


@pytest.mark.parametrize(
    ("question", "says"),
    [("预算40万，做Qwen2.5-32B的LoRA微调，该买什么机器", "整套约"),  # a whole configuration within the budget, priced in the lead
     ("QLoRA a 13B model on my own PC, which card?", "QLoRA")],
)
def test_budget_and_method_are_answered_as_stated(offline_advisor, question, says):
    response = offline_advisor.answer(question, [])
    assert says in response.summary.split("\n\n")[0]
