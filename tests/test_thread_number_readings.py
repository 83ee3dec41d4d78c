"""Numbers read for what they are in the sentence (#36): a memory figure the user worked out is theirs to check, not the
size of a card; a server count granted as a condition ("a single box is fine") is not the hardware the answer sizes on,
while in a problem report the same count is the setup; a daily-user figure written with 万 keeps its magnitude."""

from __future__ import annotations

import pytest

from advisor.nlu.reader import shared_understanding


@pytest.fixture(scope="module")
def understanding():
    return shared_understanding()


@pytest.mark.parametrize(
    "message",
    [
        "My own estimate came to 40GB per card for a 20B model at 16k context, does that hold up?",
        "I figured roughly 22GB for Qwen2.5 7B with LoRA, am I close?",
        "32B 模型推理，我算下来每卡要 70GB，对不对？",
        "我预估 Llama 3.1 8B 微调每张卡 60G 左右，靠谱吗",
    ],
)
def test_a_memory_figure_the_user_estimated_is_not_a_card(understanding, message):
    assert understanding.read(message, []).frame.all("gpu_memory") == []


@pytest.mark.parametrize(
    ("message", "memory"),
    [
        ("We have a 48GB card, can it serve a 32B model?", 48.0),
        ("手上一张 24G 显存的卡，能跑 14B 吗", 24.0),
    ],
)
def test_a_memory_figure_of_the_user_s_card_is_still_the_card(understanding, message, memory):
    assert understanding.read(message, []).frame.all("gpu_memory") == [memory]


@pytest.mark.parametrize(
    "message",
    [
        "A single server would be fine for us; how much memory does full fine-tuning of a 34B model take?",
        "one machine is ok, what GPU memory does Qwen2.5 32B need for LoRA?",
        "一台机器也行，34B 全参微调要多少显存？",
        "单机没关系，32B 模型 LoRA 要多大显存？",
    ],
)
def test_a_server_count_granted_as_a_condition_is_not_the_setup(understanding, message):
    assert understanding.read(message, []).frame.all("server_count") == []


@pytest.mark.parametrize(
    "message",
    ["training runs on one node is fine but with two nodes NCCL times out", "一台机器跑没问题，两台就 NCCL 超时"],
)
def test_in_a_problem_report_the_counts_are_the_setup(understanding, message):
    reading = understanding.read(message, [])
    assert reading.intent == "troubleshoot"
    assert sorted(reading.frame.all("server_count")) == [1, 2]


@pytest.mark.parametrize(
    ("message", "audience"),
    [("日活3万的应用，部署 Qwen2.5 7B 需要什么卡？", 30000.0), ("we have 20k daily active users, which GPU for Qwen2.5 7B?", 20000.0)],
)
def test_daily_users_keep_their_magnitude(understanding, message, audience):
    assert understanding.read(message, []).frame.all("audience") == [audience]
