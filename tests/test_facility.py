"""Data-centre questions: the rack/cooling/electricity plan's arithmetic, the values the reader takes from such
questions, and answers whose first sentence holds the number asked, recomputed when a follow-up changes it."""

from __future__ import annotations

import pytest

from advisor.markdown import money, number
from advisor.nlu.values import find_values
from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from knowledge.facility import shipped_facility_book, shipped_facility_data
from tools.facility import HOURS_PER_YEAR, FacilityPlanRequest, plan_facility
from tests.threads import ask

CATALOG = load_catalog()


def plan(**fields):
    return plan_facility(FacilityPlanRequest(**fields), CATALOG, shipped_facility_book())


# ------------------------------------------------------------------ the tool's arithmetic


def test_published_server_power_sets_servers_per_rack_and_racks():
    result = plan(gpu="H200", servers=3, rack_power_kw=20)
    assert result.server_kw == 10.2 and result.server_kw_published
    assert result.servers_per_rack == 1 and result.limited_by == "power"  # 2 × 10.2 kW is over 20 kW
    assert not result.fits and result.racks == 3


def test_a_power_cap_that_lets_one_more_server_in_is_worked_out_from_the_gpu_share():
    result = plan(gpu="H200", servers=3, rack_power_kw=20)
    host_kw = 10.2 - 8 * 0.7
    assert result.cap_server_kw == pytest.approx(10.0)
    assert result.cap_gpu_w == pytest.approx((10.0 - host_kw) * 1000 / 8)
    assert result.cap_practical


def test_it_and_facility_load_and_the_yearly_bill_follow_their_formulas():
    result = plan(gpu="A100", servers=64, pue=1.4, electricity_price=0.6, currency="CNY")
    it_kw = 64 * 6.5 * 1.10
    assert result.it_kw == pytest.approx(it_kw)
    assert result.facility_kw == pytest.approx(it_kw * 1.4)
    assert result.cost_per_year == pytest.approx(it_kw * 0.75 * 1.4 * HOURS_PER_YEAR * 0.6)
    assert result.currency == "CNY"


def test_a_gpu_count_becomes_whole_servers_and_a_hot_server_gets_a_denser_default_rack():
    result = plan(gpu="B200", gpus=256)
    assert result.servers == 32 and result.server_kw == 14.3
    rack = next(f for f in result.figures if f.key == "rack_power_kw")
    assert not rack.stated and rack.value == shipped_facility_data().cooling.air_limit_kw
    assert result.servers_per_rack == 2 and result.racks == 16


def test_a_gpu_without_a_datasheet_system_is_estimated_from_its_server_class():
    result = plan(gpu="RTX 4090", servers=2, rack_power_kw=10)
    assert not result.server_kw_published
    # a GeForce card goes in a GeForce box (the consumer-8gpu class, 1.2 kW around the cards), not an HGX host
    assert result.server_kw == pytest.approx((8 * 450 + 1200) / 1000)
    assert result.notes and "450" in result.notes[0].en and "450" in result.notes[0].zh


def test_a_rack_scale_system_needs_liquid_and_is_its_own_rack():
    result = plan(gpu="GB200", gpus=144)
    assert result.whole_rack and result.servers == 2 and result.racks == 2
    assert result.cooling == "liquid"


def test_dense_air_racks_and_the_liquid_threshold_come_from_the_data():
    cooling = shipped_facility_data().cooling
    four_b200 = plan(gpu="B200", servers=4, rack_power_kw=60)
    assert four_b200.rack_load_kw == pytest.approx(4 * 14.3) and four_b200.rack_load_kw > cooling.liquid_above_kw
    assert four_b200.cooling == "liquid"
    two_b200 = plan(gpu="B200", servers=2, rack_power_kw=40)
    assert two_b200.cooling == "air"  # 28.6 kW stays under the air limit


