"""Issue #35: one precision per answer, and a count of requests with no period read the same way everywhere.

With no format named, the serving answer, a serving comparison and the recommendation size a card in the format it
serves fastest (knowledge/serving_precision.yaml: FP8 on Hopper/Ada/Blackwell data-centre parts, 16-bit on an A100), so
one thread never quotes two speeds for one setup; a format the user names wins. A request count with no period is a
month's traffic, said in the lead and sized from. Questions in both languages, in our own wording."""

from __future__ import annotations

import pytest

from advisor.nlu.tco_said import requests_no_period
from advisor.nlu.values import find_values
from knowledge.catalog import load_catalog
from tests.threads import ask

CATALOG = load_catalog()


def speed_calls(response, gpu=None):
    return [c for c in response.tool_calls if c.name == "estimate_throughput" and c.result and (gpu is None or c.args.get("gpu") == gpu)]


# --- one format per card --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("message,said", [
    ("We plan to run Mistral Small 24B on two H100s for 30 people chatting at once; fast enough?", "the format it serves fastest"),
    ("两张 H100 给 30 个人同时用 Mistral Small 24B 聊天，速度够吗？", "推理最快的格式"),
])
def test_a_hopper_card_is_served_in_fp8_and_the_answer_says_so(offline_advisor, message, said):
    r = ask(offline_advisor, message)
    first = speed_calls(r)[0]
    assert first.args.get("precision") == "fp8"
    assert said in r.answer


@pytest.mark.parametrize("message", [
    "We plan to run Mistral Small 24B in bf16 on two H100s for 30 people chatting at once; fast enough?",
    "两张 H100 用 BF16 给 30 个人同时跑 Mistral Small 24B，速度够吗？",
])
def test_a_format_the_user_names_wins(offline_advisor, message):
    r = ask(offline_advisor, message)
    assert {c.args.get("precision") for c in speed_calls(r)} <= {"bf16"}
    assert "the format it serves fastest" not in r.answer and "推理最快的格式" not in r.answer


def test_a_card_without_fp8_keeps_16_bit_weights(offline_advisor):
    r = ask(offline_advisor, "How fast is Mistral Small 24B on two A100 80GB for 10 users at once?")
    assert speed_calls(r)[0].args.get("precision") in (None, "bf16")


@pytest.mark.parametrize("message", [
    "For serving Llama 3.1 70B to 20 users, H100 or A100?",
    "部署 Llama 3.1 70B 给 20 个用户，H100 还是 A100？",
])
def test_a_serving_comparison_sizes_each_card_in_its_own_format(offline_advisor, message):
    r = ask(offline_advisor, message)
    by_card = {c.args["gpu"]: c.args.get("precision") for c in speed_calls(r)}
    assert by_card.get("h100-sxm") == "fp8"
    assert by_card.get("a100-80gb-sxm") == "int8"  # its 16-bit weights do not fit one A100: the ladder's first step (#35)
    assert "FP8" in r.answer and "INT8" in r.answer.split("\n\n")[0]  # the verdict says which


def test_the_serving_answer_and_the_recommendation_agree_on_the_format(offline_advisor):
    recommended = ask(offline_advisor, "Which GPUs should we buy to serve Llama 3.1 70B for 20 users at once?")
    option = next(c for c in recommended.tool_calls if c.name == "recommend_gpus").result["options"][0]
    served = ask(offline_advisor, f"How fast is Llama 3.1 70B on {option['count']} {option['gpu_name']} for 20 users at once?")
    assert speed_calls(served)[0].args.get("precision") == (option["precision"] or None)


# --- a count of requests with no period ---------------------------------------------------------------------------


@pytest.mark.parametrize("text,count", [
    ("we expect about 10,000 requests for our support bot", 10_000),
    ("客服机器人预计 5 万次请求", 50_000),
    ("roughly 2 million API calls in total", 2_000_000),
])
def test_a_request_count_with_no_period_is_read(text, count):
    found = requests_no_period(text, _tagged(text))
    assert found is not None and found.count == pytest.approx(count)


@pytest.mark.parametrize("text", ["about 2 million requests a day", "每月3亿次调用", "serve 30 concurrent requests"])
def test_a_rate_or_a_load_in_flight_is_no_count_without_a_period(text):
    assert requests_no_period(text, _tagged(text)) is None


@pytest.mark.parametrize("message,said", [
    ("How many H100s do we need to serve Llama 3.1 70B for 300,000 requests?", "taken as a month's"),
    ("部署 Qwen2.5-72B 处理 30 万次请求需要几张 A100？", "按每月的量"),
])
def test_serving_sizes_a_request_count_as_a_month_and_says_so_in_the_lead(offline_advisor, message, said):
    r = ask(offline_advisor, message)
    lead = r.summary.split("\n\n")[0]
    assert said in lead
    assert speed_calls(r)  # sized from it, not dropped


@pytest.mark.parametrize("message,said", [
    ("Which GPU should we buy to serve Qwen2.5-32B for 200,000 requests?", "month"),
    ("部署 Qwen2.5-32B 处理 20 万次请求，该买什么卡？", "每月"),
])
def test_a_recommendation_sizes_a_request_count_as_a_month_and_says_so(offline_advisor, message, said):
    r = ask(offline_advisor, message)
    assert said in r.summary.split("\n\n")[0] + r.summary.split("\n\n")[1]
    assert "⚠️" not in r.summary.split("\n\n")[0]  # never a count of GPUs or a budget


def _tagged(text):
    class Tagged:
        def __init__(self, value):
            self.value = value

    return [Tagged(v) for v in find_values(text, CATALOG)]


# --- one ladder down from 16-bit, shared by the serving estimate and the recommender ------------------------------


@pytest.mark.parametrize("gpu", ["a100-80gb-sxm", "rtx-4090"])
def test_a_card_without_fp8_steps_down_to_int8_before_4_bit(gpu):
    from knowledge.serving_precision import serving_precision

    rules, card = serving_precision(), CATALOG.gpu(gpu)
    assert [r.precision for r in rules.ladder(card)] == ["int8", "awq-int4"]
    assert rules.default_for(card, fits=lambda precision: precision == "int8").precision == "int8"
    assert rules.default_for(card, fits=lambda precision: precision == "awq-int4").precision == "awq-int4"
    assert rules.default_for(card, fits=lambda precision: True) is None  # 16-bit weights that fit are served as they are
    assert rules.ladder(CATALOG.gpu("h100-sxm")) == ()  # FP8 always: no ladder


@pytest.mark.parametrize("message,decides", [
    ("Could one L40S carry Llama 3.1 70B for 12 people chatting at once?", "in FP8 does not fit one"),
    ("单张 L40S 能不能撑住 Llama 3.1 70B、12 个人同时聊天？", "FP8 权重装不进一张"),
])
def test_the_one_card_lead_names_the_format_that_decides_and_what_fits(offline_advisor, message, decides):
    lead = ask(offline_advisor, message).summary.split("\n\n")[0]
    assert decides in lead and "BF16" not in lead
    assert "AWQ-INT4" in lead  # what does fit, said in the lead
