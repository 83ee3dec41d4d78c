"""One per-user speed: the streaming speed a user sees after the first token (issue #35, serving).

A user's own prefill is their time to first token, not a pause in their stream; other requests' prefills do stall
it. Targets and the chat floor are checked on that figure, the recommender uses the same floor and definition, and
long prompts size to a sane count. Questions are our own wording."""

from __future__ import annotations

import re
import time

import pytest

from knowledge.catalog import load_catalog
from knowledge.servers import server_data
from knowledge.serving import load_serving_data
from knowledge.traffic import chat_floor, traffic_data
from tools.recommend import RecommendRequest, recommend_gpus
from tools.recommend.speed import request_shape
from tools.serving.estimator import ThroughputRequest, estimate_throughput


@pytest.fixture(scope="module")
def data():
    return load_catalog(), load_serving_data()


@pytest.fixture(scope="module")
def run(data):
    catalog, serving = data
    return lambda **kw: estimate_throughput(ThroughputRequest(**kw), catalog, serving)


# --- the tool -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("prompt", [256, 8192, 32768])
def test_one_user_streams_at_the_decode_rate_whatever_the_prompt(run, prompt):
    r = run(model="llama-3.1-70b", gpu="H100", num_gpus=4, prompt_tokens=prompt, target_tokens_per_s_per_user=20)
    assert r.tokens_per_s_per_user_streaming == pytest.approx(r.decode_tokens_per_s_per_seq, rel=1e-3)
    assert r.max_concurrency_at_target >= 1  # its own long prefill never makes a lone user "miss" the speed


def test_a_long_prompt_shows_up_in_the_first_token_time_not_in_the_stream(run):
    short = run(model="llama-3.1-70b", gpu="H100", num_gpus=4, prompt_tokens=512)
    long = run(model="llama-3.1-70b", gpu="H100", num_gpus=4, prompt_tokens=32000)
    assert long.ttft_ms > 20 * short.ttft_ms and long.ttft_ms > 1000
    assert long.tokens_per_s_per_user_streaming > 0.8 * short.tokens_per_s_per_user_streaming  # only the longer KV reads


def test_other_requests_prefills_stall_the_stream_and_the_total_counts_every_prefill(run):
    r = run(model="qwen2.5-32b", gpu="H100", num_gpus=2, batch=40, prompt_tokens=4096)
    share = r.output_tokens_per_s_total / r.effective_batch
    assert share < r.tokens_per_s_per_user_streaming < r.decode_tokens_per_s_per_seq
    line = next(item for item in r.lines if item.key == "streaming_speed")
    assert line.value == pytest.approx(r.tokens_per_s_per_user_streaming, rel=1e-2)
    assert "TTFT" in line.formula and "首 token" in line.formula_zh


def test_a_first_token_target_binds_on_the_ttft(run):
    loose = run(model="llama-3.1-8b", gpu="H100", prompt_tokens=8000, target_ttft_ms=5000)
    tight = run(model="llama-3.1-8b", gpu="H100", prompt_tokens=8000, target_ttft_ms=1)
    assert loose.max_concurrency_at_target >= 1 and tight.max_concurrency_at_target == 0 and tight.limit_at_target == "ttft"


# --- one floor ------------------------------------------------------------------------------------------------


def test_the_floor_lives_in_one_place_with_a_dated_source():
    floor = chat_floor()
    assert floor.tokens_per_s_per_user == traffic_data()["chat_floor"]["value"]
    assert floor.source.url.startswith("https://") and re.fullmatch(r"\d{4}-\d{2}-\d{2}", floor.source.date)
    assert "tokens_per_s_per_user" not in server_data().serving_floor.model_dump()  # the recommender keeps wording only