@pytest.mark.parametrize("fields", [{"rack_power_kw": -5}, {"pue": 0.5}, {"electricity_price": 0}, {"servers": 0}])
def test_impossible_inputs_give_a_bilingual_error(fields):
    with pytest.raises(AdvisorError) as caught:
        plan(gpu="H100", **fields)
    assert caught.value.en and caught.value.zh


def test_a_region_picks_its_sourced_tariff():
    china = plan(gpu="H100", servers=1, currency="CNY", region="cn")
    price = next(f for f in china.figures if f.key == "electricity_price")
    assert price.value == 0.63 and price.url.startswith("https://") and price.date


# ------------------------------------------------------------------ values read from the message


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("is a 25 kW cabinet enough", "power_kw", 25.0),
        ("机房每柜只给6kW", "power_kw", 6.0),
        ("单柜12千瓦够吗", "power_kw", 12.0),
        ("a 3 MW data hall", "power_kw", 3000.0),
        ("PUE按1.45来算", "pue", 1.45),
        ("assume a pue of 1.2", "pue", 1.2),
    ],
)
def test_rack_power_and_pue_are_read_as_values(text, kind, value):
    found = [(v.kind, v.value) for v in find_values(text, CATALOG)]
    assert (kind, value) in found


def test_a_single_rack_is_not_read_as_one_server():
    found = find_values("单机柜10kW能放几台", CATALOG)
    assert not any(v.kind == "count_server" for v in found)


def test_a_price_per_kwh_is_not_a_rack_budget():
    found = find_values("电价0.5元/kWh", CATALOG)
    assert not any(v.kind == "power_kw" for v in found)


def test_servers_written_as_count_times_cards_are_servers():
    found = [(v.kind, v.value) for v in find_values("four 8x H100 servers in one rack", CATALOG)]
    assert ("count_server", 4.0) in found and ("count_gpu", 8.0) in found


@pytest.mark.parametrize(
    ("message", "rack_kw", "pue"),
    [
        ("how many 8x B200 servers would a 35 kW rack take at a PUE of 1.2", 35, 1.2),
        ("一个18kW的机柜放得下两台8卡H100吗，PUE按1.4", 18, 1.4),
    ],
)
def test_the_reader_takes_a_facility_question_with_its_values(offline_advisor, message, rack_kw, pue):
    reading = offline_advisor.planner.understanding.read(message)
    assert reading.intent == "facility"
    assert reading.frame.get("rack_power") == rack_kw and reading.frame.get("pue") == pue


# ------------------------------------------------------------------ answers


def plan_args(response):
    calls = [c for c in response.tool_calls if c.name == "plan_facility"]
    assert calls, [c.name for c in response.tool_calls]
    return calls[0].args  # the plan asked about; a China buyer's air-cooled alternatives are planned after it


def first_sentence(response):
    return response.summary.split("\n\n")[0]


def test_a_rack_fit_question_gets_the_verdict_first_en(offline_advisor):
    response = ask(offline_advisor, "Would two 8x H100 boxes fit together in a 16 kW cabinet?")
    args = plan_args(response)
    assert args["rack_power_kw"] == 16 and args["servers"] == 2
    lead = first_sentence(response)
    assert "need 2 racks of 16 kW" in lead and "a rack takes 1" in lead and "do not fit" in lead  # 2 × 10.2 kW > 16 kW


def test_a_rack_fit_question_gets_the_verdict_first_zh(offline_advisor):
    response = ask(offline_advisor, "机房单柜25kW，两台8卡H200能放进同一个柜子吗")
    args = plan_args(response)
    assert args["rack_power_kw"] == 25 and args["servers"] == 2
    lead = first_sentence(response)
    assert lead.startswith("**纸面上放得下") and "25 kW" in lead and "20.4 kW" in lead  # 2 × 10.2 kW: 18% free, under the planning margin


