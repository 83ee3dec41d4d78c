"""Values as people write them, read in a conversation: currencies and their subunits, schedules, counts of
servers and cards, sizes glued to precisions, cards the catalog lacks. Wording of our own, not from any split."""

from __future__ import annotations

import pytest

from advisor.nlu.frame import Money
from advisor.nlu.reader import shared_understanding
from advisor.nlu.values import find_values
from knowledge.catalog import load_catalog


@pytest.fixture(scope="module")
def understanding():
    return shared_understanding()


def frame_of(understanding, message, *history):
    return understanding.read(message, list(history)).state


def kinds(text):
    return [(v.kind, v.value) for v in find_values(text, load_catalog())]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("power costs 19p/kWh here", ("money", (0.19, "GBP", "kwh"))),
        ("our ceiling is ₹40 lakh", ("money", (4_000_000.0, "INR", "once"))),
        ("a 2 crore cluster", ("money", (20_000_000.0, "INR", "once"))),
        ("云上按小时计费每卡6块", ("money", (6.0, "CNY", "gpu_hour"))),
        ("that's with a 25% savings plan discount", ("discount", 25.0)),
        ("vllm with tp=4. throughput?", ("tp", 4.0)),
        ("6 workstations with one card each", ("count_server", 6.0)),
        ("那34Bbf16要多少显存", ("params", 34e9)),
        ("lora at 8k context, largest batch?", ("context_setting", 8192.0)),
        ("换海光DCU Z100呢", ("other_gpu", "海光dcu z100")),
        ("那3070 8G呢", ("other_gpu", "3070")),
        ("那4070 12G呢", ("gpu", "rtx-4070")),
        ("跑个bge-large做召回", ("model", "bge-large")),
        ("那台机器全年无休地跑", ("always_on", 1.0)),
        ("租卡平台两块五一张一小时", ("money", (2.5, "CNY", "gpu_hour"))),
        ("包年的话平台给八五折", ("discount", 15.0)),
        ("沐曦的卡行不行", ("other_gpu", "沐曦")),
        ("what about tabbyapi", ("engine", "exllamav2")),
        ("两张3090，300亿token，多久", ("tokens", 3e10)),  # NFKC makes the Chinese comma ",", which groups no thousands after 4 digits
        ("那4090D呢，还有5060 Ti", ("other_gpu", "5060 ti")),
        ("那4090D呢，还有5090D", ("gpu", "rtx-5090d")),
        ("网上说1b参数=2gb，靠谱吗", ("claim", 2.0)),
        ("群里说每个参数占18字节，这样算准不准", ("claim", 18.0)),
        ("my lead says params x 20 bytes for full training", ("claim", 20.0)),
        ("is 6 bytes/param enough for int4 serving", ("claim", 6.0)),
        ("集群一天大概跑十几个小时", ("daily", 10.0)),  # 几 after a round number reads as the round number, like 多
        ("vram for llava-1.6-7b in fp16", ("model", "llava-1.6-7b")),
        ("预算能批到六十个w", ("money", (600_000.0, "", "once"))),  # the currency is the language's, set in the frame
        ("need it done over the weekend, 8b lora", ("date", 48.0)),
        ("训完两个epoch要多久", ("epochs", 2.0)),
        ("pretraining a 350m llama-style model from scratch", ("params", 350e6)),
        ("minicpm-v 2.6 on a jetson", ("model", "minicpm-v 2.6")),
        ("vllm里max-model-len改到16384还是爆", ("context_setting", 16384.0)),
        ("开了激活重计算 full recompute", ("recompute", "full")),
    ],
)
def test_values_as_people_write_them(text, expected):
    assert expected in kinds(text), kinds(text)


def test_servers_said_with_their_cards_and_a_count_right_before_a_card():
    found = kinds("we'd buy three 4-GPU H200 servers, or 12 h100s in the cloud")
    assert ("count_server", 3.0) in found and ("count_gpu", 12.0) in found


@pytest.mark.parametrize("text", ["only run it on weekdays", "只在工作日跑"])
def test_weekdays_only_is_five_days_of_seven(text):
    assert ("percent", 71.4) in kinds(text)