def test_recommender_and_serving_check_the_same_floor_on_the_same_request(data):
    catalog, serving = data
    result = recommend_gpus(RecommendRequest(task="inference", model="qwen2.5-32b", concurrency=60, gpus=["H100"]), catalog, serving)
    assert result.speed_floor == chat_floor().tokens_per_s_per_user
    option = result.options[0]
    defaults = ThroughputRequest.model_fields
    assert request_shape(RecommendRequest(task="inference", model="qwen2.5-32b")) == (defaults["prompt_tokens"].default,
                                                                                        defaults["output_tokens"].default)
    # the recommender sizes the H100 in the format it is served in (FP8, knowledge/serving_precision.yaml) and says so:
    # the serving check of the same request runs in that format, and says which it used
    assert option.precision == "fp8"
    check = estimate_throughput(ThroughputRequest(model="qwen2.5-32b", gpu="h100-sxm", num_gpus=option.count, tp=option.tp,
                                                  precision=option.precision, batch=60,
                                                  target_tokens_per_s_per_user=chat_floor().tokens_per_s_per_user), catalog, serving)  # fmt: skip
    assert check.weights_format == option.precision
    assert check.max_concurrency_at_target >= 60  # the serving tool agrees the recommended option meets the floor
    assert option.tokens_per_s_per_user == pytest.approx(check.tokens_per_s_per_user_streaming, abs=0.1)


def test_a_stated_context_is_the_request_the_recommender_checks():
    stated = RecommendRequest(task="inference", model="qwen2.5-32b", context=32768)
    prompt, output = request_shape(stated)
    assert prompt + output == 32768 and output <= 256


@pytest.mark.parametrize("currency", ["USD", "CNY"])
def test_a_32b_model_for_a_couple_of_hundred_chat_users_fits_in_one_or_two_servers(data, currency):
    catalog, serving = data
    result = recommend_gpus(RecommendRequest(task="inference", params_b=32, concurrency=200, currency=currency), catalog, serving)
    working = [o for o in result.options if o.meets_target]
    assert working and min(o.count for o in working) <= 16
    for gpu in ("h100-sxm", "ascend-910b"):
        sized = recommend_gpus(RecommendRequest(task="inference", params_b=32, concurrency=200, gpus=[gpu], currency=currency), catalog, serving)
        assert sized.options[0].meets_target and sized.options[0].count <= 16, (gpu, sized.options[0].count)


# --- answers, both languages ----------------------------------------------------------------------------------


def _sizes(response):
    return [c for c in response.tool_calls if c.name == "estimate_throughput" and c.result]


@pytest.mark.parametrize("question", [
    "Serving Llama 3.1 70B to 20 concurrent users, each sending 32k-token prompts: how many H200s?",
    "Llama 3.1 70B要给20个用户同时用，每个请求的提示词有32k token，要几张H200？",
])  # fmt: skip
def test_long_context_chat_sizes_to_a_sane_count_and_reports_the_first_token(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    lead = response.summary.split("\n\n")[0]
    count = int(re.search(r"\*\*(\d+)(?:×| 张)", lead).group(1))
    assert 1 <= count <= 32, lead
    assert "first token" in lead or "首 token" in lead
    final = max(_sizes(response), key=lambda c: c.args.get("batch") or 0).result
    assert final["prompt_tokens"] >= 30000 and final["ttft_ms"] > 500
    assert final["tokens_per_s_per_user_streaming"] >= chat_floor().tokens_per_s_per_user


@pytest.mark.parametrize("question", [
    "Time to first token for Qwen2.5-72B on four H100s when the prompt is 30k tokens?",
    "四张H100跑Qwen2.5-72B，提示词30k token时首token要多久？",
])  # fmt: skip
def test_a_long_prompt_question_gets_its_ttft_and_the_streaming_speed(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    r = _sizes(response)[0].result
    lead = response.summary.split("\n\n")[0]
    assert f"{r['ttft_ms']:,.0f}" in lead.replace(".0 ", " ") or f"{round(r['ttft_ms']):,}" in lead
    assert "miss" not in lead and "达不到" not in lead  # a lone user's own prefill is no reason to fail the floor


def test_sizing_for_a_load_takes_a_handful_of_estimates(offline_advisor):
    start = time.perf_counter()
    response = offline_advisor.answer("How many H100s to serve Qwen2.5-32B to 150 people at once?", [])
    elapsed = time.perf_counter() - start
    assert len(_sizes(response)) <= 6 and elapsed < 5
