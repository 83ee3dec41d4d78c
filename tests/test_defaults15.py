"""Defaults that fit the asker (issue #35, defaults15), in both languages with our own wording:

- a cost per token on the user's own desktop or workstation is judged by what the box runs, its speed, its power and its
  purchase, at one request at a time (or the load said), never by a cloud rate kept full (Ask.personal_machine,
  knowledge/own_machine.yaml);
- a stated load prices a token at that load, not at the most requests the KV cache holds;
- a comparison's first sentence names both sides, the figures that decide it and what would turn it;
- buy-now-or-wait for a GeForce card leads with the decision and its deciding facts, not a spec sheet.
"""

from __future__ import annotations

import pytest

from advisor.config import Settings
from advisor.deps import build_advisor
from advisor.nlu.cues import says
from tests.threads import lead


@pytest.fixture(scope="module")
def advisor():
    return build_advisor(Settings.from_env({}))


@pytest.mark.parametrize("message, expected", [
    ("what would Mistral 7B cost per token on the 3090 in my desktop?", True),
    ("running it locally on my own machine", True),
    ("我家里那台台式机装了一张4090", True),
    ("课题组的工作站上跑", True),
    ("cost per million tokens for Llama 3.1 70B on 8x H100 in our cluster", False),
    ("公有云上8张H100每百万token多少钱", False),
])  # fmt: skip
def test_personal_machine_cue(message, expected):
    assert says("personal_machine", message) is expected


@pytest.mark.parametrize("message, words, absent", [
    ("My home lab box has a single RTX 3090. What is the cost per million tokens of Mistral 7B on it?",
     ("Your own 1×", "one request at a time", "power it draws", "per million", "purchase"), ("kept full, at",)),
    ("课题组工作站里插着一张 RTX 6000 Ada，用它跑 Qwen2.5-14B 推理，每百万 token 成本多少？",
     ("您自己的", "一次一路请求", "耗电", "每百万", "采购价"), ("满负荷运行，按",)),
])  # fmt: skip
def test_own_desktop_cost_per_token_leads_with_speed_and_power(advisor, message, words, absent):
    r = advisor.answer(message, [])
    first = lead(r)
    assert all(w in first for w in words), first
    assert not any(w in first for w in absent), first
    assert "compute_tco" in [c.name for c in r.tool_calls]
    assert any("PUE 1.0" in a for a in r.answer.splitlines()), r.answer  # the desktop site is said as an assumption


def test_stated_load_prices_the_token_at_that_load(advisor):
    r = advisor.answer("One L40S in our rack serves Qwen2.5-14B to 4 concurrent users. What is the cost per million output tokens?", [])
    first = lead(r)
    assert "kept full" not in first and "requests at once" in first, first


@pytest.mark.parametrize("message, words", [
    ("For serving Llama 3.1 70B, is the H100 SXM or the A100 80GB SXM the better pick?", ("Choose", "tokens/s")),
    ("跑 Qwen2.5-72B 推理，A100 80GB SXM 和 H100 SXM 选哪个？", ("建议选", "token/s")),
])  # fmt: skip
def test_comparison_first_sentence_has_both_sides_and_the_figures(advisor, message, words):
    first = lead(advisor.answer(message, [])).split("\n")[0]
    assert all(w in first for w in words), first
    assert first.count("A100") >= 1 and first.count("H100") >= 1, first  # both sides in the verdict itself


@pytest.mark.parametrize("message, words", [
    ("Thinking of a 4090 for local LLMs: grab one now or hold out for the 5090?", ("5090", "on sale", "$1,999")),
    ("想给自己的电脑配张 4090 跑本地大模型，现在入手还是再等等 5090？", ("5090", "在售", "1,999")),
])  # fmt: skip
def test_geforce_buy_now_or_wait_leads_with_the_decision(advisor, message, words):
    first = lead(advisor.answer(message, []))
    assert all(w in first for w in words), first
    assert "stronger card" not in first and "都更强" not in first  # not a spec sheet's lead


@pytest.mark.parametrize("message, whole, host", [
    ("We are choosing between 4x RTX 4090 and 1x RTX 6000 Ada to LoRA fine-tune a 13B model. Which one, counting what we pay?",
     "as a whole machine", "4-GPU workstation"),
    ("要做 13B 模型的 LoRA 微调，买 4 张 RTX 4090 还是 1 张 RTX 6000 Ada 划算？", "整机采购", "4 卡工作站"),
])  # fmt: skip
def test_a_purchase_comparison_prices_the_whole_configuration(advisor, message, whole, host):
    r = advisor.answer(message, [])
    assert "estimate_server_price" in [c.name for c in r.tool_calls]
    assert whole in r.answer and host in r.answer, r.answer
    assert "$6,396 " not in r.answer and "$6,396，" not in r.answer, r.answer  # never four cards' price alone against one card's
    assert "$16,396" in r.answer, r.answer  # 4 × $1,599 + the workstation they go in


def test_a_mainland_comparison_gives_the_reasoning_before_the_warnings(advisor):
    r = advisor.answer("A800 和 H20 比一比，哪个更适合我们？", [])
    paragraphs = r.answer.split("\n\n")
    warned = next(i for i, p in enumerate(paragraphs) if "⚠️" in p)
    table = next(i for i, p in enumerate(paragraphs) if p.lstrip().startswith("|"))
    assert 1 < warned < table, paragraphs[: table + 1]  # the verdict, its reasoning, then what cannot be bought, then the figures


@pytest.mark.parametrize("message, words", [
    ("Our team of 30 engineers will share one L40S running Llama 3.1 8B. How fast will it be for each of them?",
     ("6 users at once", "10%", "30 engineers", "95%")),  # 3 on average at the busiest moment, 6 covers 95% of them
    ("我们组 6 个人共用一张 H100 跑 Llama 3.1 8B 推理，每人速度大概多少？", ("按高峰约 2 人同时使用", "10%", "95%")),
])  # fmt: skip
def test_serving_lead_says_the_peak_taken_from_the_team(advisor, message, words):
    first = lead(advisor.answer(message, []))
    assert all(w in first for w in words), first
