"""A sentence that asks several measures ("power draw and network for 4x8 H100 nodes?", "how much VRAM and how fast?")
gets every part, each from its own calculation, in the order asked; a limit the user states (a rack's kW, a budget) is
judged in the lead against the figure computed; power for N servers counts the N servers. Both languages, own wording."""

from __future__ import annotations

import pytest

from advisor.nlu.asked_measures import measures_asked
from advisor.nlu.values import find_values
from advisor.name_matcher import normalize_text
from advisor.offline.measure_parts import parts_data
from knowledge.catalog import load_catalog


def ask(advisor, question):
    response = advisor.answer(question, [])
    return response, response.summary


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("what's the power draw and the network for 6 servers of 8 H200?", ("power", "network")),
        ("how much GPU memory does Llama 3.1 8B need and how fast will it run on one L40S?", ("memory", "speed")),
        ("which GPU should we get, and what would the whole box cost?", ("card", "price")),
        ("8台8卡H800服务器的功耗和网络方案分别是多少？", ("power", "network")),
        ("Qwen2.5-72B 需要多少显存，用4张A100推理速度多快？", ("memory", "speed")),
        ("4台8卡A100服务器，电费多少，机柜放得下吗？", ("bill", "rack")),
        ("24G显存能跑多快", ("speed",)),  # a card's memory stated, not asked
        ("Will Qwen2.5-7B fit on a 4090 and how fast will it be?", ("memory", "speed")),
        ("4张4090显存够不够跑Qwen2.5-32B，速度多快？", ("memory", "speed")),
    ],
)
def test_the_measures_asked_are_read_in_order(message, expected):
    assert measures_asked(message) == expected


def test_every_measure_has_a_calculation_and_its_words():
    from advisor.nlu.asked_measures import measure_words

    assert set(measure_words().measures) == set(parts_data().measures)


@pytest.mark.parametrize(
    ("message", "servers"),
    [("rack power for 4 B200 servers?", 4), ("power draw and network for 4x8 H100 nodes?", 4), ("power draw of 6 H200 nodes", 6)],
)
def test_a_count_before_a_card_and_a_server_noun_counts_servers(message, servers):
    found = [(v.kind, v.value) for v in find_values(normalize_text(message), load_catalog())]
    assert ("count_server", float(servers)) in found


def test_a_count_of_cards_put_in_servers_stays_cards():
    found = [(v.kind, v.value) for v in find_values(normalize_text("fit 4 H100 in our servers"), load_catalog())]
    assert ("count_gpu", 4.0) in found and not any(kind == "count_server" for kind, _ in found)


@pytest.mark.parametrize(
    ("question", "tools", "firsts"),
    [
        ("What's the power draw and the network we'd need for 6 servers of 8 H200?", {"plan_facility", "size_fabric"}, ["kW of IT load", "switch"]),
        ("How much GPU memory does Llama 3.1 8B need and how fast will it run on one L40S?", {"estimate_memory", "estimate_throughput"}, ["GB per GPU", "tokens/s"]),
        ("8台8卡H800服务器的功耗和网络方案分别是多少？", {"plan_facility", "size_fabric"}, ["IT 负载", "交换机"]),
        ("Qwen2.5-72B 需要多少显存，用4张A100推理速度多快？", {"estimate_memory", "estimate_throughput"}, ["显存", "token/s"]),
    ],
)
def test_each_part_is_answered_in_the_order_asked(offline_advisor, question, tools, firsts):
    response, summary = ask(offline_advisor, question)
    assert tools <= {call.name for call in response.tool_calls}
    opening = summary.split("\n\n")[0].replace("（", "(").replace("）", ")")  # "In short: (1) … (2) …": every part in the first line
    assert "(1)" in opening and "(2)" in opening, opening
    first, second = opening.split("(2)")
    assert firsts[0] in first and firsts[1] in second, opening


@pytest.mark.parametrize(
    ("question", "leads"),
    [
        ("4台8卡A100服务器，电费多少，机柜放得下吗？", ["年电费约", "机柜"]),  # the bill, then whether the racks hold them
        ("How much power do 5 DGX H100 draw and what's the electricity bill per year?", ["kW of IT load", "Electricity ≈"]),
        ("每柜只有20kW，3台B200服务器要多少功率，放得下吗？", ["IT 负载", "需要 3 个 20 kW 机柜"]),
    ],
)
def test_site_measures_of_one_sentence_each_get_a_lead(offline_advisor, question, leads):
    _, summary = ask(offline_advisor, question)
    first = summary.split("\n\n")[0]
    positions = [first.find(words) for words in leads]
    assert all(at >= 0 for at in positions) and positions == sorted(positions), first


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        ("rack power for 4 B200 servers? our cage has 60 kW", "Fits on paper, but with only 5% headroom: 4 × DGX B200"),  # 4 × 14.3 kW = 57.2 kW
        ("rack power for 4 H100 servers? our racks are 25 kW", "need 2 racks of 25 kW"),
        ("每柜只有15kW，放4台8卡H100服务器，够吗？", "需要 4 个 15 kW 机柜"),
        ("budget $150k — which GPUs to serve a 70B model for 50 users?", "Within your budget of $150,000"),
        ("预算100万人民币，买什么卡跑70B推理？", "在您的预算（¥1,000,000）以内"),
    ],
)
def test_a_stated_limit_is_judged_in_the_lead(offline_advisor, question, verdict):
    _, summary = ask(offline_advisor, question)
    assert verdict in summary.split("\n\n")[0], summary[:400]


def test_power_for_n_servers_counts_them_with_the_per_server_figure(offline_advisor):
    _, summary = ask(offline_advisor, "rack power for 4 B200 servers? our cage has 60 kW")
    assert "57.2 kW" in summary and "4 × 14.3 kW" in summary
