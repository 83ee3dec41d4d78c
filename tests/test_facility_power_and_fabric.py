"""Stated power feeds, the electricity line on its own, a China buyer's status line with buyable air-cooled
alternatives, and the leaf/spine fabric count: the tools' arithmetic and the answers built on it, in both languages."""

from __future__ import annotations

import math

import pytest

from advisor.nlu.site import read_circuit, read_rack_count
from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from knowledge.facility import shipped_facility_book, shipped_facility_data
from tools.fabric import FabricRequest, size_fabric
from tools.facility import Circuit, FacilityPlanRequest, plan_facility
from tests.threads import ask

CATALOG = load_catalog()
BOOK = shipped_facility_book()
DERATING = shipped_facility_data().circuits.continuous_derating.value


def plan(**fields):
    return plan_facility(FacilityPlanRequest(**fields), CATALOG, BOOK)


def fabric(servers, **fields):
    return {p.fabric: p for p in size_fabric(FabricRequest(servers=servers, **fields), BOOK).plans}


# ------------------------------------------------------------------ feeds: the tool


def test_single_phase_feeds_add_up_and_are_derated_for_continuous_load():
    result = plan(gpu="rtx-4090", circuit=Circuit(amps=16, volts=230, feeds=3))
    assert result.circuit_kw == pytest.approx(16 * 230 * DERATING * 3 / 1000)
    assert result.servers_on_circuit == math.floor(result.circuit_kw / result.server_kw)


def test_three_phase_takes_root_three_and_a_plus_b_counts_one_side():
    plain = plan(gpu="h100-sxm", circuit=Circuit(amps=50, volts=400, three_phase=True, feeds=2))
    redundant = plan(gpu="h100-sxm", circuit=Circuit(amps=50, volts=400, three_phase=True, feeds=2, redundant=True))
    one_feed = 50 * 400 * math.sqrt(3) * DERATING / 1000
    assert plain.circuit_kw == pytest.approx(2 * one_feed)
    assert redundant.circuit_kw == pytest.approx(one_feed) and redundant.circuit_redundant
    assert redundant.servers_on_circuit == math.floor(one_feed / 10.2)  # DGX H100 datasheet maximum


def test_feeds_too_small_for_one_server_say_zero_and_become_the_rack_budget():
    result = plan(gpu="h100-sxm", circuit=Circuit(amps=20, volts=208, three_phase=True, feeds=2, redundant=True))
    assert result.servers_on_circuit == 0
    assert result.rack_power_kw == pytest.approx(round(result.circuit_kw, 2))
    assert result.cap_server_kw is not None  # a power cap is offered against the feeds' budget


def test_short_feeds_say_what_rating_would_carry_every_server_asked_about():
    result = plan(gpu="h200", servers=4, circuit=Circuit(amps=63, volts=400, three_phase=True, feeds=2, redundant=True))
    assert result.servers_on_circuit == 3  # 34.9 kW on one side, 10.2 kW each
    assert result.amps_needed == math.ceil(4 * 10.2 * 1000 / (400 * math.sqrt(3) * DERATING))
    assert plan(gpu="h200", servers=1, circuit=Circuit(amps=32, volts=400, three_phase=True)).amps_needed is None


@pytest.mark.parametrize("bad", [{"amps": 0, "volts": 230}, {"amps": 16, "volts": 12}, {"amps": 16, "volts": 230, "feeds": 0}])
def test_an_impossible_feed_is_a_bilingual_error(bad):
    with pytest.raises(AdvisorError) as caught:
        plan(gpu="h100-sxm", circuit=Circuit(**bad))
    assert caught.value.message("en") and caught.value.message("zh") != caught.value.message("en")


def test_the_plan_carries_the_china_status_of_the_part():
    assert plan(gpu="gb200").china == "export-controlled" and plan(gpu="gb200").liquid_as_sold
    assert plan(gpu="h20").china == "china-variant"


