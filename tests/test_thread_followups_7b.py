"""Follow-ups that must continue the answer just given (#36 item 4): a time to first token asked of the setup a count
sized, a recommendation re-run with another load that says what moved, and a concept follow-up naming a new subject
of the same kind. Every conversation here is our own wording."""

from __future__ import annotations

import re

import pytest

from tests.threads import thread



def _largest_setup(response):
    """(GPUs, TP, precision) of the throughput estimate at the largest load: the setup the answer leads with."""
    runs = [call for call in response.tool_calls if call.name == "estimate_throughput" and call.result]
    top = max(runs, key=lambda call: call.args.get("batch") or 1)
    return top.args.get("num_gpus"), top.args.get("tp"), top.args.get("precision"), top.result["ttft_ms"]


@pytest.mark.parametrize(
    ("messages", "ttft_words"),
    [
        (["We want Qwen2.5-72B on L20 cards for 1500 people chatting at once, how many cards?", "and what TTFT would that give?"],
         "Time to first token"),
        (["Qwen2.5-72B 放在 L20 上，1500 人同时聊天，要几张卡？", "那首token延迟是多少？"], "首 token 延迟"),
    ],
)
def test_ttft_follow_up_reads_the_sized_setup_and_leads_with_the_time(offline_advisor, messages, ttft_words):
    sized, latency = thread(offline_advisor, *messages)
    first_line = latency.summary.strip().split("\n")[0]
    assert ttft_words in first_line  # the time leads, not the tokens/s
    assert not any(call.name == "recommend_gpus" for call in latency.tool_calls)  # no memory-only recommendation
    gpus, tp, precision, ttft = _largest_setup(sized)
    assert _largest_setup(latency)[:3] == (gpus, tp, precision)  # the same setup at the same load: not re-sized
    assert f"{ttft:,.1f}".rstrip("0").rstrip(".") in first_line


@pytest.mark.parametrize(
    ("messages", "moved"),
    [
        (["Which GPUs should we buy to serve Llama 3 70B to 80 concurrent users?", "and for 400 users?"],
         r"The recommendation (moves from .+ to .+|stays .+): .*\d+ → \d+"),
        (["给80个并发用户部署Llama 3 70B，买什么卡？", "要是400个用户呢？"], r"推荐配置(由 .+ 改为 .+|仍是 .+)：.*\d+ → \d+"),
    ],
)
def test_recommendation_rerun_says_old_and_new_config_price_and_speed(offline_advisor, messages, moved):
    before, after = thread(offline_advisor, *messages)
    first_line = after.summary.strip().split("\n")[0]
    assert re.search(moved, first_line), first_line
    assert "→" in first_line.split("**")[0]  # the change is said before the new answer's own verdict
    old_price = [call for call in before.tool_calls if call.name == "recommend_gpus"][0].result["tiers"][0]["option"]["purchase_cost"]
    assert f"{old_price:,.0f}" in first_line  # the old figure comes from the previous answer's own result


@pytest.mark.parametrize(
    ("messages", "card_title"),
    [
        (["Tell me about FP8 precision", "what about MXFP8 then?"], "MXFP8"),
        (["讲讲FP8精度", "MXFP8又怎么样？"], "MXFP8"),
    ],
)
def test_concept_follow_up_naming_a_new_precision_gets_that_card(offline_advisor, messages, card_title):
    first, follow = thread(offline_advisor, *messages)
    first_title = first.summary.strip().split("\n")[0]
    assert card_title not in first_title  # the thread opened on FP8 in general
    title = follow.summary.strip().split("\n")[0]
    assert card_title in title and first_title not in follow.summary  # the new subject's card, not the first one again
    assert "🧮" not in follow.summary or ("前面的计算仍然有效" not in follow.summary and "still stands" not in follow.summary)


@pytest.mark.parametrize(
    "message",
    [
        "Would B200 and H200 boxes fit our 17 kW cabinets? How many in each rack?",
        "B200和H200的服务器放得进我们17千瓦的机柜吗？每个机柜能放几台？",
    ],
)
def test_rack_question_told_in_two_steps_is_answered_once(offline_advisor, message):
    answer = offline_advisor.answer(message, [])
    assert not answer.summary.lstrip().startswith("**1.**")  # not split into a first and a second part
    assert "**2.**" not in answer.summary
    plans = [call for call in answer.tool_calls if call.name == "plan_facility"]
    assert len({(call.args.get("gpu"), call.args.get("rack_kw")) for call in plans}) == len(plans) == 2  # each card planned once
