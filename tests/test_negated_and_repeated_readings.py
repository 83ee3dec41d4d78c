"""Readings that a word before a cue, a card named twice or a size written onto a card noun used to get wrong."""

import pytest

from advisor.nlu.cues import says
from advisor.nlu.reader import shared_understanding


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Keep the weights unquantised? no quantization, bf16 only please", False),
        ("we'd serve it without quantizing anything", False),
        ("模型别量化，原版精度跑，需要几张卡", False),
        ("用非量化版本部署", False),
        ("serve the 70B quantized on two cards", True),
        ("量化到4bit以后放得下吗", True),
        ("a piano quantized recording", True),  # "no" inside a word denies nothing
    ],
)
def test_a_negated_quantisation_cue_does_not_count(text, expected):
    assert says("quantised", text) is expected


@pytest.mark.parametrize(
    "message",
    ["what speed does one person get from Mistral 7B on one L4 (the gcp g2 one)?",
     "一张A10G（也就是AWS g5那种）跑Qwen2.5-7B单用户多少token/s"],
)
def test_one_card_named_twice_is_one_card(message):
    frame = shared_understanding().read(message, []).frame
    assert len(frame.all("gpu")) == 1, frame.all("gpu")


@pytest.mark.parametrize(
    ("message", "memory"),
    [("Qwen2.5-14B 放在一张24GB显卡上，10个人同时用够不够？", 24),
     ("will a 32B model on a single 48GB card hold 20 chat users?", 48)],
)
def test_a_size_written_onto_a_card_noun_is_the_cards_memory(message, memory):
    frame = shared_understanding().read(message, []).frame
    assert [v.value for v in frame.slots.get("gpu_memory", [])] == [memory], frame.slots


@pytest.mark.parametrize(
    ("message", "complaint"),
    [("Mistral 7B for 40 agents, time to first token must stay below 800 ms: how many L40S?", False),
     ("Qwen2.5-14B给30个人用，首token控制在1秒以内，要几张L20？", False),
     ("users wait ages for the first token on our 2 A100 running Llama 3 8B, why?", True),
     ("我们4张H100跑Qwen2.5-72B，高峰时首token要等5秒，怎么回事？", True)],
)
def test_a_first_token_time_stated_as_a_requirement_is_no_complaint(message, complaint):
    from advisor.nlu.ask import Ask
    from knowledge.catalog import load_catalog

    assert Ask.read(shared_understanding().read(message, []), load_catalog()).reports_latency is complaint