def test_a_cluster_question_leads_with_its_load_and_says_air_or_liquid(offline_advisor):
    response = ask(offline_advisor, "what power and cooling does a 512 GPU B200 cluster need?")
    args = plan_args(response)
    assert args["gpus"] == 512 and args["gpu"] == "b200"
    lead = first_sentence(response)
    expected_it = 64 * 14.3 * 1.1
    assert f"**{number(expected_it)} kW of IT load" in lead and f"{number(expected_it * 1.3)} kW at the facility" in lead
    # power and cooling both asked: the cooling verdict is a lead of its own (two 14.3 kW servers per 30 kW rack)
    assert "**Air cooling is enough: 2 × DGX B200" in response.summary.split("\n\n")[0]


def test_all_servers_in_one_rack_gets_the_cooling_verdict_first(offline_advisor):
    response = ask(offline_advisor, "is air cooling ok for three DGX B200 in the same rack?")
    assert plan_args(response)["one_rack"] is True
    lead = first_sentence(response)
    assert lead.startswith("**Air only just") and f"{number(3 * 14.3)} kW" in lead


def test_a_yearly_bill_question_in_chinese_leads_with_the_bill(offline_advisor):
    response = ask(offline_advisor, "一年电费多少（48台8卡A100，PUE 1.5，电价0.7元/度）")
    args = plan_args(response)
    assert args["servers"] == 48 and args["pue"] == 1.5 and args["electricity_price"] == 0.7 and args["currency"] == "CNY"
    lead = first_sentence(response)
    expected = 48 * 6.5 * 1.1 * 0.75 * 1.5 * HOURS_PER_YEAR * 0.7
    assert lead.startswith(f"**年电费约 {money(expected, 'CNY')}")


def test_a_follow_up_with_a_bigger_rack_recomputes_en(offline_advisor):
    first = "Would two 8x H100 boxes fit together in a 16 kW cabinet?"
    response = ask(offline_advisor, "and with 25 kW racks?", first)
    assert plan_args(response)["rack_power_kw"] == 25
    lead = first_sentence(response)  # what the re-run changed, then the verdict
    assert "25 kw instead of 16 kw" in lead.lower() and "**Fits on paper" in lead  # 20.4 kW in 25 kW: under the planning margin


def test_a_follow_up_with_more_servers_recomputes_zh(offline_advisor):
    first = "40台8卡H100要几个机柜，每柜20kW"
    response = ask(offline_advisor, "那80台呢", first)
    args = plan_args(response)
    assert args["servers"] == 80 and args["rack_power_kw"] == 20
    assert "需要 80 个 20 kW 机柜" in first_sentence(response)  # one 10.2 kW server per 20 kW rack


def test_a_rent_or_buy_question_stays_a_comparison(offline_advisor):
    response = ask(offline_advisor, "should we rent or buy four 8x H100 servers over three years?")
    names = [c.name for c in response.tool_calls]
    assert "compute_tco" in names and "plan_facility" not in names


def test_every_facility_sentence_exists_in_both_languages_with_the_same_blanks():
    import string

    from advisor.offline.tasks.facility.render import WORDING

    def pairs(node, path=""):
        if isinstance(node, dict) and set(node) == {"en", "zh"}:
            yield path, node
        elif isinstance(node, dict):
            for key, child in node.items():
                yield from pairs(child, f"{path}.{key}")

    def blanks(text):
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    texts = WORDING.data
    found = list(pairs({k: v for k, v in texts.items() if k != "asks"}))
    assert len(found) > 30
    for path, pair in found:
        assert pair["en"].strip() and pair["zh"].strip(), path
        assert blanks(pair["en"]) == blanks(pair["zh"]), path


def test_a_room_sized_budget_counts_the_servers_it_takes():
    result = plan(gpu="H200", capacity_kw=500)
    assert result.servers_in_capacity == int(500 // (10.2 * 1.1))


def test_a_budget_larger_than_any_rack_is_read_as_the_rooms_capacity(offline_advisor):
    response = ask(offline_advisor, "Our hall has 400 kW for IT. How many 8x H100 servers can it power?")
    args = plan_args(response)
    assert args["capacity_kw"] == 400 and "rack_power_kw" not in args
    assert first_sentence(response).startswith(f"**400 kW of IT capacity takes {int(400 // (10.2 * 1.1))} ×")
