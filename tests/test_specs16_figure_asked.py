"""#36/#37 (specsq16b): one catalog figure asked of a card leads with that figure and its date or source (a launch price,
the cooling), a figure the catalog keeps unverified or no source gives says so first with what is known instead (a
domestic part with no catalog row, a China colocation rate), and no 8-card machine price or rent-or-buy stands in for
it. Our own wording, both languages."""

from __future__ import annotations

import pytest

from advisor.nlu.spec_claim import comparison_claim, spec_fields
from knowledge.fact_gaps import fact_gaps
from knowledge.region_tariffs import region_tariffs
from tests.chinese_text import english_words
from tests.threads import calls, first_line, lead


@pytest.mark.parametrize(("message", "field"), [
    ("How much did the RTX 3090 cost at launch — what was its MSRP?", "launch_price"),
    ("RTX 3090 的首发价是多少？", "launch_price"),
    ("Does the A40 use active cooling or is it passive?", "cooling"),
    ("L4 是主动散热吗？", "cooling"),
])  # fmt: skip
def test_the_launch_price_and_the_cooling_are_figures_asked(message, field):
    assert field in spec_fields(message)


def test_no_comparison_is_stated_on_the_cooling():
    assert comparison_claim("the L40S has better cooling than the A40, right?", [(4, "l40s"), (40, "a40")]) is None


@pytest.mark.parametrize(("question", "starts", "said"), [
    ("What was the RTX 3090's launch price?", "$1,499", "launch price"),
    ("RTX 3090 的首发价是多少？", "$1,499", "首发价"),
])  # fmt: skip
def test_a_launch_price_leads_with_the_price_its_date_and_source_not_a_machine(offline_advisor, question, starts, said):
    response = offline_advisor.answer(question, [])
    first = first_line(response)
    assert first.lstrip("*").startswith(starts) and said in first and "2020-09" in first, first
    assert "8×" not in first and not calls(response, "estimate_server_price"), first
    if response.language == "zh":
        assert not english_words(first), first


@pytest.mark.parametrize(("question", "said"), [
    ("What's the H100's launch price?", "No launch price is recorded"),
    ("H100 的首发价是多少？", "没有 NVIDIA H100 SXM 的首发价记录"),
])  # fmt: skip
def test_a_later_price_is_not_passed_off_as_the_launch_price(offline_advisor, question, said):
    assert said in first_line(offline_advisor.answer(question, []))


@pytest.mark.parametrize(("question", "said"), [
    ("Does the L40S have passive or active cooling?", "Passive cooling"),
    ("A40 是被动散热还是主动散热？", "被动散热"),
])  # fmt: skip
def test_a_verified_cooling_leads(offline_advisor, question, said):
    assert first_line(offline_advisor.answer(question, [])).lstrip("*").startswith(said)


@pytest.mark.parametrize(("question", "said", "form"), [
    ("Is the L20 actively or passively cooled?", "Not verified", "PCIe dual-slot"),
    ("A10是被动散热还是主动散热？", "未经核实", "PCIe single-slot FHFL"),
])  # fmt: skip
def test_an_unverified_cooling_says_so_first_with_the_form_factor(offline_advisor, question, said, form):
    gap = fact_gaps().gap("cooling-a10-h100nvl-h200nvl-l20")
    assert gap.status == "unverified"
    response = offline_advisor.answer(question, [])
    first = lead(response)
    assert first.lstrip("*").startswith(said) and form in first, first
    if response.language == "zh":
        assert not english_words(first), first


@pytest.mark.parametrize(("question", "said", "known"), [
    ("How many TFLOPS does a Hygon K100 deliver?", "No sourced BF16 compute figure for the Hygon DCU", "Ascend 910B 376 TFLOPS"),
    ("海光K100的算力有多少？", "海光 DCU 没有有出处的BF16 算力数据", "Ascend 910B 稠密 BF16 376 TFLOPS"),
])  # fmt: skip
def test_a_domestic_part_without_figures_says_there_is_no_sourced_figure(offline_advisor, question, said, known):
    assert "hygon-dcu" in fact_gaps().gap("domestic-parts-specs").subjects
    response = offline_advisor.answer(question, [])
    assert first_line(response).lstrip("*").startswith(said), response.answer[:600]
    assert known in response.answer


@pytest.mark.parametrize(("question", "said", "fallback"), [
    ("What does colocation cost per kW a month in Shenzhen?", "No sourced colocation price for mainland China", "per kW-month at 7.2 CNY/USD"),
    ("上海的机房托管每千瓦每月大概多少钱？", "中国大陆没有有出处的托管价", "按 7.2 元/美元约合每千瓦每月"),
])  # fmt: skip
def test_a_china_colocation_rate_says_there_is_none_then_the_sourced_fallback(offline_advisor, question, said, fallback):
    assert region_tariffs().get("cn").colocation is None
    response = offline_advisor.answer(question, [])
    first = lead(response)
    assert first.lstrip("*").startswith(said) and fallback in first and "encoradvisors.com" in first, first
    assert not calls(response, "compute_tco"), first
