"""Replacing the GPUs in place with another part: both configurations are planned at the same counts and rack
budget, and the answer leads with the difference asked for (load or bill), then whether the feeds must change."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from knowledge.facility import shipped_facility_book
from tools.facility import FacilityPlanRequest, plan_facility

CATALOG = load_catalog()
BOOK = shipped_facility_book()


def _plans(response):
    return [c for c in response.tool_calls if c.name == "plan_facility"]


def _it_kw(gpu, servers, rack_kw=None):
    return plan_facility(FacilityPlanRequest(gpu=gpu, servers=servers, rack_power_kw=rack_kw), CATALOG, BOOK).it_kw


@pytest.mark.parametrize(
    "message, old, new, servers",
    [
        ("We run 5 DGX A100 boxes and will move them to H200 servers - how much extra power will the hall need?", "a100", "h200", 5),
        ("机房里有3台8卡A100，准备换成H200，功耗要多出多少？", "a100", "h200", 3),
    ],
)
def test_a_swap_plans_both_parts_and_leads_with_the_added_load(offline_advisor, message, old, new, servers):
    response = offline_advisor.answer(message, [])
    plans = _plans(response)
    assert [c.args["gpu"].split("-")[0] for c in plans] == [old, new]
    assert all(c.args["servers"] == servers for c in plans)
    added = _it_kw("h200-sxm", servers) - _it_kw("a100-80gb-sxm", servers)
    first = response.summary.splitlines()[0]
    assert f"{added:.1f}" in first
    assert ("adds" in first) if response.language == "en" else ("增加" in first)


@pytest.mark.parametrize(
    "message",
    ["If we replace our two 8x H100 servers with 8x H20 boxes, does the power bill go down?", "两台8卡H100换成8卡H20，一年电费能少多少"],
)
def test_a_question_about_the_bill_leads_with_the_bill(offline_advisor, message):
    response = offline_advisor.answer(message, [])
    first = response.summary.splitlines()[0]
    assert len(_plans(response)) == 2
    assert ("a year in electricity" in first) if response.language == "en" else ("电费约省" in first)


def test_new_servers_that_outgrow_the_rack_say_the_feeds_must_change(offline_advisor):
    response = offline_advisor.answer("We have 4 DGX H100 in 12 kW racks; swapping them for DGX B200 - what changes on power?", [])
    _, after = _plans(response)
    assert after.args["rack_power_kw"] == 12
    assert "must change" in response.summary and "14.3" in response.summary


def test_servers_that_still_fit_their_racks_keep_the_feeds(offline_advisor):
    response = offline_advisor.answer("两台8卡H100放在30kW的机柜里，升级成B200的话供电要改吗", [])
    assert "原机柜放得下" in response.summary


def test_one_gpu_named_is_no_swap(offline_advisor):
    response = offline_advisor.answer("How much power do four 8x H200 servers draw?", [])
    assert len(_plans(response)) == 1


@pytest.mark.parametrize(
    "message",
    ["Would 8-GPU H20 boxes and 8-GPU H100 boxes each fit a 9 kW cabinet?", "12kW的机柜，8卡H20和8卡H100的服务器各能放几台"],
)
def test_parts_weighed_for_the_same_racks_each_get_the_racks_verdict(offline_advisor, message):
    response = offline_advisor.answer(message, [])
    plans = _plans(response)
    assert [c.args["gpu"].split("-")[0] for c in plans] == ["h20", "h100"]
    assert len({c.args["rack_power_kw"] for c in plans}) == 1
    lines = [line for line in response.summary.splitlines() if line.startswith("- **")]
    assert len(lines) == 2 and all(("per rack" in line or "none" in line) if response.language == "en" else ("每柜" in line or "放不下" in line) for line in lines)
