"""Site preparation: "servers arrive soon, what must the room have?" is answered with a checklist worked out by the
plan_facility and size_fabric tools (power, A+B feeds, cooling, cabling, space and floor, bill), verdict first,
with the mainland defaults (380 V feeds, a CNY tariff) for a Chinese question."""

from __future__ import annotations

import math

import pytest

from knowledge.facility import shipped_facility_data

NEEDED = {"plan_facility", "size_fabric"}


def _call(reply, name, **having):
    return [c for c in reply.tool_calls if c.name == name and all(c.args.get(k) == v for k, v in having.items())]


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Five 8x H100 servers are being delivered in March. What will the data center need to be ready?", "en"),
        ("明年初会到5台8卡H100服务器，机房需要准备什么条件？", "zh"),
    ],
)
def test_a_preparation_question_gets_a_checklist_from_the_tools(offline_advisor, question, language):
    reply = offline_advisor.answer(question, [])
    assert reply.language == language
    assert NEEDED <= {c.name for c in reply.tool_calls}, reply.tool_calls
    plan = next(c for c in reply.tool_calls if c.name == "plan_facility" and not c.args.get("circuit")).result
    rack = next(c for c in reply.tool_calls if c.name == "plan_facility" and c.args.get("circuit")).result
    assert plan["servers"] == 5
    first = reply.summary.split("\n")[0]
    # the first sentence gives the room's power, the racks and each feed's rating, all from the tools
    assert f"{plan['it_kw']:.1f} kW" in first and f"{rack['amps_needed']} A" in first
    checklist = reply.summary.split("\n")
    assert sum(line.startswith("- **") for line in checklist) >= 5  # power, feeds, cooling, cabling, space/floor, bill
    volts = rack["items"][0]["formula"]
    if language == "zh":
        assert "380 V" in volts and "¥" in reply.summary and "$" not in reply.summary
        assert "承重" in reply.summary and "PDU" in reply.summary
    else:
        assert "208 V" in volts
        assert "floor" in reply.summary and "PDU" in reply.summary


def test_each_feed_carries_the_whole_rack_at_eighty_percent(offline_advisor):
    reply = offline_advisor.answer("We'll get two 8-GPU B200 boxes; what floor loading, PDUs and cabling does the rack need?", [])
    plan = next(c for c in reply.tool_calls if c.name == "plan_facility" and not c.args.get("circuit")).result
    rack = next(c for c in reply.tool_calls if c.name == "plan_facility" and c.args.get("circuit"))
    volts = rack.args["circuit"]["volts"]
    derating = shipped_facility_data().circuits.continuous_derating.value
    expected = math.ceil(plan["rack_load_kw"] * 1000 / (volts * math.sqrt(3) * derating) - 1e-9)
    assert rack.result["amps_needed"] == expected
    assert rack.args["circuit"]["redundant"] and rack.args["servers"] == min(plan["servers"], plan["servers_per_rack"])


def test_a_single_server_room_needs_no_fabric_switches(offline_advisor):
    reply = offline_advisor.answer("一台8卡H200服务器下周到，机房需要准备什么？", [])
    assert reply.language == "zh"
    assert not _call(reply, "size_fabric")
    assert "单台服务器不需要机间计算网" in reply.summary


def test_a_power_question_without_preparation_words_keeps_its_own_answer(offline_advisor):
    reply = offline_advisor.answer("How much power does one 8-GPU H100 server draw?", [])
    assert not any(c.args.get("circuit") for c in reply.tool_calls if c.name == "plan_facility")
    assert "checklist" not in reply.answer.lower()
