"""Issue #35 item 2, real offline answers: the serving floor named in the answer, many users served by copies of a
card rather than one card crawling, and a budget per month set against renting, in both languages."""

from __future__ import annotations

import re

import pytest

from knowledge.servers import server_data
from knowledge.traffic import chat_floor


def _recommendation(response):
    return next(c for c in response.tool_calls if c.name == "recommend_gpus").result


@pytest.mark.parametrize("question", ["Which hardware should we buy so 120 staff can chat with a 14B model at the same time?",
                                      "公司 120 个人要同时用 14B 模型聊天，应该买什么硬件？"])  # fmt: skip
def test_many_users_without_a_speed_get_the_floor_and_say_so(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    result = _recommendation(response)
    floor = chat_floor()
    assert result["speed_floor"] == floor.tokens_per_s_per_user
    assert all(t["option"]["tokens_per_s_per_user"] >= floor.tokens_per_s_per_user for t in result["tiers"])
    assert floor.source.url in response.answer


@pytest.mark.parametrize(("question", "words"), [
    ("We have $4,000 a month to spend on GPUs for a 32B model for the team; what should we get?", ("a month is a running budget", "around the clock")),
    ("团队每个月有2.5万元的GPU预算，跑32B模型，配什么？", ("按租用来衡量", "全天候租用")),
])  # fmt: skip
def test_a_monthly_budget_is_answered_as_rent(offline_advisor, question, words):
    response = offline_advisor.answer(question, [])
    first = response.summary.split("\n\n")[0]
    assert all(w in first for w in words), first
    call = next(c for c in response.tool_calls if c.name == "recommend_gpus")
    assert call.args.get("budget_per") == "month"
    assert not re.search(r"does not buy|买不到", first)  # not read as a one-off purchase
