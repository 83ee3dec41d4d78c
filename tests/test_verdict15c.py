"""A rack plan is judged against a sourced planning margin, not only the budget: a server that fits a stated rack with
little to spare fits on paper, and the answer says the headroom and what to plan (knowledge/facility.yaml
planning.rack_headroom_pct)."""

from __future__ import annotations

from knowledge.catalog import load_catalog
from knowledge.facility import shipped_facility_book, shipped_facility_data
from tools.facility import FacilityPlanRequest, plan_facility
from tests.threads import ask

MARGIN = shipped_facility_data().planning.rack_headroom_pct


def _plan(**kwargs):
    return plan_facility(FacilityPlanRequest(**kwargs), load_catalog(), shipped_facility_book())


def test_margin_is_sourced_data():
    assert 0 < MARGIN.value < 50 and MARGIN.source.url.startswith("https://") and MARGIN.basis.en and MARGIN.basis.zh


def test_a_stated_rack_loaded_past_the_margin_is_tight():
    result = _plan(gpu="B200", servers=1, rack_power_kw=15)  # 14.3 kW in 15 kW: under 5% to spare
    assert result.fits and result.tight and result.headroom_pct < MARGIN.value
    assert result.planned_rack_kw >= result.rack_load_kw / (1 - MARGIN.value / 100) - 1e-6
    assert any(f.key == "rack_headroom_pct" for f in result.figures)


def test_room_to_spare_or_no_stated_rack_is_not_tight():
    assert not _plan(gpu="H100", servers=2, rack_power_kw=40).tight
    assert not _plan(gpu="H100", servers=1).tight  # the default rack is ours, not the user's budget


def test_tight_rack_answer_en(offline_advisor):
    answer = ask(offline_advisor, "Our colo cabinet is rated 23 kW. Can two DGX H100 go in it together?").answer
    first = answer.split("\n\n")[0]
    assert "on paper" in first and "headroom" in first and "Yes, it fits" not in first


def test_tight_rack_answer_zh(offline_advisor):
    answer = ask(offline_advisor, "我们的机柜功率是16千瓦，能装一台DGX B200吗？").answer
    first = answer.split("\n\n")[0]
    assert "纸面上" in first and "余量只有" in first
