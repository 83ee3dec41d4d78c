"""The user's stated constraints and market shape the answer (market17b), in both languages with our own wording:

- a site with no server room gets machines that stand in an office (workstation or desktop classes), never a rack
  server, and is told so (Ask.no_server_room → recommend_gpus ``office_site``);
- "cloud is fine" / renting said to be acceptable puts the rent first, ranked by rent, the purchase as the alternative
  (Ask.renting_ok; rents_only stays the stronger "we never buy");
- a fault said to come back on the same card at a rate ("twice a week") is a recurring fault: the RMA path;
- a site placed in a region is priced at that region's electricity and colocation rates, or the answer says the region
  has no sourced rate and which fallback stands in (knowledge/region_tariffs.yaml, facility answers too);
- "no quantisation" said once holds for every question of the conversation, a recommendation part included.
"""

from __future__ import annotations

import pytest

from advisor.config import Settings
from advisor.deps import build_advisor, shared_registry
from advisor.nlu.cues import says
from tests.threads import calls, lead


@pytest.fixture(scope="module")
def advisor():
    return build_advisor(Settings.from_env({}))


# ------------------------------------------------------------------ no server room: office machines only


@pytest.mark.parametrize("message", [
    "Our team has no server room, so what can we buy to host a 70B chat model?",
    "We don't have a data centre; which machine runs Qwen2.5-32B for ten people?",
    "公司没有机房，想本地部署一个70B模型，买什么机器？",
    "我们没机房，给研发组跑Qwen2.5-32B推理该买什么？",
])  # fmt: skip
def test_no_server_room_is_read(message):
    assert says("no_server_room", message)


@pytest.mark.parametrize("message", ["We colocate in a data centre in Virginia.", "机房有30 kW的机柜。"])
def test_a_site_with_a_room_is_not_read_as_an_office(message):
    assert not says("no_server_room", message)


def test_the_recommender_keeps_to_office_machines():
    registry = shared_registry()
    args = {"model": "Qwen2.5-72B", "concurrency": 4, "region": "cn", "currency": "CNY"}
    racked = registry.call("recommend_gpus", args).result["options"]
    office = registry.call("recommend_gpus", {**args, "office_site": True}).result["options"]
    assert any(o["server_class"] in ("pcie-8gpu", "hgx-8gpu") for o in racked)  # without the constraint a rack server leads
    assert office and all(o["server_class"] in ("workstation-4gpu", "desktop-1gpu", None) for o in office)
    assert all(o["server_count"] <= 1 for o in office)


@pytest.mark.parametrize("message, said", [
    ("We have no server room in our office. What should we buy to serve Qwen2.5-72B to 20 staff?", "no server room"),
    ("我们办公室没有机房，想给20个同事本地跑Qwen2.5-72B，买什么？", "没有机房"),
])  # fmt: skip
def test_an_office_without_a_server_room_gets_no_rack_server(advisor, message, said):
    r = advisor.answer(message, [])
    (call,) = calls(r, "recommend_gpus")[:1]
    assert call.args.get("office_site") is True
    assert said in r.answer
    first = lead(r)
    assert "8-GPU" not in first and "8 卡" not in first, first


# ------------------------------------------------------------------ renting said to be fine: the rent leads


@pytest.mark.parametrize("message", [
    "Cloud is fine for us; what should we run Llama 3.1 8B on?",
    "Happy to rent. Which GPU for serving Mistral 7B?",
    "上云也可以，跑Qwen2.5-14B推理用什么卡？",
    "租也行，部署一个7B模型推荐什么？",
])  # fmt: skip
def test_renting_is_fine_is_read(message):
    assert says("renting_ok", message)
    assert not says("rents_only", message)


@pytest.mark.parametrize("message, hourly, purchase", [
    ("Cloud is fine for us. What GPU should we use to serve Llama 3.1 70B?", "an hour", "as a whole configuration"),
    ("上云也可以，部署Qwen2.5-32B推理推荐什么配置？", "每小时", "整套约"),
])  # fmt: skip
def test_renting_fine_puts_the_rent_first(advisor, message, hourly, purchase):
    r = advisor.answer(message, [])
    first = lead(r)
    assert hourly in first, first
    assert purchase not in first.split("\n")[0], first
    (call,) = calls(r, "recommend_gpus")[:1]
    assert call.args["objective"] == "cloud"


# ------------------------------------------------------------------ a fault that keeps coming back on one card


@pytest.mark.parametrize("message", [
    "Card 5 drops off the bus with Xid 79 twice a week now. RMA?",
    "Xid 48 on the same GPU a few times this month, what should we do?",
    "这张卡一周两次Xid 79掉卡，要不要换？",
])  # fmt: skip
def test_a_fault_at_a_rate_is_recurring(message):
    assert says("recurring", message)


def test_a_repeated_bus_drop_is_sent_to_rma(advisor):
    first = lead(advisor.answer("Card 5 drops off the bus with Xid 79 twice a week now. Should we RMA it?", []))
    assert "RMA" in first and "not an RMA yet" not in first, first


# ------------------------------------------------------------------ the site's region prices power and colocation


@pytest.mark.parametrize("region, rate, words", [
    ("uk", 0.187, ("the UK",)),
    ("sg", 0.0806, ("no sourced industrial price for Singapore", "United States")),
])  # fmt: skip
def test_the_facility_plan_uses_the_regions_power_price_or_names_the_gap(region, rate, words):
    result = shared_registry().call("plan_facility", {"gpu": "h100-sxm", "servers": 1, "region": region}).result
    (figure,) = [f for f in result["figures"] if f["key"] == "electricity_price"]
    assert figure["value"] == pytest.approx(rate)
    assert all(w in figure["basis"]["en"] for w in words), figure["basis"]


def test_singapore_colocation_is_its_own_rate():
    result = shared_registry().call("plan_facility", {"gpu": "h100-sxm", "servers": 1, "region": "sg"}).result
    assert result["colocation"]["per_kw_month"] == pytest.approx(222)  # the Singapore row, not the US planning figure
    assert "Singapore" in result["colocation"]["basis"]


@pytest.mark.parametrize("message, words", [
    ("Our two 8x H100 servers will sit in a Singapore colo: yearly power and colocation cost?", ("Singapore",)),
    ("我们是新加坡的公司，托管一台8卡H100服务器，一年电费和机柜费多少？", ("新加坡",)),
])  # fmt: skip
def test_a_singapore_site_is_not_priced_at_us_rates_silently(advisor, message, words):
    r = advisor.answer(message, [])
    priced = [c for c in r.tool_calls if c.name in ("plan_facility", "compute_tco")]
    assert priced and all("sg" in (c.args.get("region"), c.args.get("site_region")) for c in priced), [c.args for c in priced]
    assert all(w in r.answer for w in words)


# ------------------------------------------------------------------ "no quantisation" holds for every part of the question


@pytest.mark.parametrize("message", [
    "No quantisation please: can A100s hold Llama 3.1 70B? And which card would you recommend?",
    "不量化的话，A100能跑Llama 3.1 70B吗？另外推荐什么卡？",
])  # fmt: skip
def test_no_quantisation_reaches_the_recommendation_part(advisor, message):
    r = advisor.answer(message, [])
    for call in calls(r, "recommend_gpus"):
        assert call.args.get("precision_default") == "bf16", call.args
        assert call.args.get("precision") in (None, "bf16"), call.args
