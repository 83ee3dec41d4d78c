"""Facts the user states win over the advisor's defaults (stated17), in both languages with our own wording:

- a laptop GPU said by its desktop number with a laptop word, or with its own memory, is the laptop row
  (knowledge/gpus.yaml ``laptop_of``; nlu/reading.py ``_stated_variants``), never the desktop card's larger memory;
- a count said as an order of magnitude ("dozens", "a few hundred", the Chinese "some tens") is read as a range with a
  planning value inside it (nlu/data/vague_counts.yaml), said as an assumption, never the bottom of the range nor 10;
- a supply stated without a breaker rating ("single-phase 220 V") is the supply the power answer plans on: the rating
  each feed needs at that voltage and phase, never a default three-phase feed;
- a user who only rents is ranked by rent and told the hourly rent, with no purchase price or rent-or-buy offered;
- one card asked about ("one H100") is priced per card first, the 8-GPU machine after it.
"""

from __future__ import annotations

import pytest

from advisor.config import Settings
from advisor.name_matcher import normalize_text
from advisor.deps import build_advisor
from advisor.nlu.cues import says
from advisor.nlu.reader import shared_understanding
from advisor.nlu.site import read_circuit
from advisor.nlu.vague_counts import vague_counts
from knowledge.catalog import load_catalog
from tests.threads import calls, lead


@pytest.fixture(scope="module")
def advisor():
    return build_advisor(Settings.from_env({}))


@pytest.fixture(scope="module")
def understanding():
    return shared_understanding()


# ------------------------------------------------------------------ laptop GPUs: the stated variant wins


def test_every_laptop_row_names_a_desktop_card_with_more_memory():
    catalog = load_catalog()
    laptops = [g for g in catalog.gpus if g.laptop_of]
    assert {"rtx-3060-laptop", "rtx-4090-laptop", "rtx-4070-laptop"} <= {g.id for g in laptops}
    for laptop in laptops:
        for desktop_id in laptop.laptop_of:
            desktop = catalog.gpu(desktop_id)
            assert desktop.memory_gb > laptop.memory_gb, (laptop.id, desktop.id)
            assert laptop.spec_sources, laptop.id


@pytest.mark.parametrize("message, card", [
    ("my laptop has an RTX 3060, can it run Llama 3 8B?", "rtx-3060-laptop"),
    ("Gaming laptop with a 3060 (6GB): is LoRA on a 7B model possible?", "rtx-3060-laptop"),
    ("RTX 3060 with 6 GB of VRAM, will Mistral 7B fit?", "rtx-3060-laptop"),
    ("我的笔记本是3060，能跑7B模型吗", "rtx-3060-laptop"),
    ("游戏本上的 RTX 4070 能不能跑 Qwen2.5-7B？", "rtx-4070-laptop"),
    ("我的笔记本显卡是4090，跑得动32B吗", "rtx-4090-laptop"),
    # no laptop word and no other memory: the desktop card stays
    ("my desktop has an RTX 3060, can it run Llama 3 8B?", "rtx-3060-12gb"),
    ("台式机里一张4090，能跑32B吗", "rtx-4090"),
])  # fmt: skip
def test_the_card_read_is_the_variant_the_user_has(understanding, message, card):
    assert understanding.read(message).state.all("gpu") == [card]


@pytest.mark.parametrize("message, words, absent", [
    ("I have a laptop with a 3060 6GB, can I fine-tune a 7B model with LoRA?", ("Laptop",), ("12GB", "12.9 GB")),
    ("my laptop's RTX 3060 - can it run Llama 3 8B?", ("Laptop",), ("12GB", "12.9 GB")),
    ("我的笔记本是3060，能跑7B模型吗", ("Laptop",), ("12GB", "12.9 GB")),
])  # fmt: skip
def test_a_laptop_card_is_sized_with_its_own_memory(advisor, message, words, absent):
    first = lead(advisor.answer(message, []))
    assert all(w in first for w in words), first
    assert not any(w in first for w in absent), first


# ------------------------------------------------------------------ vague counts: a range and a planning value


@pytest.mark.parametrize("text, low, plan, high", [
    ("serve it to dozens of users", 20, 50, 90),
    ("a few dozen people use it at once", 24, 40, 60),
    ("a few hundred people in the company", 200, 300, 500),
    ("tens of thousands of users a day", 10000, 30000, 90000),
    ("几十个并发", 20, 50, 90),
    ("公司有几百号人", 200, 300, 500),
    ("a dozen or so people at once", 11, 15, 19),
])  # fmt: skip
def test_a_vague_count_is_a_range_with_a_planning_value_inside_it(text, low, plan, high):
    (found,) = vague_counts(normalize_text(text))
    assert (found.low, found.plan, found.high) == (low, plan, high)
    assert low < plan < high  # never the bottom of the range


@pytest.mark.parametrize("text", ["预算几十万", "dozens of times faster", "hundreds of GB of checkpoints", "几百万token", "三十来个人", "二十几个并发"])
def test_words_of_a_bigger_number_or_a_size_are_no_vague_count(text):
    assert vague_counts(normalize_text(text)) == ()


