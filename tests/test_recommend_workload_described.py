"""Recommendations and comparisons that read the described workload and decide (issue #35), in both languages, our own
wording: "X instead of Y" weighs both parts as a shortlist; a comparison where one option is cheaper and the other
faster still picks one, with the number; a mainland buyer naming a part not sold new there hears the parts sold there
first; a team's service is sized for its peak load, said beside the verdict."""

from __future__ import annotations

import pytest

from advisor.nlu.ask import Ask
from advisor.nlu.reader import shared_understanding
from knowledge.catalog import load_catalog


@pytest.fixture(scope="module")
def ask_of():
    understanding, catalog = shared_understanding(), load_catalog()
    return lambda message: Ask.read(understanding.read(message, []), catalog)


def _first_lines(response, lines: int = 4) -> str:
    kept = [line for line in response.answer.splitlines() if line.strip()]
    return "\n".join(kept[:lines])


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Would the MI300X instead of the H100 be smarter for serving Qwen2.5-72B?", {"mi300x", "h100-sxm"}),
        ("Could we buy L40S in place of A100 80GB for a 13B chatbot?", {"l40s", "a100-80gb-sxm"}),
        ("想用昇腾910B替代A100部署Qwen2.5-32B，可行吗？", {"ascend-910b", "a100-80gb-sxm"}),
        ("部署Llama 3.1 70B，用H20代替H100行不行？", {"h20", "h100-sxm"}),
    ],
)
def test_instead_of_is_a_shortlist_of_both_parts(ask_of, message, expected):
    ask = ask_of(message)
    assert ask.weighs_shortlist
    assert {card for card, _ in ask.candidate_configs} == expected


@pytest.mark.parametrize(
    ("question", "picked", "undecided"),
    [
        ("For serving Qwen2.5-32B to our customers, is the H100 or the RTX 6000 Ada the better buy?", "**Choose", "matters most"),
        ("给客户提供Qwen2.5-32B推理服务，H100和RTX 6000 Ada选哪个？", "**建议选", "看重成本选"),
    ],
)
def test_a_comparison_picks_one_option(offline_advisor, question, picked, undecided):
    response = offline_advisor.answer(question, [])
    assert undecided not in response.answer
    assert picked in _first_lines(response, 6)


@pytest.mark.parametrize(
    ("question", "blocked", "sold"),
    [
        ("Our team is in Shenzhen and wants to buy H100s to serve Llama 3.1 70B. How many?", "cannot be bought new", "H20"),
        ("国内采购，预算100万人民币，想买H100跑Qwen2.5-72B推理，要几张？", "买不到新卡", "H20"),
    ],
)
def test_a_mainland_buyer_naming_a_barred_part_gets_the_part_sold_there_first(offline_advisor, question, blocked, sold):
    response = offline_advisor.answer(question, [])
    head = _first_lines(response, 3)
    assert blocked in head and sold in head
    result = next(c for c in response.tool_calls if c.name == "recommend_gpus").result
    assert result["options"] and result["options"][0]["gpu_id"] == "h20"


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("We want Llama 3.1 70B as an internal assistant for 200 employees, budget $150k. What should we buy?", "users at once"),
        ("公司120名员工要用Qwen2.5-72B做内部知识问答，预算60万人民币，买什么？", "同时使用"),
    ],
)
def test_a_team_service_is_sized_for_its_peak_and_says_so_in_the_lead(offline_advisor, question, says):
    response = offline_advisor.answer(question, [])
    call = next(c for c in response.tool_calls if c.name == "recommend_gpus")
    assert (call.args.get("concurrency") or 1) > 1  # never one user for a company
    assert says in response.answer.split("\n\n")[0]


@pytest.mark.parametrize(
    ("question", "model", "says"),
    [
        ("Our budget is $100k for an in-house assistant that about 300 employees will use. What do we buy?", "llama-3.3-70b", "No model named"),
        ("给公司20名员工搭一个内部问答助手，预算25万，买什么？", "qwen2.5-32b", "未指定模型"),
    ],
)
def test_a_team_service_without_a_model_is_sized_on_a_stated_default(offline_advisor, question, model, says):
    response = offline_advisor.answer(question, [])
    call = next(c for c in response.tool_calls if c.name == "recommend_gpus")
    assert call.args["model"] == model and (call.args.get("concurrency") or 1) > 1
    assert says in "\n\n".join(response.answer.split("\n\n")[:3])  # beside the verdict, not only under the assumptions
