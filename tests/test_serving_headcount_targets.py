"""Serving answers for a stated head-count at once and a first-token target (issue #35):

* people named by their job ("support agents", "客服", "坐席") said to use it at the same time are the concurrency
  the estimate sizes for, not one request;
* a first-token target keeps the chat streaming floor beside it: both are checked and the answer names the one that binds;
* multi-turn chat assumes the history prefix is cached (stated), a one-shot document workload does not.

Questions here are our own wording."""

from __future__ import annotations

import pytest

from advisor.nlu.asked import shares_prefix
from tests.threads import lead


def throughput_calls(response):
    return [c for c in response.tool_calls if c.name == "estimate_throughput" and c.result]


@pytest.mark.parametrize("question,load", [
    ("Our 90 call center agents use the assistant at the same time: Qwen2.5-14B on A100s, how many cards keep first token under 1 s?", 90),
    ("客服中心有90个客服同时使用Qwen2.5-14B，用A100的话要几张卡才能首字1秒以内？", 90),
])  # fmt: skip
def test_people_named_by_their_job_at_the_same_time_are_the_load(offline_advisor, question, load):
    response = offline_advisor.answer(question)
    calls = throughput_calls(response)
    assert calls, response.summary
    assert max(c.args.get("batch") or 1 for c in calls) >= load
    assert f"{load}" in lead(response)


@pytest.mark.parametrize("question,both_words,binds_words", [
    ("How many L40S for Qwen2.5-32B with 120 users at once and the first token within 1 second?", "chat floor", "binds"),
    ("Qwen2.5-32B 用 L40S，120 人同时使用，首 token 要在 1 秒内，需要几张卡？", "聊天下限", "起限制作用"),
])  # fmt: skip
def test_a_first_token_target_keeps_the_streaming_floor_and_names_the_binding_one(offline_advisor, question, both_words, binds_words):
    response = offline_advisor.answer(question)
    calls = throughput_calls(response)
    assert calls, response.summary
    assert any(c.args.get("target_ttft_ms") and c.args.get("target_tokens_per_s_per_user") for c in calls)
    assert both_words in lead(response)
    assert binds_words in response.summary


@pytest.mark.parametrize("text,expected", [
    ("multi-turn support chat, 40 users", True),
    ("多轮客服对话，40人同时用", True),
    ("one-shot summaries of contracts, each document is different", False),
    ("单轮长文档摘要", False),
    ("Llama 70B on 2 H100", None),
])  # fmt: skip
def test_the_workload_says_whether_a_prefix_is_shared(text, expected):
    assert shares_prefix(text) is expected
