"""Serving latency a user waits for: a reasoning model's hidden thinking before the first readable token, and a p99
first-token tail under load (prompts queueing for prefill). The calculators first, then answers in both languages."""

from __future__ import annotations

import math

import pytest

from knowledge.catalog import load_catalog
from tools.serving.latency import PrefillQueue, VisibleToken, erlang_c, first_visible_token, prefill_queue, wait_quantile


# ---- the calculators ----
def test_first_visible_token_adds_thinking_at_streaming_speed():
    found = first_visible_token(VisibleToken(ttft_ms=250, thinking_tokens=800, tokens_per_s_per_user_streaming=40))
    assert found.thinking_s == pytest.approx(20.0)
    assert found.first_visible_s == pytest.approx(20.25)
    assert found.per_thousand_s == pytest.approx(25.0)


def test_erlang_c_matches_known_values():
    assert erlang_c(1, 0.5) == pytest.approx(0.5)  # M/M/1: the chance to wait is the utilisation
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3)  # textbook: c=2, a=1
    assert erlang_c(2, 2.5) == 1.0  # past saturation everyone waits


def test_tail_wait_grows_with_load_and_runs_away_at_saturation():
    light, heavy = wait_quantile(0.1, 1, 2.0), wait_quantile(0.1, 1, 8.0)
    assert 0 < light < heavy
    assert math.isinf(wait_quantile(0.1, 1, 10.0))


def test_queue_builds_before_saturation_and_more_copies_carry_more():
    one = prefill_queue(PrefillQueue(prefill_s=0.1, replicas=1, ttft_ms=100, p99_budget_ms=500))
    two = prefill_queue(PrefillQueue(prefill_s=0.1, replicas=2, ttft_ms=100, p99_budget_ms=500))
    assert one.saturation_requests_per_s == pytest.approx(10.0)
    assert 0 < one.builds_requests_per_s < one.saturation_requests_per_s
    assert two.builds_requests_per_s > 2 * one.builds_requests_per_s * 0.9  # pooled servers queue less per copy
    # at the rate found, the p99 is the budget
    at = prefill_queue(PrefillQueue(prefill_s=0.1, replicas=1, ttft_ms=100, p99_budget_ms=500, requests_per_s=one.builds_requests_per_s))
    assert at.p99_ttft_ms == pytest.approx(500, rel=1e-3)


def test_an_idle_ttft_over_budget_leaves_no_rate():
    found = prefill_queue(PrefillQueue(prefill_s=0.6, replicas=1, ttft_ms=600, p99_budget_ms=450))
    assert found.builds_requests_per_s == 0


def test_past_saturation_has_no_p99():
    found = prefill_queue(PrefillQueue(prefill_s=0.2, replicas=1, ttft_ms=200, p99_budget_ms=450, requests_per_s=6))
    assert found.p99_ttft_ms is None and found.utilisation == pytest.approx(1.2)


# ---- the catalog field ----
def test_reasoning_is_a_catalog_field_with_a_source():
    catalog = load_catalog()
    qwq = catalog.find_model("QwQ-32B")
    assert qwq.reasoning is not None and qwq.reasoning.switch == "none" and "http" in qwq.reasoning.source
    assert catalog.find_model("Qwen3-14B").reasoning.switch == "enable_thinking"
    base = catalog.find_model("Qwen2.5-32B")
    assert base.reasoning_as_named("Qwen2.5-32B-Instruct") is None  # the base model does not think
    assert base.reasoning_as_named("deepseek r1 distill qwen 32b") is not None  # its R1 distill does
    assert catalog.find_model("Llama 3.1 70B").reasoning is None


# ---- answers ----
def _summary(offline_advisor, *turns: str) -> str:
    history: list = []
    from advisor.contract import ChatTurn

    response = None
    for text in turns:
        response = offline_advisor.answer(text, [ChatTurn.model_validate(h) for h in history])
        history += [{"role": "user", "content": text}, {"role": "assistant", "content": response.answer}]
    return response.summary


def _tools(offline_advisor, text: str) -> list[str]:
    return [call.name for call in offline_advisor.answer(text, []).tool_calls]


@pytest.mark.parametrize(
    "question, leads",
    [
        ("Our QwQ-32B on one H100 with vLLM: the prefill is fast, yet users see nothing on screen for many seconds. What causes it?",
         "first visible token"),
        ("一张H100用vLLM跑QwQ-32B，预填充很快，可是用户要等很多秒界面上才出现第一个字，原因是什么？", "首个可见 token"),
    ],
)
def test_slow_first_reply_of_a_reasoning_model_leads_with_thinking(offline_advisor, question, leads):
    summary = _summary(offline_advisor, question)
    first = summary.split("\n\n")[0]
    assert leads in first and "1,000" in first
    assert "nvidia-smi" not in summary and "dmesg" not in summary  # no hardware triage
    assert "diagnose" not in _tools(offline_advisor, question)