# ------------------------------------------------------------------ feeds: how they are written


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        (["the colo gives us three 20 A 240 V single-phase circuits"], {"amps": 20, "volts": 240, "feeds": 3, "three_phase": False}),
        (
            ["cage fed by 2 feeds of 60A at 415V three-phase, redundant A/B"],
            {"amps": 60, "volts": 415, "feeds": 2, "three_phase": True, "redundant": True},
        ),
        (["机房给了6路32安 220伏的电"], {"amps": 32, "volts": 220, "feeds": 6}),
        (["三相 63A 380V 两路，主备供电"], {"amps": 63, "volts": 380, "feeds": 2, "three_phase": True, "redundant": True}),
        (["power is 30A 208V x 2"], {"amps": 30, "volts": 208, "feeds": 2}),
    ],
)
def test_feeds_are_read_in_both_languages(messages, expected):
    assert read_circuit(messages) == {k: float(v) if k in ("amps", "volts") else v for k, v in expected.items()}


def test_a_later_message_replaces_the_rating_and_keeps_the_rest():
    circuit = read_circuit(["two 30 A 208 V three-phase feeds, A+B", "and if they were 40 A?"])
    assert circuit["amps"] == 40 and circuit["volts"] == 208 and circuit["feeds"] == 2 and circuit["redundant"]


def test_no_feed_without_both_amps_and_volts_and_a_card_name_is_not_an_amp():
    assert read_circuit(["8 A100 in a 20 kW rack"]) is None
    assert read_circuit(["a 32A feed, voltage unknown"]) is None


# ------------------------------------------------------------------ fabric: the tool


def test_a_small_cluster_fits_on_one_switch():
    plans = fabric(4)  # 32 NICs
    assert all(p.tiers == 1 and p.switches == 1 and p.spines == 0 for p in plans.values())


def test_two_tier_rail_optimised_counts_follow_the_switch_radix():
    plans = fabric(64)  # 512 NICs, 8 rails
    ib, eth = plans["infiniband"], plans["spectrum-x"]
    assert (ib.leaves, ib.spines) == (8 * math.ceil(64 / 32), math.ceil(512 / 64))  # 64-port: 32 servers per leaf
    assert (eth.leaves, eth.spines) == (8 * math.ceil(64 / 64), math.ceil(512 / 128))  # 128 × 400G
    assert ib.nic_cables == 512 and ib.spine_cables == 512  # non-blocking: as many uplinks as downlinks


def test_past_radix_squared_over_two_a_third_tier_is_said_not_counted():
    ib = fabric(300)["infiniband"]  # 64-port switches reach 64² / 2 = 2048 NICs = 256 servers of 8
    assert ib.max_servers_two_tier == 256 and ib.tiers == 3 and ib.switches == 0
    assert fabric(300)["broadcom"].tiers == 2


def test_an_unknown_fabric_is_a_bilingual_error_and_every_fabric_is_sourced():
    with pytest.raises(AdvisorError):
        size_fabric(FabricRequest(servers=8, fabric="token-ring"), BOOK)
    assert all(f.source.url.startswith("https://") and f.date for f in shipped_facility_data().fabrics)


# ------------------------------------------------------------------ answers


def first_sentence(response):
    return response.summary.split("\n\n")[0]


def calls(response, name):
    return [c for c in response.tool_calls if c.name == name]


def test_stated_three_phase_feeds_give_the_verdict_first_en(offline_advisor):
    response = ask(
        offline_advisor,
        "Our colo cage gets two 40 A 208 V three-phase circuits, A and B redundant. How many 8-GPU H200 servers can it power?",
    )
    args = calls(response, "plan_facility")[0].args
    assert args["circuit"] == {"amps": 40.0, "volts": 208.0, "three_phase": True, "redundant": True, "feeds": 2}
    one_side = 40 * 208 * math.sqrt(3) * DERATING / 1000  # 11.5 kW: one DGX H200 at 10.2 kW
    lead = first_sentence(response)
    assert lead.startswith("**Your feeds carry 1 ×") and f"{one_side:.1f} kW continuous" in lead


