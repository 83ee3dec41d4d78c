"""Inputs the user gave are read, in both languages (#36): token counts in Chinese magnitudes, the cards common in China,
a precision written with a space, a KV cache asked for a number of users, and a speed short of the plan as a symptom."""

from __future__ import annotations

import pytest

from advisor.nlu.reader import shared_understanding
from tests.threads import ask, calls, first_line


@pytest.fixture(scope="module")
def understanding():
    return shared_understanding()


# --- a training question that gives size, tokens and cards runs, whatever magnitude the tokens are written in ------------


@pytest.mark.parametrize(
    ("question", "tokens", "gpu", "count"),
    [
        ("用 8 张 H800 训练 7B 模型，训练数据 3 亿 token，要多久？", 3e8, "h800", 8),
        ("8张A800训练13B模型，200亿tokens，需要几天", 2e10, "a800", 8),
        ("64 张 H100 训练 70B，1.5万亿token，要多久", 1.5e12, "h100", 64),
        ("用32张910B训练7B，数据量 500 亿词元，多久能训完", 5e10, "910b", 32),
        ("16 张 L20 训 3B 模型，数据 3 千万 tokens，要多长时间", 3e7, "l20", 16),
        ("8卡910B3训练13B，100亿token，要几天", 1e10, "910b", 8),
        ("用 16 张 H20 训练 7B，2 千亿 token 要多久", 2e11, "h20", 16),
        ("4 张 4090D 训练 1.5B，5000万token 要多久", 5e7, "4090", 4),
        ("How long to train a 7B on 300 million tokens with 8 H800s?", 3e8, "h800", 8),
    ],
)
def test_a_training_question_with_its_inputs_runs_on_the_tokens_said(offline_advisor, question, tokens, gpu, count):
    response = ask(offline_advisor, question)
    (run,) = calls(response, "estimate_training_time")[:1]
    assert run.args["tokens"] == pytest.approx(tokens)
    assert run.args["num_gpus"] == count and gpu in run.args["gpu"].lower().replace(" ", "")


@pytest.mark.parametrize(
    ("message", "card"),
    [
        ("用H800训练7B要多久", "h800-sxm"),
        ("A800 80G 训练 7B 要几天", "a800-80gb-sxm"),
        ("H20 96G 能跑 DeepSeek-V3 吗", "h20"),
        ("L20 四卡跑 72B 够不够", "l20"),
        ("两张4090D能跑32B吗", "rtx-4090d"),
        ("昇腾910B能跑Qwen2.5-72B吗", "ascend-910b"),
        ("910B3 八卡做 LoRA 行不行", "ascend-910b"),
        ("华为910C的显存有多大", "ascend-910c"),
    ],
)
def test_the_cards_common_in_china_are_read_as_hardware(understanding, message, card):
    reading = understanding.read(message)
    assert card in reading.frame.all("gpu"), [(t.value.kind, t.value.surface, t.role) for t in reading.tagged]


# --- a precision written with a space -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "precision"),
    [
        ("两张4090D能跑 Qwen2.5-32B 4 位量化吗", "int4"),
        ("单卡 H20 跑 Qwen2.5-72B 8 位 放得下吗", "int8"),
        ("Qwen2.5-72B 4 比特 放两张 L20 够吗", "int4"),
        ("Can Qwen2.5-72B at 4 bits fit on two L20s?", "int4"),
    ],
)
def test_a_precision_written_apart_from_its_number_sizes_the_weights(offline_advisor, question, precision):
    response = ask(offline_advisor, question)
    estimates = calls(response, "estimate_memory")
    assert estimates and estimates[0].args["precision"] == precision


# --- the KV cache for a number of users leads with its size -------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("Llama 3 8B 服务 32 个并发用户，KV cache 占多少显存", "**KV 缓存："),
        ("用 vLLM 部署 Qwen2.5-7B，32 个并发用户的 KV cache 要多少显存", "**KV 缓存："),
        ("Serving Llama 3 8B with vLLM, how big is the KV cache for 32 concurrent users?", "**KV cache:"),
    ],
)
def test_a_kv_cache_asked_for_concurrent_users_leads_with_its_size(offline_advisor, question, lead):
    response = ask(offline_advisor, question)
    assert first_line(response).startswith(lead)
    (estimate,) = calls(response, "estimate_memory")[:1]
    assert estimate.args["batch"] == 32


# --- a speed short of the plan is a symptom -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "short"),
    [
        ("two servers of 8 h100 each, training throughput is about half of what we planned", True),
        ("our run on 16 A100s trains far slower than expected", True),
        ("两台8卡H100一起训练，吞吐只有计划的一半左右", True),
        ("8 张 A800 训练 13B，速度比预期慢了很多", True),
        ("how long to train a 7B on 1T tokens with 64 H100s?", False),
        ("64 张 H100 训练 70B，1.5万亿token，要多久", False),
    ],
)
def test_a_speed_short_of_the_plan_is_read_as_such(offline_advisor, question, short):
    response = ask(offline_advisor, question)
    assert bool(calls(response, "diagnose")) is short
    assert bool(calls(response, "estimate_training_time")) is not short