@pytest.mark.parametrize(
    "question, switch",
    [("What's the time to first token for Qwen3-14B on an L40S?", "enable_thinking=False"),
     ("Qwen3-14B 在 L40S 上首 token 延迟是多少？", "enable_thinking=False")],
)
def test_speed_answer_of_a_hybrid_model_leads_with_visible_token_and_its_switch(offline_advisor, question, switch):
    summary = _summary(offline_advisor, question)
    assert ("first visible token" in summary.split("\n\n")[0]) or ("首个可见 token" in summary.split("\n\n")[0])
    assert switch in summary


def test_base_model_of_a_distill_is_not_treated_as_thinking(offline_advisor):
    summary = _summary(offline_advisor, "How fast is Qwen2.5-32B on one H100 for a single user?")
    assert "first visible token" not in summary


@pytest.mark.parametrize(
    "question, lead, lever",
    [
        ("Median TTFT looks fine but the p99 jumps to several seconds at peak: Llama 3.1 8B on an A100 with vLLM. Why?",
         "queueing for prefill", "max_num_batched_tokens"),
        ("Llama 3.1 8B 部署在一张A100上，首字延迟平时不错，可一到高峰p99就好几秒，是什么原因？", "排队等预填充", "max_num_batched_tokens"),
    ],
)
def test_tail_latency_complaint_gets_the_prefill_queue(offline_advisor, question, lead, lever):
    summary = _summary(offline_advisor, question)
    first = summary.split("\n\n")[0]
    assert lead in first and "requests/s" in first or "个请求" in first
    assert lever in summary
    assert "dmesg" not in summary


@pytest.mark.parametrize(
    "turns, says",
    [
        (["Llama 3.1 70B on 4x H100 in vLLM: our p99 time to first token is awful under load.",
          "Should we run two TP=2 replicas instead, or expert parallel?"], ["TP=2", "TP=4", "dense model"]),
        (["4张H100用vLLM跑Llama 3.1 70B，高峰时p99首字延迟很差。", "换成两个TP=2的副本，或者专家并行，会不会更好？"], ["TP=2", "TP=4", "稠密模型"]),
    ],
)
def test_parallelism_follow_up_is_answered_for_that_setup(offline_advisor, turns, says):
    summary = _summary(offline_advisor, *turns)
    for word in says:
        assert word in summary


# ---- a shared prompt prefix ----
@pytest.mark.parametrize(
    "question, new, cached",
    [
        ("All our requests start with one identical 2500-token system prompt, then about 120 tokens from the user; Llama 3.1 8B on an A100, "
         "12 users at once. Expected TTFT?", 120, "Shared prefix assumed cached"),
        ("所有请求开头都是同一段2500 token的系统提示词，后面用户输入约120 token，Llama 3.1 8B 跑在一张A100上，12个并发，首token延迟大概多少？",
         120, "假设共享前缀已缓存"),
    ],
)
def test_shared_system_prompt_prefills_only_new_tokens_and_says_so(offline_advisor, question, new, cached):
    response = offline_advisor.answer(question, [])
    prompts = {call.args.get("prompt_tokens") for call in response.tool_calls if call.name == "estimate_throughput"}
    assert prompts == {new}  # each request prefills its new tokens only
    assert cached in response.answer and "automatic_prefix_caching" in response.answer


def test_prompts_said_to_differ_are_prefilled_whole(offline_advisor):
    response = offline_advisor.answer("Each prompt is different: 5000-token documents, Llama 3.1 8B on one H100, 8 users. TTFT?", [])
    prompts = {call.args.get("prompt_tokens") for call in response.tool_calls if call.name == "estimate_throughput"}
    assert prompts == {5000}
    assert "Shared prefix assumed cached" not in response.answer


# ---- a model whose BF16 weights outgrow the one card asked about, for a load ----
@pytest.mark.parametrize(
    "question, verdict, card",
    [
        ("Will Qwen2.5-32B run on a single 48GB GPU for 40 people chatting at once with 4k tokens each?", "does not fit one", "L40S"),
        ("Qwen2.5-32B 放在一块48GB显卡上，40个人同时聊天、每人4k上下文，能行吗？", "装不进一张", "L20"),
    ],
)
def test_one_card_too_small_in_bf16_gets_kv_budget_in_lower_bits(offline_advisor, question, verdict, card):
    summary = offline_advisor.answer(question, []).summary
    first = summary.split("\n\n")[0]
    assert verdict in first and card in first  # the verdict, on the card buyable in the user's market
    assert "FP8 | 1 |" in summary and "FP8 | 2 |" in summary and "AWQ-INT4 | 1 |" in summary  # one and two cards, two formats
    assert "40" in summary.split("\n\n", 3)[-1]  # the fleet for the stated users follows the table
    assert "did you mean" not in summary.lower() and "您是不是" not in summary
