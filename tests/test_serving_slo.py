"""Serving answers a capacity planner can forward: the concurrency that meets a per-user speed target leads (the
KV cache second, the binding limit named); one per-user figure (the streaming speed after the first token) everywhere; "is this speed normal?"
gets a verdict at the stated load; a serving slowdown whose weights crowd the cards is traced to the KV cache.

Wording here is our own."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from tools.serving.estimator import ThroughputRequest, estimate_throughput
from tests.threads import ask


def answered(response):
    return [call for call in response.tool_calls if call.name == "estimate_throughput" and call.result]


def figures(line: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", line)]


@pytest.fixture(scope="module")
def run():
    catalog, serving = load_catalog(), load_serving_data()
    return lambda **kw: estimate_throughput(ThroughputRequest(**kw), catalog, serving)


# --- the tool: one per-user definition, and which limit binds ---


def test_streaming_speed_sits_between_the_total_share_and_the_decode_rate_and_targets_use_it(run):
    r = run(model="qwen2.5-14b", gpu="L40S", batch=24)
    share = r.output_tokens_per_s_total / r.effective_batch  # every request's prefill counted, its own included
    assert share < r.tokens_per_s_per_user_streaming < r.decode_tokens_per_s_per_seq  # the others' prefills stall it
    held = run(model="qwen2.5-14b", gpu="L40S", target_tokens_per_s_per_user=15)
    n = held.max_concurrency_at_target
    assert run(model="qwen2.5-14b", gpu="L40S", batch=n).tokens_per_s_per_user_streaming >= 15
    assert run(model="qwen2.5-14b", gpu="L40S", batch=n + 1).tokens_per_s_per_user_streaming < 15
    assert held.limit_at_target == "speed" and n < held.max_batch_fits


def test_a_target_every_fitting_sequence_meets_leaves_memory_as_the_limit(run):
    r = run(model="llama-3.1-70b", gpu="A100 80G", num_gpus=2, prompt_tokens=16000, target_tokens_per_s_per_user=1)
    assert r.max_concurrency_at_target == r.max_batch_fits and r.limit_at_target == "kv_cache"
    assert r.kv_free_gb_per_gpu > 0 and r.weights_gb_per_gpu > 30 and r.weights_format == "bf16"


# --- 1 and 2: the SLO-bound headline, one per-user figure ---


@pytest.mark.parametrize("question", [
    "With vLLM on a pair of H100s running llama 3.1 70b, how many people can chat at once if everyone needs 20 tokens per second?",
    "两块H100部署llama 3.1 70b，要保证每个人每秒20个token，最多能同时服务多少人？",
])  # fmt: skip
def test_the_concurrency_headline_is_the_most_users_that_meet_the_target(offline_advisor, question):
    response = ask(offline_advisor, question)
    full = max(answered(response), key=lambda call: call.args.get("batch") or 0).result  # every sequence that fits running
    at_target, fits = full["max_concurrency_at_target"], full["effective_batch"]
    assert 0 < at_target < fits  # the speed binds before memory here
    lead, binds = response.summary.split("\n\n")[:2]
    assert f"{at_target:,}" in lead.split("**")[1] and f"{fits:,}" not in lead
    assert f"{fits:,}" in binds and ("speed target binds" in binds or "速度目标" in binds)
    # the per-user figure shown is the streaming speed that met the target; the total is at the load served
    per_user = float(re.search(r"(?:sees ≈|之后约) ([\d.]+)", lead).group(1))
    total = float(re.search(r"(?:\(|总计 )([\d.,]+) token", lead).group(1).replace(",", ""))
    held = next(call.result for call in answered(response) if call.result["effective_batch"] == at_target)
    assert per_user >= 20 and per_user == pytest.approx(held["tokens_per_s_per_user_streaming"], rel=0.02)
    assert total == pytest.approx(held["output_tokens_per_s_total"], rel=0.02)


@pytest.mark.parametrize("question", [
    "what does one L40S give for llama 3.1 8b with 20 people generating at once?",
    "一张L40S跑llama 3.1 8b，20个人同时生成，速度多少？",
])  # fmt: skip
def test_a_speed_under_load_shows_one_per_user_figure_the_streaming_speed_at_that_load(offline_advisor, question):
    response = ask(offline_advisor, question)
    lead = response.summary.split("\n\n")[0]
    assert "between" not in lead and "间隙" not in lead  # no second per-user figure beside it
    bold = figures(lead.split("**")[1])
    users = 20
    per_user, total = (bold[1], bold[2]) if bold[0] == users else (bold[0], bold[-1])
    at_load = next(call.result for call in answered(response) if call.result["effective_batch"] == users)
    assert per_user == pytest.approx(at_load["tokens_per_s_per_user_streaming"], rel=0.02)
    assert total == pytest.approx(at_load["output_tokens_per_s_total"], rel=0.02)
    assert per_user * users >= total * 0.98  # each user's own prefill is its first-token time, not a pause in its stream


# --- 3: "is this normal?" ---


@pytest.mark.parametrize("question,verdict", [
    ("Our 4x A100 box serves qwen2.5 72b to 32 users and each sees about 14 tokens/s. Is that normal?", "Normal"),
    ("qwen2.5 72b on 4 A100s, 32 users, each only gets 4 tok/s — is this normal?", "Low"),
    ("4张A100上跑qwen2.5 72b，32个人同时用，每人大约14 token/s，这算正常吗？", "正常"),
    ("4张A100上跑qwen2.5 72b，32个人同时用，每人才4 token/s，正常吗？", "偏低"),
])  # fmt: skip
def test_a_measured_speed_gets_a_verdict_at_the_stated_load(offline_advisor, question, verdict):
    response = ask(offline_advisor, question)
    call = answered(response)[0]
    assert call.args["batch"] == 32 and "target_tokens_per_s_per_user" not in {k for k, v in call.args.items() if v}
    assert response.summary.startswith(f"**{verdict}")
    assert "bandwidth" in response.summary or "带宽" in response.summary
    assert "--kv-cache-dtype fp8" in response.summary and "chunked prefill" in response.summary


@pytest.mark.parametrize("question", [
    "is 9 tok/s per user normal for a deepseek r1 distill qwen 32b on two H20 with 16 users?",
    "两张H20部署deepseek-r1-distill-qwen-32b，16个并发，每人9 token/s正常吗？",
])  # fmt: skip
def test_an_export_card_and_a_reasoning_model_are_part_of_the_why(offline_advisor, question):
    summary = ask(offline_advisor, question).summary
    assert "H20" in summary and ("148" in summary)  # its weak prefill compute, with the figure
    assert "thousands of tokens" in summary or "数千 token" in summary


# --- 4: the KV-cache squeeze ---


@pytest.mark.parametrize("question", [
    "Our vLLM server with qwen2.5 32b bf16 on 2x A100 40GB crawls and only a handful of requests are running. Why?",
    "两张A100 40G用vLLM部署qwen2.5 32b bf16，服务特别慢，同时只在跑几个请求，怎么回事？",
])  # fmt: skip
def test_a_serving_slowdown_on_crowded_cards_leads_with_the_kv_cache_left(offline_advisor, question):
    response = ask(offline_advisor, question)
    first = answered(response)[0].result
    lead = response.summary.split("\n\n")[0]
    assert "KV" in lead and f"{first['max_batch_fits']:,}" in lead
    assert "32.8" in lead and "38.7" in lead  # weights per card against the card's memory
    fixes = response.summary.split("\n\n")[1]
    assert "AWQ-INT4" in fixes and "TP=4" in fixes and "80GB" in fixes
    assert ("What frees room" in fixes) or ("腾出空间" in fixes)


def test_a_long_context_squeeze_shows_in_a_concurrency_answer_too(offline_advisor):
    response = ask(offline_advisor, "how many concurrent chats does llama 3.1 70b hold on two A100 80GB at 8k context?")
    assert "KV cache is squeezed" in response.summary and "70.5 GB" in response.summary
    zh = ask(offline_advisor, "两张A100 80G跑llama 3.1 70b，8k上下文能撑多少并发？")
    assert "KV 缓存被挤占" in zh.summary


def test_a_roomy_setup_is_not_called_squeezed(offline_advisor):
    response = ask(offline_advisor, "our vllm llama 3.1 8b on one H200 is slow with 8 users, why?")
    assert "squeezed" not in response.summary


@pytest.mark.parametrize("first,follow_up", [
    ("two L40S serve qwen2.5 32b awq to 40 users and each sees 6 tok/s, is that normal?", "and with 80 users?"),
    ("两张L40S跑qwen2.5 32b awq，40个人同时用，每人6 token/s，正常吗？", "那80个人呢？"),
])  # fmt: skip
def test_a_measured_speed_is_no_target_for_the_follow_up(offline_advisor, first, follow_up):
    response = ask(offline_advisor, follow_up, first)
    calls = answered(response)
    assert calls and all(call.args["batch"] == 80 for call in calls)
    assert not any(call.args.get("target_tokens_per_s_per_user") for call in calls)  # 6 tok/s was measured, not asked for
    assert "target" not in response.summary.split("\n\n")[0].lower() and "目标" not in response.summary.split("\n\n")[0]
