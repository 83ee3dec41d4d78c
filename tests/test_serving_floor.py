"""Serving answers judged at the stated load: the per-user speed against a sourced chat floor when no target is given
(and the smallest setup that meets it when the stated one misses), requests the KV cache cannot hold, the GPU-to-GPU
link as a binding limit, a day's users read as traffic, and a range of models answered per end.

Questions here are our own wording."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from tools.serving.estimator import ThroughputRequest, estimate_throughput
from tests.threads import ask, lead

FLOOR_URL = "mlcommons.org/2025/04/llm-inference-v5"


def speeds(response):
    return [c for c in response.tool_calls if c.name == "estimate_throughput" and c.result]


@pytest.mark.parametrize("question,floor_words,reaches", [
    ("Is a pair of RTX 4090s enough for Qwen2.5-72B AWQ with 40 people chatting at the same time?", "chat floor", "What meets it"),
    ("四块4090部署Qwen2.5-72B-AWQ，40人同时聊天，能行吗？", "聊天下限", "能达标的配置"),
])  # fmt: skip
def test_a_load_that_leaves_each_user_below_the_floor_says_no_and_names_what_meets_it(offline_advisor, question, floor_words, reaches):
    response = ask(offline_advisor, question)
    first = speeds(response)[0]
    assert first.args["target_tokens_per_s_per_user"] == 20  # the floor, since no target was stated
    assert floor_words in lead(response)
    assert reaches in response.summary
    assert FLOOR_URL in response.answer  # the floor is sourced where the assumptions are listed


@pytest.mark.parametrize("question,verdict", [
    ("Llama 3.1 8B on one H100 with 16 simultaneous users, what speed does each get?", "Fast enough for chat"),
    ("一张H100跑Llama 3.1 8B，16个人同时用，每人速度多少？", "够聊天用"),
])  # fmt: skip
def test_a_load_that_clears_the_floor_says_so_in_the_lead(offline_advisor, question, verdict):
    response = ask(offline_advisor, question)
    at_load = next(c for c in speeds(response) if c.args.get("batch") == 16)
    assert at_load.result["tokens_per_s_per_user_streaming"] >= 20
    assert verdict in lead(response)


@pytest.mark.parametrize("question,words", [
    ("Qwen2.5-32B on a single A100 80GB with 120 concurrent chats, how fast per person?", "not all 120 at once"),
    ("单张A100 80G跑Qwen2.5-32B，120路并发，每人多快？", "不能同时服务 120 路"),
])  # fmt: skip
def test_more_users_than_the_kv_cache_holds_lead_as_not_all_at_once(offline_advisor, question, words):
    response = ask(offline_advisor, question)
    first = speeds(response)[0]
    assert first.result["effective_batch"] < 120
    assert words in lead(response) and f"{first.result['effective_batch']:,}" in lead(response)


def test_a_measured_speed_keeps_no_floor():
    # the floor is a default target; a thread that asks whether a measured speed is normal compares with the estimate instead
    from advisor.offline.tasks.serving.serving_floor import FLOOR_MARK, tool_args

    assert FLOOR_MARK not in tool_args({FLOOR_MARK: True, "model": "x"})


def test_tensor_parallel_over_pcie_is_named_as_the_binding_link():
    catalog, serving = load_catalog(), load_serving_data()
    consumer = estimate_throughput(ThroughputRequest(model="qwen2.5-72b", precision="awq-int4", gpu="RTX 4090", num_gpus=4, batch=50), catalog, serving)
    nvlinked = estimate_throughput(ThroughputRequest(model="qwen2.5-72b", gpu="H100", num_gpus=4, batch=50), catalog, serving)
    assert consumer.bound == "interconnect" and nvlinked.bound != "interconnect"


def test_a_follow_up_with_more_cards_gives_a_new_verdict(offline_advisor):
    first = "Is a pair of RTX 4090s enough for Qwen2.5-72B AWQ with 40 people chatting at the same time?"
    response = ask(offline_advisor, "what about eight of them?", first)
    assert any(c.args.get("num_gpus") == 8 for c in speeds(response))
    assert "chat floor" in response.summary


def test_daily_users_written_before_the_number_are_traffic_zh(offline_advisor):
    response = ask(offline_advisor, "日活3000人，部署Llama-3.1-70B，需要几张H100？")
    assert "利特尔法则" in response.summary  # a day's users at the peak rate, not 3000 (or a tenth of it) at once
    assert all(c.args.get("batch", 1) < 300 for c in speeds(response))


@pytest.mark.parametrize("question,small,large,words", [
    ("Qwen2.5 7B to 72B served on 4 A100 to 24 users, how fast?", "Qwen2.5-7B", "Qwen2.5-72B", "the larger end decides"),
    ("Qwen2.5-14B和32B放到两张L40S上，20人并发，各自多快？", "Qwen2.5-14B", "Qwen2.5-32B", "由大的一端决定"),
])  # fmt: skip
def test_a_model_range_gets_a_row_per_end_and_names_the_end_that_decides(offline_advisor, question, small, large, words):
    response = ask(offline_advisor, question)
    assert words in lead(response) and small in lead(response) and large in lead(response)
    models = {c.result["model_name"] for c in speeds(response)}
    assert {small, large} <= models
    table = response.summary.split("\n\n")[1]
    assert table.count("\n") >= 3 and small in table and large in table  # header, rule, a row per end


def test_one_model_named_twice_is_no_range(offline_advisor):
    response = ask(offline_advisor, "Llama 3.1 70B (so a 70B model) on 4 H100 for 20 users, speed per user?")
    assert "larger end" not in response.summary