@pytest.mark.parametrize("message, low_high, plan", [
    ("Which GPU should we buy to serve Qwen2.5-32B to dozens of concurrent users?", "20–90", "50"),
    ("几十个并发用户跑Qwen2.5-14B需要几张卡", "20–90", "50"),
    ("A few hundred people at our company will chat with Llama 3 70B. What hardware do we need?", "200–500", "300"),
])  # fmt: skip
def test_the_answer_says_the_range_and_sizes_for_the_planning_value(advisor, message, low_high, plan):
    r = advisor.answer(message, [])
    said = [line for line in r.answer.splitlines() if low_high in line]
    assert said and plan in said[0], r.answer
    (call,) = calls(r, "recommend_gpus")[:1]
    assert call.args.get("concurrency") not in (None, 1, 10), call.args  # the count was used, not the bottom nor a default


# ------------------------------------------------------------------ the stated supply


@pytest.mark.parametrize("message, expected", [
    ("Our office only has single-phase 220V power.", {"volts": 220.0, "three_phase": False}),
    ("我们机房只有单相220V供电", {"volts": 220.0, "three_phase": False}),
    ("the building gives us a 400 V supply", {"volts": 400.0, "three_phase": True}),
    ("三相380V进线", {"volts": 380.0, "three_phase": True}),
])  # fmt: skip
def test_a_supply_without_a_rating_is_read(message, expected):
    assert read_circuit([message]) == expected


def test_a_device_rail_is_no_supply():
    assert read_circuit(["the fan runs off the 12V rail"]) is None


@pytest.mark.parametrize("message, words, absent", [
    ("Our office only has single-phase 220V power. Can we run an 8x H100 server?", ("single-phase 220 V", " A"), ("three-phase", "30 kW per rack")),
    ("办公室只有单相220V的电，能带一台8卡4090服务器吗？", ("单相 220 V", " A"), ("三相",)),
])  # fmt: skip
def test_the_power_answer_plans_on_the_stated_supply(advisor, message, words, absent):
    r = advisor.answer(message, [])
    first = lead(r)
    assert all(w in first for w in words), first
    assert not any(w in first for w in absent), first
    (call,) = calls(r, "plan_facility")[:1]
    assert call.args["circuit"]["volts"] == 220 and not call.args["circuit"].get("three_phase")


@pytest.mark.parametrize("message, words, absent", [
    ("Two 8x H100 servers arrive next month and our room has single-phase 230V only. What does the room need?", ("single-phase",), ("three-phase",)),
    ("下个月到两台8卡H100服务器，机房只有单相220V，机房要准备什么？", ("单相",), ("三相",)),
])  # fmt: skip
def test_the_site_checklist_plans_feeds_on_the_stated_supply(advisor, message, words, absent):
    first = lead(advisor.answer(message, []))
    assert all(w in first for w in words), first
    assert not any(w in first for w in absent), first


# ------------------------------------------------------------------ renting only


@pytest.mark.parametrize("message", [
    "We only use cloud, never buy hardware. What GPU should we use to fine-tune Llama 3 8B?",
    "We rent everything in the cloud. Which GPU for serving Llama 3 70B to 20 users?",
    "我们只租云，不买卡，跑Qwen2.5-72B推理用什么卡？",
    "公司全部上云，不自建机房，微调Qwen2.5-7B选哪种卡？",
])  # fmt: skip
def test_renting_only_is_read(message):
    assert says("rents_only", message)


@pytest.mark.parametrize("message", ["Should we rent or buy 8 H100s?", "租还是买8张H100划算？", "We own 4 A100s and rent more at peak."])
def test_weighing_rent_against_buying_is_not_renting_only(message):
    assert not says("rents_only", message)


@pytest.mark.parametrize("message, words, absent", [
    ("We only use cloud, never buy hardware. What GPU should we use to fine-tune Llama 3 8B?", ("an hour", "nothing to buy"), ("whole configuration",)),
    ("We rent everything in the cloud. Which GPU for serving Llama 3 70B to 20 users?", ("an hour",), ("whole configuration",)),
    ("我们只租云，不买卡，跑Qwen2.5-72B推理用什么卡？", ("每小时", "无需购买"), ("整套约",)),
])  # fmt: skip
def test_a_renter_hears_the_rent_not_a_purchase(advisor, message, words, absent):
    r = advisor.answer(message, [])
    first = lead(r)
    assert all(w in first for w in words), first
    assert not any(w in first for w in absent), first
    assert "**Rent or buy**" not in r.answer and "**租还是买**" not in r.answer  # no purchase weighed (a source may name the subject)
    (call,) = calls(r, "recommend_gpus")[:1]
    assert call.args["objective"] == "cloud"


# ------------------------------------------------------------------ one card asked about


@pytest.mark.parametrize("message, words, absent_first", [
    ("What does one H100 cost?", ("One NVIDIA H100", "per card"), ("8×",)),
    ("How much is a single RTX 4090?", ("One NVIDIA GeForce RTX 4090", "per card"), ("8×",)),
    ("一张H100多少钱？", ("一张 NVIDIA H100", "每卡"), ("8×",)),
])  # fmt: skip
def test_one_card_is_priced_per_card_first(advisor, message, words, absent_first):
    first = lead(advisor.answer(message, []))
    head = first.split("**")[1] if "**" in first else first
    assert all(w in first for w in words), first
    assert not any(w in head for w in absent_first), first


def test_a_server_asked_about_keeps_the_machine_price(advisor):
    first = lead(advisor.answer("How much is one H100 server?", []))
    assert "whole machine" in first and "per card" not in first.split("\n")[0].split("**")[1], first
