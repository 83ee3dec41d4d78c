"""facts17 (#37): the facts behind the advice. A shown price's date drives its age note through one threshold in data
(knowledge/price_age.yaml), in years once it is from an earlier card generation; a launch price the catalog lacks is the
dated estimate; a launch price read from a secondary report says so; a colocation rate asked for a region the data
sources is that rate, not a rent-or-buy; planning defaults stand on reference lines or are labelled assumptions that the
answers say in their details. Both languages; our own wording."""

from __future__ import annotations

import datetime as dt

import pytest

from advisor.offline.tasks.tco import price_dates
from knowledge.bilingual import Text
from knowledge.fact_gaps import REFERENCE_DIR, fact_gaps
from knowledge.price_age import price_age
from knowledge.servers import server_data
from knowledge.tco_defaults import load_tco_defaults, own_machine_defaults
from knowledge.traffic import traffic_data
from tests.threads import ask, calls, lead
from tools.cost import price_age as ages
from tools.troubleshoot.rulebook import load_rulebook

TODAY = dt.date(2026, 12, 7)
needs_reference = pytest.mark.skipif(not REFERENCE_DIR.is_dir(), reason="the shared reference folder is not beside the repository")


@pytest.fixture
def on_today(monkeypatch):
    """Ages are read against a fixed day, so '6 years old' does not drift with the clock."""
    monkeypatch.setattr(price_dates, "today", lambda: TODAY)


def _lines(cited) -> None:
    for line in cited:
        text = (REFERENCE_DIR / line.file).read_text(encoding="utf-8").splitlines()
        assert line.says in text[line.line - 1], (line.file, line.line)


# --- the age of a price: one threshold in data, said in months, then in years -----------------------------------------

@needs_reference
def test_the_age_thresholds_are_data_standing_on_reference_lines():
    data = price_age()
    _lines(data.stale_after_months.reference)
    _lines(data.years_after_months.reference)
    assert data.years_after_months.assumption  # no line gives the two-year cut-off: it is labelled with its reasoning
    assert ages.STALE_AFTER_MONTHS == data.stale_after_months.value and ages.YEARS_AFTER_MONTHS == data.years_after_months.value


def test_an_old_price_is_aged_in_years_and_a_recent_one_in_months():
    what = Text(en="card", zh="card")
    old, recent = ages.stale_among([(what, "2020-09"), (Text(en="rent", zh="rent"), "2026-01"), (what, "2026-10")], TODAY)
    assert old.age_years == 6 and recent.age_years is None and round(recent.age_months) == 11  # the October price is not stale


@pytest.mark.parametrize(("question", "said"), [
    ("What was the RTX 3090's launch price?", "6 years old"),
    ("RTX 3090 首发价是多少？", "已 6 年"),
])  # fmt: skip
def test_a_2020_launch_price_says_how_old_it_is(offline_advisor, on_today, question, said):
    first = lead(ask(offline_advisor, question))
    assert "1,499" in first and said in first, first


@pytest.mark.parametrize(("question", "said"), [
    ("Specs and price of the RTX A6000?", "6 years old"),
    ("RTX A6000 的参数和价格？", "已 6 年"),
])  # fmt: skip
def test_a_spec_sheet_showing_a_2020_price_ages_it_in_years(offline_advisor, on_today, question, said):
    answer = ask(offline_advisor, question).answer
    assert "2020-10" in answer and said in answer, answer[-1200:]


# --- launch prices: the dated estimate where none is published, a secondary page said to be one ----------------------

@pytest.mark.parametrize(("question", "words"), [
    ("What was the L40S launch price?", ("No launch price is published", "estimate", "2026-05-04")),
    ("L4 首发价多少？", ("没有公开的首发价", "估算", "2026-05-04")),
])  # fmt: skip
def test_a_launch_price_no_one_published_is_the_dated_estimate(offline_advisor, on_today, question, words):
    response = ask(offline_advisor, question)
    first = lead(response)
    assert all(word in first for word in words), first
    assert calls(response, "estimate_server_price")


@pytest.mark.parametrize(("question", "said"), [
    ("What was the RTX 4090's launch price?", "secondary report"),
    ("RTX 4090 首发价是多少？", "二手报道"),
])  # fmt: skip
def test_a_launch_price_from_a_secondary_report_says_so(offline_advisor, on_today, question, said):
    first = lead(ask(offline_advisor, question))
    assert "1,599" in first and said in first, first


def test_the_secondary_launch_pages_are_recorded():
    gap = fact_gaps().gap("launch-price-primary-4090-4060ti")
    assert gap.status == "secondary" and {"rtx-4090", "rtx-4060-ti-16gb"} == set(gap.gpus)
    assert fact_gaps().secondary_price("rtx-4090") is gap and fact_gaps().secondary_price("rtx-3090") is None


