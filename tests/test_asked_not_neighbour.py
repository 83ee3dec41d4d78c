"""The question asked, not a neighbouring one (#36), in both languages (questions worded for this test): a figure asked of
one part is that figure (no server price beside "how much memory"), a rate of tokens to expect is the serving estimate (not a
training time), and a GPU asked about for gaming, mining income or video editing gets what the advisor does, not a card."""

from __future__ import annotations

import pytest

from advisor.nlu.cues import says


def _ask(advisor, message):
    return advisor.answer(message, [])


def _tools(response) -> list[str]:
    return [call.name for call in response.tool_calls]


@pytest.mark.parametrize(("message", "price"), [
    ("How much VRAM does an L40S carry?", False),
    ("how much more bandwidth has the H200 than the H100?", False),
    ("How much power does one 8x B200 box pull?", False),
    ("How much would a 4x L40S workstation set us back?", True),
    ("how much does an H20 server cost?", True),
    ("L40S整机多少钱？", True),
])
def test_how_much_before_a_quantity_asks_that_figure_not_a_price(message, price):
    assert says("asks_price", message) is price


@pytest.mark.parametrize(("message", "off_topic"), [
    ("What frame rate will a 4070 Ti give me in Elden Ring at 1440p?", True),
    ("Is mining ethereum on two 3090s profitable this year?", True),
    ("Which card is best for video editing in DaVinci Resolve?", True),
    ("Our cards came from a mining farm, fine for fine-tuning a 7B model?", False),
    ("我的3060玩游戏帧数太低怎么办", True),
    ("矿机上拆下来的卡能跑大模型推理吗", False),
])
def test_an_off_topic_use_is_read_unless_ai_work_is_named(message, off_topic):
    assert (says("off_topic_use", message) and not says("ai_work", message)) is off_topic


@pytest.mark.parametrize(("message", "expected"), [
    ("how many tokens per hour will Qwen2.5-7B do on one L4 for batch tagging?", True),
    ("we only get 1.2k tok/s on 2 H100s with Llama 3 8B, what should we be getting?", True),
    ("how many tokens per second can we train at on 8 H100s?", False),  # a training run's throughput
    ("4张4090跑Qwen2.5-14B，每小时能处理多少token？", True),
    ("8卡A100训练时每秒多少token正常？", False),
])
def test_a_rate_of_tokens_to_expect_is_read_from_its_words(message, expected):
    asked = says("names_token_rate", message) and says("expects_figure", message) and not says("training_words", message)
    assert asked is expected


@pytest.mark.parametrize("message", ["What's the memory size of the MI300X?", "How much memory does an H200 have?", "H200有多少显存？"])
def test_a_single_spec_question_answers_the_field_only(offline_advisor, message):
    response = _ask(offline_advisor, message)
    assert "estimate_server_price" not in _tools(response), response.summary[:300]
    assert "GB" in response.summary.splitlines()[0]


@pytest.mark.parametrize("message", [
    "How many tokens an hour should we expect from Llama 3.1 70B on 8 H100s for an offline batch job?",
    "4张H100跑Llama 3.1 70B做离线批处理，每小时能处理多少token？",
])
def test_a_rate_to_expect_gets_the_serving_estimate_not_a_training_time(offline_advisor, message):
    tools = _tools(_ask(offline_advisor, message))
    assert "estimate_throughput" in tools and "estimate_training_time" not in tools, tools


@pytest.mark.parametrize("message", ["Is an RTX 4080 good for video editing in Premiere Pro?", "家里的4070拿来剪视频够用吗",
                                     "What fps does a 4090 get in Cyberpunk at 4K?", "两张3090挖以太坊还能回本吗"])
def test_an_off_topic_use_of_a_gpu_gets_what_the_advisor_does(offline_advisor, message):
    response = _ask(offline_advisor, message)
    assert not [name for name in _tools(response) if name != "search_knowledge"]
    lead = response.summary.split("\n")[0]
    assert "outside what I can help with" in lead or "超出了我的范围" in lead, lead


@pytest.mark.parametrize("message", ["Are ex-mining 3090s OK for serving a 13B model?", "挖矿退下来的3090能拿来做大模型推理吗"])
def test_ex_mining_cards_for_ai_work_stay_in_scope(offline_advisor, message):
    lead = _ask(offline_advisor, message).summary.split("\n")[0]
    assert "outside what I can help with" not in lead and "超出了我的范围" not in lead, lead


@pytest.mark.parametrize(("message", "words"), [
    ("Our nightly batch job pushes 900 tok/s overall with Qwen2.5-32B on two L40S; what should we be getting?", ("in total", "million tokens an hour")),
    ("Llama 3.1 8B on one H100 gives only 200 tok/s in total for our batch job, is that normal?", ("**Low", "in total")),
    ("我们4张A100跑Qwen2.5-72B，总吞吐才1500 tok/s，正常吗？", ("总共", "万 token")),
])
def test_a_measured_total_is_judged_against_the_total_not_one_stream(offline_advisor, message, words):
    lead = _ask(offline_advisor, message).summary.split("\n")[0]
    assert all(word in lead for word in words), lead
    assert "one stream" not in lead and "单路" not in lead, lead


@pytest.mark.parametrize(("message", "pick"), [("Should we go MI300X or H100 for serving a 70B model?", "**Choose"),
                                               ("L40S还是A100跑Qwen2.5-32B推理，选哪个？", "**建议选")])
def test_a_choice_between_parts_for_a_job_leads_with_the_pick(offline_advisor, message, pick):
    assert _ask(offline_advisor, message).summary.startswith(pick)