def test_stated_single_phase_feeds_give_the_verdict_first_zh(offline_advisor):
    response = ask(offline_advisor, "机房给我们6路32A 230V的单相电，8卡4090D的机器能放几台？")
    args = calls(response, "plan_facility")[0].args
    assert args["circuit"]["feeds"] == 6 and args["circuit"]["amps"] == 32
    usable = 6 * 32 * 230 * DERATING / 1000
    per_server = plan(gpu="rtx-4090d").server_kw
    assert first_sentence(response).startswith(f"**您的供电可带 {math.floor(usable / per_server)} 台")


def test_feeds_too_small_say_no_and_offer_a_power_cap(offline_advisor):
    response = ask(offline_advisor, "We only have one 30A 208V single-phase circuit, will a DGX H100 run on it?")
    assert first_sentence(response).startswith("**No: your feeds cannot carry even one")
    assert "**Power-cap**" in response.summary and "too low to be worth it" in response.summary
    needed = math.ceil(30 * 10.2 / (30 * 208 * DERATING / 1000))  # the rating that carries one 10.2 kW server
    assert f"each needs a {needed} A rating" in response.summary


def test_a_follow_up_that_changes_the_feed_re_runs_the_plan(offline_advisor):
    response = ask(offline_advisor, "what if each feed were 60 A?", "two 30A 208V three-phase feeds (A+B): how many 8x H100 servers fit?")
    assert calls(response, "plan_facility")[0].args["circuit"]["amps"] == 60
    assert "Your feeds carry 1 ×" in response.summary  # 60 A × 208 V × √3 × 0.8 = 17.3 kW: one 10.2 kW server


@pytest.mark.parametrize(
    ("question", "starts"),
    [
        ("what would electricity cost per year for 12 servers with 8 H100 each?", "**Electricity ≈ $"),
        ("24台8卡H20服务器一年的电费是多少？", "**年电费约 ¥"),
    ],
)
def test_an_electricity_question_is_answered_alone_in_the_users_currency(offline_advisor, question, starts):
    response = ask(offline_advisor, question)
    assert first_sentence(response).startswith(starts)
    assert "**Options**" not in response.summary and "**可选方案**" not in response.summary
    assert "per rack" not in response.summary and "每柜" not in response.summary.split("\n\n")[1]


def test_a_china_buyer_of_a_liquid_cooled_rack_gets_its_status_and_an_air_cooled_alternative_zh(offline_advisor):
    response = ask(offline_advisor, "公司在深圳，打算部署一个GB200 NVL72，机房要准备什么？")
    assert first_sentence(response).startswith("**需要液冷")
    assert "**国内采购**" in response.summary and "出口管制" in response.summary
    # the plan, the per-rack feed check of the preparation checklist (it states a circuit), then the alternatives
    alternatives = [c.args["gpu"] for c in calls(response, "plan_facility")[1:] if not c.args.get("circuit")]
    assert alternatives and set(alternatives) <= set(shipped_facility_data().china_air_cooled["datacenter"])
    assert "国内可买、风冷" in response.summary


def test_a_buyer_elsewhere_gets_no_china_line_en(offline_advisor):
    response = ask(offline_advisor, "What power and cooling does one GB200 NVL72 rack need in our Texas data center?")
    assert "**China**" not in response.summary and len(calls(response, "plan_facility")) == 1


def test_one_servers_draw_is_the_first_sentence_en(offline_advisor):
    response = ask(offline_advisor, "how much power does one DGX B200 server draw?")
    assert first_sentence(response).startswith("**One DGX B200 (8× B200) draws up to 14.3 kW")


