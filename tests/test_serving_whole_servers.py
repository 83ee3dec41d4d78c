"""A serving GPU count past one server is also said in the whole servers a buyer orders (a count of 12 or 13 cards
is two 8-GPU servers, the slots left over named), in both languages; "320 simultaneous sessions" is that load, not a headcount."""

from __future__ import annotations

import re

import pytest


@pytest.mark.parametrize(
    ("message", "servers_word"),
    [
        ("We expect 320 simultaneous chats on Llama 3.1 70B, each wanting at least 20 tokens/s. How many H100s?", "In whole servers"),
        ("Llama 3.1 70B 要同时服务 320 个会话、每个至少 20 token/s，需要几张 H100？", "按整机采购"),
    ],
)
def test_a_count_past_one_server_is_said_in_whole_servers(offline_advisor, message, servers_word):
    response = offline_advisor.answer(message, [])
    counted = [c for c in response.tool_calls if c.name == "estimate_throughput" and c.error is None]
    total = counted[-1].args["num_gpus"]
    assert total > 8 and total % 8, f"320 sessions at 20 tok/s each should take more than a server, not whole servers: {total}"
    assert servers_word in response.summary
    line = next(line for line in response.summary.splitlines() if servers_word in line)
    servers = -(-total // 8)
    assert re.search(rf"\b{servers}\b", line) and re.search(rf"\b{servers * 8}\b", line)


def test_a_count_that_fills_servers_exactly_says_nothing_more(offline_advisor):
    response = offline_advisor.answer("How many H100s to serve Llama 3.1 8B to 4 concurrent users?", [])
    total = [c for c in response.tool_calls if c.name == "estimate_throughput" and c.error is None][-1].args["num_gpus"]
    assert total <= 8 and "In whole servers" not in response.summary
