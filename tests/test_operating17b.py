"""The operating point a serving headline is computed at follows the load the person described: users said to be online
at once are open chat sessions, a share of which is generating at any moment (knowledge/audience.yaml ``shares.online``),
so the speed is timed at that many requests in flight, not at the rate of a few requests an hour each, and not at every
online user at once. Both languages; wording here is our own."""

from __future__ import annotations

import pytest

from knowledge.audience import ONLINE, peak_load
from tests.threads import ask


def in_flight_timed(response) -> list[int]:
    """The concurrency each speed estimate of the answer was timed at."""
    return [call.args.get("batch") for call in response.tool_calls if call.name == "estimate_throughput" and call.result]


def test_online_sessions_are_a_share_generating_not_all_and_not_an_hourly_trickle():
    sessions = peak_load(300, "300 online", ONLINE)
    assert 0.05 <= sessions.share <= 0.2  # a reply's generation in a turn of reading and typing
    assert sessions.mean == pytest.approx(300 * sessions.share)
    assert sessions.mean <= sessions.concurrent < 300  # the peak share covered, never everyone online
    assert "arxiv.org/abs/2309.11998" in sessions.assumption().en  # the turn arithmetic's own source, not the daily-share one
    assert "2309.11998" in sessions.assumption().zh


@pytest.mark.parametrize("message", [
    "About 250 people will be online at the same time on our internal chat. One H100 with Qwen2.5-32B: what speed does each get?",
    "内部聊天工具高峰时大概同时在线250人，用一张H100跑Qwen2.5-32B，每个人能有多快？",
])
def test_speed_for_users_online_at_once_is_timed_at_the_share_generating(offline_advisor, message):
    response = ask(offline_advisor, message)
    expected = peak_load(250, "250", ONLINE).concurrent
    timed = in_flight_timed(response)
    assert timed and expected in timed, timed  # not 1–2 in flight (250 × 5 requests an hour), nor 250
    lead = response.answer.split("\n\n")[0]
    assert f"{expected}" in lead
    assert ("sessions" in lead) if response.language == "en" else ("会话" in lead)  # the reading said beside the figure


@pytest.mark.parametrize("message", [
    "LoRA fine-tuning Qwen2.5-14B on my RTX 4090 24GB runs out of memory. What should I do?",
    "在一张24GB的RTX 4090上做Qwen2.5-14B的LoRA微调，报 CUDA out of memory，怎么办？",
])
def test_a_lora_that_overflows_one_card_is_offered_a_4bit_base_on_that_card(offline_advisor, message):
    response = ask(offline_advisor, message)
    tried = [call.args.get("method") for call in response.tool_calls if call.name == "estimate_memory" and call.result]
    assert "qlora" in tried, tried  # not only ZeRO-3 across more cards
    assert "QLoRA" in response.answer


@pytest.mark.parametrize("message", [
    "How many users at once can a pair of RTX 4090s handle with Qwen2.5-32B?",
    "两张4090部署Qwen2.5-32B，最多能支持多少路并发？",
])
def test_a_concurrency_headline_is_the_count_at_the_chat_floor_not_the_kv_bound(offline_advisor, message):
    response = ask(offline_advisor, message)
    speeds = [call.result for call in response.tool_calls if call.name == "estimate_throughput" and call.result]
    full = max(speeds, key=lambda r: r["max_batch_fits"])
    at_floor, fits = full["max_concurrency_at_target"], full["max_batch_fits"]
    assert 0 < at_floor < fits  # the case: memory holds more than keep a chat speed
    lead = response.answer.split("\n\n")[0]
    assert f"{at_floor}" in lead and f"{fits} " not in lead  # the usable count leads; the KV bound follows apart
    assert f"{fits}" in response.answer
