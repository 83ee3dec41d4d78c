"""The Ask: what a turn asks, read once by the understanding layer from its Reading, in both languages.
Wording of our own; each case states what the answer downstream depends on."""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from advisor.nlu.ask import Ask, pasted_config
from advisor.nlu.cues import CUES_FILE, AskCues, says
from advisor.nlu.frame import SlotValue
from advisor.nlu.reader import shared_understanding
from knowledge.catalog import load_catalog


@pytest.fixture(scope="module")
def ask_of():
    understanding, catalog = shared_understanding(), load_catalog()

    def read(*messages: str) -> Ask:
        *earlier, last = messages
        return Ask.read(understanding.read(last, earlier), catalog)

    return read


@pytest.mark.parametrize(
    ("messages", "flag", "expected"),
    [
        (("What does Qwen2.5 14B need in memory at int8?", "why so much?"), "asks_why", True),
        (("Qwen2.5 14B int8要多少显存", "这个数怎么算的"), "asks_why", True),
        (("What does Qwen2.5 14B need in memory at int8?",), "asks_why", False),
        (("打算采购A100跑70B，要几张？",), "asks_count", True),
        (("we'll purchase A100s to run a 70B model, how many do we need?",), "asks_count", True),
        (("How much memory does a 70B model take at fp8?",), "asks_count", False),
        (("we'll purchase A100s to run a 70B model, how many do we need?",), "buying", True),
        (("打算采购A100跑70B，要几张？",), "buying", True),
        (("打算采购A100跑70B，要几张？",), "renting", False),
        (("租云上的H100跑70B推理，最省钱的配置？",), "renting", True),
        (("an 8x H100 node rents for $15,000 a month; total for a year?",), "renting", True),
        (("cheapest card to serve a 14B model for 10 users?",), "price_only", True),
        (("最便宜的卡跑14B推理，10个用户",), "price_only", True),
        (("best value card to serve a 14B model for 10 users?",), "price_only", False),  # the best value, not the lowest price
        (("性价比最高的卡跑14B推理，10个用户",), "price_only", False),
        (("8x H100 rented at $1,800 per GPU per month, how much a year?",), "price_per_card", True),
        (("an 8x H100 node rents for $15,000 a month; total for a year?",), "price_per_card", False),
        (("6台A800，每张卡一个月租金9000块，两年总共多少钱？",), "price_per_card", True),  # the card is said before the price
        (("6张A800的整机，一个月租金6万，两年总共多少钱？",), "price_per_card", False),  # "张" of the count is another clause's
        (("一台8卡H800整机，每月租金11万，三年总共多少钱？",), "price_per_card", False),  # "8卡" counts cards; the rent is the machine's
        (("Llama 3 8B on one L40S with time to first token below 300 ms, how many users?",), "latency_target", True),
        (("一张L40S跑Llama 3 8B，首token延迟低于300毫秒，能撑多少用户？",), "latency_target", True),
        (("Llama 3 8B on one L40S at 30 tokens/s per user, how many users?",), "latency_target", False),
    ],
)
def test_flags_read_from_the_conversation(ask_of, messages, flag, expected):
    assert getattr(ask_of(*messages), flag) is expected


def test_the_task_and_the_thread_come_with_the_ask(ask_of):
    first = ask_of("How much VRAM does Mistral 7B need in bf16?")
    follow = ask_of("How much VRAM does Mistral 7B need in bf16?", "为什么这么多？")
    assert (first.task, first.thread_messages, first.opened_earlier) == ("memory", 1, False)
    assert (follow.task, follow.thread_messages, follow.opened_earlier) == ("memory", 2, True)


def test_a_serving_question_says_what_it_asks_for(ask_of):
    assert ask_of("一张L40S跑Llama 3 8B，首token延迟低于300毫秒，能撑多少用户？").serving_asks == "concurrency"
    assert ask_of("Llama 3 8B on two L40S: what speed per user?").serving_asks == "speed"


@pytest.mark.parametrize(
    ("surface", "per_card"),
    [("$1,800 per GPU per month", True), ("每张卡每月8000元", True), ("$15,000 a month", False), ("整机每月12万", False)],
)
def test_a_rent_says_whether_it_is_per_card(surface, per_card):
    assert SlotValue(None, surface).said_per_card is per_card


def test_a_count_after_its_card_is_read_as_a_multiplier():
    assert SlotValue(2, " x2").follows_its_card
    assert not SlotValue(2, "2 cards").follows_its_card


def test_cues_are_whole_words_in_english_and_anywhere_in_chinese():
    assert says("buying", "we own the racks")
    assert not says("renting", "the parent company decides")  # "rent" inside another word is no cue
    assert says("renting", "考虑租用")
    assert not says("price_only", "")


def test_a_pasted_config_is_taken_and_other_braces_are_not():
    config = '{"hidden_size": 4096, "num_hidden_layers": 32}'
    assert pasted_config(f"size this one: {config} thanks") == config
    assert pasted_config("set {batch} to 8") is None


def test_the_cue_table_validates_and_a_broken_one_names_its_key():
    raw = yaml.safe_load(CUES_FILE.read_text(encoding="utf-8"))
    AskCues.model_validate(raw)
    missing = {flag: cues for flag, cues in raw.items() if flag != "buying"}
    with pytest.raises(ValidationError, match="buying"):
        AskCues.model_validate(missing)
    with pytest.raises(ValidationError, match="leasing_only"):
        AskCues.model_validate({**raw, "leasing_only": {"en": ["lease"], "zh": ["租"]}})
    with pytest.raises(ValidationError, match="zh"):
        AskCues.model_validate({**raw, "renting": {"en": ["rent"]}})
