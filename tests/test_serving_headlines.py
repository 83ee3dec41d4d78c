"""Serving answers lead with the figure that was asked: the concurrency the KV cache holds, the fewest GPUs for a
load and a latency target, or the speed; an audience is converted to a peak load; "FP8 or not?" is answered.

Wording here is our own."""

from __future__ import annotations

import pytest

from advisor.markdown import number
from advisor.nlu.asked import asks_precision_choice, is_latency_target, serving_asks
from knowledge.audience import audience_kind, peak_load
from knowledge.catalog import load_catalog
from tests.threads import ask


def speed_calls(response):
    return [call for call in response.tool_calls if call.name == "estimate_throughput"]


def answered(response):
    return [call for call in speed_calls(response) if call.result]


# --- what is asked, from the words (no model needed) ---


@pytest.mark.parametrize("messages,kind", [
    (["how many simultaneous conversations fit on two l40s for mistral 7b?"], "concurrency"),
    (["两张4090跑qwen2.5 14b最多并发多少？"], "concurrency"),
    (["how many a100s do we need for a 70b model behind a chatbot?"], "gpu_count"),
    (["qwen2.5 72b 首token延迟低于300毫秒要几张H20？"], "gpu_count"),
    (["what latency would one l4 give for qwen2.5 7b?"], "latency"),
    (["how many in parallel can a pair of h100s run qwen2.5 72b at 32k?"], "concurrency"),
    (["tokens per second of llama 3.1 8b on an a10?"], "speed"),
    (["how many chats can a single h200 keep going with llama 3.1 70b fp8?", "and two of them?"], "concurrency"),
])  # fmt: skip
def test_what_a_serving_question_asks_is_read_from_its_words(messages, kind):
    assert serving_asks(messages) == kind


def test_a_precision_is_a_choice_only_when_the_question_weighs_it():
    assert asks_precision_choice("serving qwen 72b on h100s, is fp8 worth it?")
    assert asks_precision_choice("H20上部署要不要用FP8")
    assert not asks_precision_choice("speed of llama 3.1 70b fp8 on two h100")
    assert not asks_precision_choice("FP8的70B在两张H100上每秒多少token")


def test_a_target_written_as_a_time_is_a_first_token_target():
    catalog = load_catalog()
    assert is_latency_target("first reply token within 2 seconds", catalog) and is_latency_target("首字300毫秒以内", catalog)
    assert not is_latency_target("30 tokens/s for everyone", catalog) and not is_latency_target("每人每秒20个token", catalog)


def test_an_audience_becomes_a_peak_share_that_is_said():
    daily = peak_load(1200, "1200 daily users")
    # 5% of a day's users on average (60), sized for the count that covers 95% of busiest moments
    assert audience_kind("1200 daily users") == "daily" and daily.mean == 60 and daily.concurrent == 73
    assert audience_kind("月活两万") == "monthly" and peak_load(20000, "月活两万").concurrent == 224  # 1% is 200 on average
    staff = peak_load(40, "40名工程师")
    assert staff.kind == "headcount" and staff.mean == 4 and staff.concurrent == 7
    assert peak_load(3, "3 analysts").concurrent == 1  # never below one
    text = daily.assumption()
    assert "73" in text.en and "60" in text.en and "95%" in text.en and "5%" in text.en and "http" in text.en and "60" in text.zh and "日活" in text.zh


# --- the answers ---


def test_a_concurrency_question_leads_with_the_sequences_the_cache_holds(offline_advisor):
    response = ask(offline_advisor, "how many simultaneous conversations can llama 3.1 70b hold on 4 a100 with vllm at 8k context?")
    first = answered(response)[0]
    assert first.args["prompt_tokens"] + first.result["output_tokens"] == 8192  # the context is one whole sequence
    at_load = answered(response)[1]
    fits = at_load.result["effective_batch"]  # the sequences that fit with a full batch's prefill room kept
    assert at_load.args["batch"] == first.result["max_batch_fits"] and fits > 1
    # at ≈ 2 tokens/s each when all of them run, the cache's count is no concurrency: the count at the chat floor leads,
    # and the cache's count follows as the second limit
    at_floor = at_load.result["max_concurrency_at_target"]
    assert 0 < at_floor < fits
    assert response.summary.startswith(f"**≈ {at_floor:,} concurrent users at the chat floor")
    shown = float(response.summary.split("each user sees ≈ ")[1].split(" ")[0])  # one per-user figure, at that count
    assert shown >= 20
    assert f"≈ {fits:,} sequences of 8,192 tokens" in response.answer
    zh = ask(offline_advisor, "Qwen2.5-72B部署在4张H100上，8k上下文最多支持多少并发？")
    full_zh = answered(zh)[1].result
    assert zh.summary.startswith("**在") and f"约 {full_zh['max_concurrency_at_target']:,} 路并发**" in zh.summary
    assert f"约 {full_zh['effective_batch']:,} 条" in zh.answer