def test_a_follow_up_in_pence_and_on_weekdays_keeps_the_rest_of_the_question(understanding):
    question = "renting 4 a100 at £1.60/GPU-hr or buying at £70k, power 21p/kWh, 3 years?"
    frame = frame_of(understanding, "what if it only runs on weekdays?", question)
    assert frame.get("electricity_price") == Money(0.21, "GBP", "kwh")
    assert frame.get("utilisation") == pytest.approx(120 / 168, abs=0.001) and frame.get("horizon") == 3


def test_a_card_the_catalog_lacks_replaces_the_card_in_question(understanding):
    frame = frame_of(understanding, "换昆仑芯P800呢", "qwen2.5 14b推理，一张L20放得下吗")
    assert not frame.has("gpu") and frame.all("other_gpu") == ["昆仑芯p800"] and frame.get("model") == "qwen2.5-14b"


def test_a_commitment_is_no_horizon_and_a_bare_number_amends_a_concept_question(understanding):
    question = "rent or buy 8 h100, $2.40/gpu-hr vs $290k, over 3 years"
    assert frame_of(understanding, "包年能打八折的话呢", "8卡h100买整机二百万还是租每卡每小时15块，三年").get("horizon") == 3
    assert not any(v.kind == "duration" for v in find_values("包年能打八折的话呢", load_catalog()))
    reserved = frame_of(understanding, "what if a 1-year reservation takes 35% off?", question)
    assert (reserved.get("discount"), reserved.get("horizon")) == (35, 3)
    concept = frame_of(understanding, "and with 8?", "does tensor parallel across 4 rtx 3090s need nvlink?")
    assert concept.get("gpu_count") == 8


def test_full_alone_is_no_recomputation_mode(understanding):
    assert not frame_of(understanding, "how long to fine-tune mistral 7b full on 1B tokens with 4 h100s").has("recompute")


def test_a_condition_is_kept_when_the_ranking_changes_and_the_ranking_when_a_condition_comes(understanding):
    question = "lowest cost way to serve qwen2.5 14b to 15 concurrent users"
    frame = frame_of(understanding, "only cards we can buy in china tho", question)
    assert frame.all("objective") == ["cheapest", "china_buyable"]
    faster = frame_of(understanding, "actually make it the fastest", question, "only cards we can buy in china tho")
    assert sorted(faster.all("objective")) == ["china_buyable", "fastest"]


def test_a_limit_in_thousands_with_no_currency_is_a_length_or_an_amount_by_what_is_asked(understanding):
    biggest_batch = "largest batch for mistral 7b awq on one l4"
    assert frame_of(understanding, "and if requests are capped at 4k?", biggest_batch).get("context") == 4096
    assert frame_of(understanding, "那输入最多2k的话呢", "单卡4090跑qwen2.5-7b，batch最大能开多少").get("context") == 2048
    budget = frame_of(understanding, "need a box to fine-tune 7b models, we can spend up to 12k").get("budget")
    assert (budget.amount, budget.per) == (12000.0, "once")


def test_jetson_modules_and_china_editions_are_cards(understanding):
    assert frame_of(understanding, "那Jetson Orin呢", "3060上用ollama跑qwen2.5-7b每秒多少字").get("gpu") == "jetson-agx-orin-64gb"
    assert ("other_gpu", "orin nx 8gb") in kinds("could an orin nx 8gb run phi-3 mini")
    assert "jetson-agx-orin-64gb" not in [value for _, value in kinds("is the jetson orin nano enough for llama 3.2 1b")]
    assert ("other_gpu", "b30a") in kinds("B30A什么时候能买到")


def test_a_count_before_a_card_said_with_its_condition(understanding):
    assert frame_of(understanding, "three refurbished a100s or one new h100 for serving qwen2.5 32b?").get("gpu_count") == 3


def test_chinese_words_are_cut_the_same_whatever_retrieval_taught_jieba():
    """Retrieval registers its glossary terms as jieba user words in jieba's shared dictionary; the reader's
    features must not change with it (the model was trained without them), or a question reads differently
    once any search has run."""
    import jieba

    from advisor.nlu.features import words

    text = "新一代显卡快发布了，现在买还是再等等"
    before = words(text)
    jieba.add_word("新一代显卡")
    try:
        assert words(text) == before
    finally:
        jieba.del_word("新一代显卡")