# --- colocation: a region with a sourced rate gets that rate ---------------------------------------------------------

@pytest.mark.parametrize(("question", "words"), [
    ("How much does colocation cost per kW a month in Virginia?", ("$184", "cbre.com", "months old")),
    ("弗吉尼亚的机房托管费每千瓦每月多少？", ("$184", "美国", "个月")),
])  # fmt: skip
def test_a_colocation_rate_for_a_sourced_region_is_that_rate(offline_advisor, on_today, question, words):
    response = ask(offline_advisor, question)
    first = lead(response)
    assert all(word in first for word in words), first
    assert calls(response, "plan_facility") and not calls(response, "compute_tco")  # no rent-or-buy of a default machine


@pytest.mark.parametrize(("question", "said"), [
    ("What does colocation cost per kW each month in Shanghai?", "No sourced colocation price"),
    ("上海的机房托管费每千瓦每月多少？", "没有有出处的托管价"),
])  # fmt: skip
def test_a_colocation_rate_for_a_gap_region_still_says_the_gap(offline_advisor, question, said):
    assert said in lead(ask(offline_advisor, question))


def test_the_facility_plan_prices_colocation_at_the_regions_own_rate():
    from knowledge.catalog import load_catalog
    from knowledge.facility import shipped_facility_book
    from tools.facility import FacilityPlanRequest, plan_facility

    catalog, book = load_catalog(), shipped_facility_book()
    us = plan_facility(FacilityPlanRequest(gpu="H100", servers=1, region="us"), catalog, book).colocation
    uk = plan_facility(FacilityPlanRequest(gpu="H100", servers=1, region="uk"), catalog, book).colocation
    assert round(us.per_kw_month, 2) == 184.06 and round(uk.per_kw_month, 2) == 217.30


# --- planning defaults: a reference line, or an assumption said in the details ---------------------------------------

@needs_reference
def test_the_power_defaults_stand_on_reference_lines():
    defaults = load_tco_defaults()
    for key in ("server_power_per_gpu_power", "load_factor_pct", "utilisation_pct"):
        assert defaults[key].reference, key
        _lines(defaults[key].reference)
    assert defaults["server_power_per_gpu_power"].value == 1.8 and defaults["load_factor_pct"].value == 75


def test_each_assumed_default_is_labelled_in_its_own_data():
    gaps = {g.id: g for g in fact_gaps().gaps if g.status == "assumption"}
    assert {"desktop-utilisation", "oom-fragmentation-share", "tokens-per-request", "pcie-host-price"} <= set(gaps)
    assert own_machine_defaults().utilisation_pct.assumption is not None
    assert traffic_data()["tokens_per_request"]["assumption"]
    pcie = next(c for c in server_data().classes if c.id == "pcie-8gpu")
    hgx = next(c for c in server_data().classes if c.id == "hgx-8gpu")
    assert pcie.assumption is not None and pcie.date == hgx.date  # dated as the bill it borrows
    oom = next(rule for rule in load_rulebook().rules if rule.id == "oom-fragmentation")
    assert any(reading.assumption for reading in oom.figures)


@pytest.mark.parametrize(("question", "said"), [
    ("My home lab box has a single RTX 3090. What is the cost per million tokens of Mistral 7B on it?", "busy 70% of its hours, an assumption"),
    ("课题组工作站里插着一张 RTX 6000 Ada，用它跑 Qwen2.5-14B 推理，每百万 token 成本多少？", "70% 的时间在运行计算，这是假设值"),
])  # fmt: skip
def test_an_own_desktop_says_its_busy_share_is_an_assumption(offline_advisor, question, said):
    answer = ask(offline_advisor, question).answer
    assert said in answer, answer[-1500:]


OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of "
       "which 10.75 MiB is free. Including non-PyTorch memory, this process has 79.13 GiB memory in use. Of the allocated memory "
       "76.50 GiB is allocated by PyTorch, and 1.20 GiB is reserved by PyTorch but unallocated.")


@pytest.mark.parametrize(("question", "said"), [
    (f"Training crashed with this, is it fragmentation? {OOM}", "our own cut-off"),
    (f"训练报了这个错，是显存碎片吗？{OOM}", "我们自己设的界限"),
])  # fmt: skip
def test_a_fragmentation_call_made_on_our_cut_off_says_it_is_ours(offline_advisor, question, said):
    answer = ask(offline_advisor, question).answer
    assert said in answer, answer[-1500:]


def test_a_proposal_price_table_ages_an_old_price():
    from advisor.proposal.build import _age

    aged = _age("2020-09")
    assert aged is not None and "years old" in aged.en and "年" in aged.zh
    assert _age(dt.date.today().isoformat()) is None  # a price of today carries no age