@pytest.mark.parametrize(
    ("question", "servers", "starts"),
    [
        ("For 48 servers of 8 H100, how many leaf and spine switches does a 400G compute fabric take?", 48, "**48 servers × 8 GPUs"),
        ("96台8卡H20做计算网络组网，需要多少台交换机？", 96, "**96 台 × 8 卡"),
    ],
)
def test_a_fabric_question_gets_switch_counts_per_option(offline_advisor, question, servers, starts):
    response = ask(offline_advisor, question)
    args = calls(response, "size_fabric")[0].args
    assert args["servers"] == servers
    lead = first_sentence(response)
    ib = fabric(servers)["infiniband"]
    assert lead.startswith(starts) and f"{ib.switches}" in lead
    assert all(name in response.summary for name in ("QM9700", "SN5600", "Tomahawk 5"))


@pytest.mark.parametrize(
    ("question", "racks"),
    [("Planning three GB300 NVL72 racks: what is the yearly power bill?", 3), ("准备上2个GB200 NVL72整柜，一年电费多少？", 2)],
)
def test_a_count_of_whole_rack_systems_counts_racks(offline_advisor, question, racks):
    response = ask(offline_advisor, question)
    assert calls(response, "plan_facility")[0].args["servers"] == racks
    assert read_rack_count("GB200 NVL72 in 130 kW racks") is None  # a rack's power is no count of racks


def test_a_follow_up_with_another_node_count_re_sizes_the_fabric(offline_advisor):
    response = ask(offline_advisor, "what about 96 nodes?", "For 24 nodes of 8 H200, how many leaf and spine switches would we need?")
    assert calls(response, "size_fabric")[0].args["servers"] == 96
    assert f"{fabric(96)['infiniband'].switches} switches" in response.summary


def test_the_bill_after_a_feeds_question_is_for_the_servers_the_feeds_carry_zh(offline_advisor):
    response = ask(offline_advisor, "那一年电费是多少？", "机房是三相63A 400V，A+B两路，能带几台8卡H20？")
    plans = calls(response, "plan_facility")
    carried = plans[0].result["servers_on_circuit"]
    assert carried > 1 and plans[-1].args["servers"] == carried
    assert first_sentence(response).startswith("**年电费约 ¥") and f"{carried} 台" in first_sentence(response)


@pytest.mark.parametrize(
    ("question", "servers", "starts"),
    [
        ("For a 20-node B200 training cluster, should we go InfiniBand or RoCE?", 20, "**Both work at 20 servers"),
        ("40个节点的H20集群，网络用IB还是以太网？", 40, "**40 台（320 张卡）两种都能用"),
    ],
)
def test_which_fabric_is_answered_with_a_verdict_and_the_counts_behind_it(offline_advisor, question, servers, starts):
    response = ask(offline_advisor, question)
    assert calls(response, "size_fabric")[0].args["servers"] == servers
    assert first_sentence(response).startswith(starts)
    assert str(fabric(servers)["infiniband"].switches) in first_sentence(response)


def test_a_measured_bandwidth_question_is_not_taken_for_a_fabric_choice(offline_advisor):
    response = ask(offline_advisor, "Is 150 GB/s busbw normal for 4 nodes with 8x400G InfiniBand?")
    assert not calls(response, "size_fabric")


@pytest.mark.parametrize(
    ("question", "starts"),
    [
        ("What's our monthly power bill for 6 servers of 8x A100?", "**Electricity ≈ $"),
        ("6台8卡A100服务器每个月电费多少钱？", "**每月电费约 ¥"),
    ],
)
def test_a_monthly_bill_question_leads_with_the_month(offline_advisor, question, starts):
    response = ask(offline_advisor, question)
    result = calls(response, "plan_facility")[0].result
    assert result["cost_per_month"] == pytest.approx(result["cost_per_year"] / 12)
    lead = first_sentence(response)
    assert lead.startswith(starts) and ("a month" in lead or "每月" in lead)