def test_changing_the_card_in_a_follow_up_recounts_the_concurrency(offline_advisor):
    first_question = "4张H100跑Qwen2.5-72B，8k上下文能有多少并发？"
    before = answered(ask(offline_advisor, first_question))[0].result["max_batch_fits"]
    after = ask(offline_advisor, "换成H200呢？", first_question)
    recount = answered(after)[0]
    assert recount.args["gpu"].startswith("h200") and recount.result["max_batch_fits"] > before
    assert after.summary.startswith("改为显卡 NVIDIA H200")  # the follow-up says what it changed, then the recount
    assert "路并发**" in after.summary.split("\n")[0] and f"{recount.result['max_batch_fits']:,}" in after.answer


def test_a_gpu_count_question_sizes_the_load_and_the_target_not_memory_alone(offline_advisor):
    response = ask(
        offline_advisor, "How many H100s would llama 3.1 70b need to serve 100 users at once, each getting at least 20 tokens/s?"
    )
    final = answered(response)[-1]
    count = final.args["num_gpus"]
    assert response.summary.startswith(f"**{count}× NVIDIA H100")
    assert final.args["batch"] == 100 and final.result["decode_tokens_per_s_per_seq"] >= 20
    assert final.args["precision"] == "fp8" and "FP8" in response.summary  # the card computes in FP8: said, and used
    smaller = [c for c in speed_calls(response) if c.args.get("tp", 0) < final.args["tp"]]
    assert smaller and all(not c.result or (c.result["max_concurrency_at_target"] or 0) < 100 for c in smaller)
    a100 = ask(
        offline_advisor,
        "and with A100s?",
        "How many H100s would llama 3.1 70b need to serve 100 users at once, each getting at least 20 tokens/s?",
    )
    redone = answered(a100)[-1]
    assert redone.args["gpu"].startswith("a100") and a100.summary.startswith("With GPU NVIDIA A100")  # what changed, first
    assert f"**{redone.args['num_gpus']}× NVIDIA A100" in a100.summary.split("\n")[0]


def test_a_latency_target_in_chinese_sizes_the_first_token_time(offline_advisor):
    response = ask(offline_advisor, "部署Llama 3.1 70B，提示词4k，首token延迟要低于500毫秒，需要几张H100？")
    final = answered(response)[-1]
    assert final.args["target_ttft_ms"] == 500 and final.result["ttft_ms"] <= 500
    assert response.summary.startswith(f"**{final.args['num_gpus']} 张 NVIDIA H100")


def test_a_plain_speed_question_still_leads_with_the_speed(offline_advisor):
    response = ask(offline_advisor, "tokens per second for llama 3.1 8b on a single rtx 4090?")
    (only,) = speed_calls(response)
    assert response.summary.startswith(f"**≈ {number(only.result['decode_tokens_per_s_per_seq'])} tokens/s per user")


def test_daily_users_are_sized_at_their_peak_rate(offline_advisor):
    # since serve5 a day's users go through the busiest hour and Little's law (tools/serving/traffic.py), not a 5% share
    response = ask(offline_advisor, "we expect about 400 daily users of qwen2.5 14b on one l40s, how fast will it be?")
    assert "“400 daily users”" in response.summary and "Little's law" in response.summary
    assert "0.1 requests/s" in response.summary  # 400 × 18% active in the busiest hour × 5 requests an hour ÷ 3,600 s


def test_fp8_is_weighed_where_the_card_has_it_and_refused_where_it_has_not(offline_advisor):
    hopper = ask(offline_advisor, "serving llama 3.1 70b on 4 h100s with vllm for 64 concurrent users, should we use fp8?")
    assert hopper.summary.startswith("**Yes, FP8 pays off on the NVIDIA H100")
    assert {c.args.get("precision") for c in answered(hopper)} >= {"bf16", "fp8"}
    ampere = ask(offline_advisor, "Llama 3.1 70B部署在4张A100上，同时32个人用，FP8值不值得上？")
    assert ampere.summary.startswith("**NVIDIA A100") and "不能用 FP8" in ampere.summary.split("\n")[0]
    assert any(c.args.get("precision") == "int8" for c in answered(ampere))
    on_ampere = [c for c in speed_calls(ampere) if c.args["gpu"].startswith("a100")]  # faster cards may be offered beside it
    assert on_ampere and all(c.args.get("precision") != "fp8" for c in on_ampere)  # no FP8 estimate on a card without it
