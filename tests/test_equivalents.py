"""Another vendor's part in place of a named one: the closest parts with their figures as shares, a named substitute
judged for the job, where it can be bought, and the software half of a move between CUDA and a domestic part."""

from __future__ import annotations

import pytest

from advisor.nlu.ask import vendors_named
from advisor.nlu.cues import says
from knowledge.catalog import load_catalog
from knowledge.equivalents import equivalents
from tools.equivalents import EquivalentRequest, find_equivalents

CATALOG = load_catalog()


def test_the_closest_part_is_found_among_the_vendors_asked_and_measured_against_the_named_one():
    result = find_equivalents(EquivalentRequest(gpu="H100", vendors=["Huawei"]), CATALOG)
    assert result.searched and result.gpu.id == "h100-sxm"
    assert [part.gpu.vendor for part in result.parts] == ["Huawei", "Huawei"]
    best = result.parts[0]
    assert best.gpu.id == "ascend-910c"  # 752 TFLOPS and 3.2 TB/s sit nearer the H100 than the 910B's 376 and 1.6
    assert best.share.bf16 == pytest.approx(752 / 989.5, abs=0.01)
    assert best.distance < result.parts[1].distance


def test_a_named_substitute_is_set_against_the_part_in_place_without_searching():
    result = find_equivalents(EquivalentRequest(gpu="A100 80GB SXM", candidates=["910B"]), CATALOG)
    assert not result.searched
    (part,) = result.parts
    assert part.gpu.id == "ascend-910b"
    assert part.share.bf16 == pytest.approx(376 / 312, abs=0.01) and part.share.memory == pytest.approx(0.8)


def test_no_vendor_named_searches_every_other_vendor_and_one_row_per_family():
    result = find_equivalents(EquivalentRequest(gpu="910B", count=3), CATALOG)
    assert all(part.gpu.vendor != "Huawei" for part in result.parts)
    assert len({part.gpu.id.split("-")[0] for part in result.parts}) == len(result.parts)


@pytest.mark.parametrize(
    ("message", "vendors"),
    [
        ("what would AMD offer that stands in for an H200?", ("AMD",)),
        ("有没有国产的卡能跟A100对标", ("Huawei", "Cambricon", "Moore Threads")),
        ("昇腾910B放在英伟达那边算哪一档", ("Huawei", "NVIDIA")),
        ("how much memory does the L40S have", ()),
    ],
)
def test_the_side_asked_for_is_read_in_both_languages(message, vendors):
    assert vendors_named(message) == vendors


@pytest.mark.parametrize(
    ("message", "asks"),
    [
        ("is there an Intel counterpart to the H100?", True),
        ("华为哪款芯片能顶替H20", True),
        ("寒武纪的卡能平替英伟达吗", True),
        ("how fast is Llama 70B on two H100s", False),
        ("910B的显存多大", False),
    ],
)
def test_a_stand_in_is_asked_only_when_the_words_say_so(message, asks):
    assert says("asks_equivalent", message) is asks


def test_the_side_label_names_a_group_when_one_holds_exactly_those_vendors():
    table = equivalents()
    assert table.side_label(["Huawei", "Cambricon", "Moore Threads"]).zh == "国产"
    assert table.side_label(["AMD"]).en == "AMD"


@pytest.mark.parametrize(
    ("question", "lead_words", "candidate"),
    [
        ("Is there anything from Huawei that matches an H100?", ["closest Huawei part", "H100"], "910C"),
        ("有没有国产芯片能和A100对标的？", ["国产", "A100", "最接近"], "910B"),
    ],
)
def test_an_equivalence_question_names_the_part_with_its_gap_before_any_spec_sheet(offline_advisor, question, lead_words, candidate):
    response = offline_advisor.answer(question, [])
    first = response.summary.split("\n\n")[0]
    assert all(word in first for word in lead_words) and candidate in first and "%" in first
    assert [call.name for call in response.tool_calls] == ["find_equivalents"]
    assert "|" in response.answer and "TFLOPS" in response.answer


def test_a_buyer_outside_china_is_told_ascend_is_a_compliance_question(offline_advisor):
    response = offline_advisor.answer("Our firm is in Texas: what Huawei part would be the counterpart of the A100?", [])
    assert "General Prohibition 10" in response.answer and "2025" in response.answer
    assert any("jdsupra" in url for source in response.sources for url in source.urls)


def test_a_buyer_in_china_gets_each_part_s_status_with_its_rule(offline_advisor):
    response = offline_advisor.answer("昇腾910B对应英伟达的哪一款？", [])
    assert response.summary.startswith("英伟达中与 Huawei Ascend 910B 最接近的是")
    assert "在中国大陆采购" in response.answer and "国产" in response.answer


@pytest.mark.parametrize(
    ("question", "verdict", "software"),
    [
        ("If we move our A100 training jobs onto Ascend 910B, does that work, and what does porting the code take?",
         "Yes on paper, for training", "torch_npu"),
        ("拿910B来取代A100做训练行不行？软件迁移的代价有多大？", "纸面上可以（训练）", "torch_npu"),
    ],
)
def test_a_substitution_gets_a_verdict_for_the_job_and_the_software_half_in_one_answer(offline_advisor, question, verdict, software):
    response = offline_advisor.answer(question, [])
    assert response.summary.startswith(verdict)
    assert software in response.answer and ("CANN" in response.answer)
    assert "**1.**" not in response.answer  # both halves in one answer, not split into a spec part and a price part


def test_a_same_vendor_upgrade_is_no_equivalence_question(offline_advisor):
    response = offline_advisor.answer("we want to replace our A100 servers with H200s, how many racks of power?", [])
    assert "find_equivalents" not in [call.name for call in response.tool_calls]
