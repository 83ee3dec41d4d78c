"""China status is derived from ECCN 3A090 (TPP and performance density) and dated events, never typed by hand."""

from __future__ import annotations

from datetime import date

import pytest
import yaml

from knowledge.catalog import DATA_DIR, load_rows
from knowledge.export_rules import china_rule, load_export_rules, threshold_rule
from knowledge.gpus import GPU


@pytest.fixture(scope="module")
def by_id() -> dict[str, GPU]:
    return {row.id: row for row in load_rows(DATA_DIR / "gpus.yaml", GPU)}


def rule_on(gpu: GPU, as_of: date | None = None):
    return china_rule(gpu.id, gpu.vendor, gpu.segment == "datacenter", gpu.precision_tflops, gpu.die_area_mm2,
                      load_export_rules(), as_of)  # fmt: skip


def test_no_row_types_its_china_status_by_hand():
    rows = yaml.safe_load((DATA_DIR / "gpus.yaml").read_text(encoding="utf-8"))
    assert [row["id"] for row in rows if "china" in row or "china_rule" in row] == []


@pytest.mark.parametrize(
    ("gpu_id", "rule", "status"),
    [
        ("a40", "b", "export-controlled"),  # TPP 2,395 with density 3.81: 3A090.b
        ("l4", "a2", "export-controlled"),  # TPP 1,940 on a 294.5 mm² die: density 6.6
        ("a10", "below", "available"),  # density 3.18 just under 3.2
        ("rtx-a6000", "consumer", "available"),  # a workstation card is outside the density tests
        ("rtx-4090", "a1", "export-controlled"),  # FP16-accumulate rate × 16 > 4,800
        ("v100-32gb", "below", "available"),
        ("ascend-910b", "domestic", "domestic"),
    ],
)
def test_status_follows_the_thresholds(by_id, gpu_id, rule, status):
    decided = by_id[gpu_id].china_rule
    assert (decided.rule, decided.status, by_id[gpu_id].china) == (rule, status, status)


def test_china_editions_really_sit_below_the_thresholds(by_id):
    # The events only relabel them; the arithmetic must agree that they are uncontrolled parts.
    rules = load_export_rules()
    for gpu_id in ("rtx-4090d", "l20", "h20"):
        gpu = by_id[gpu_id]
        derived = threshold_rule(gpu.china_rule.tpp, gpu.china_rule.performance_density, gpu.segment == "datacenter", rules.thresholds)
        assert derived in ("below", "consumer"), gpu_id
    assert by_id["rtx-4090d"].china_rule.tpp < 4800 < by_id["rtx-4090"].china_rule.tpp


def test_h20_status_changes_with_the_dated_events(by_id):
    h20 = by_id["h20"]
    assert rule_on(h20, date(2024, 6, 1)).status == "china-variant"
    in_may_2025 = rule_on(h20, date(2025, 5, 1))
    assert (in_may_2025.status, in_may_2025.rule, str(in_may_2025.date)) == ("export-controlled", "h20-licence-2025-04", "2025-04-14")
    assert rule_on(h20).status == "china-variant" and "15%" in rule_on(h20).en and "15%" in rule_on(h20).zh


def test_a800_h800_are_second_hand_and_h200_needs_a_licence(by_id):
    assert by_id["h800-sxm"].china == by_id["a800-80gb-sxm"].china == "second-hand"
    assert rule_on(by_id["h200-sxm"], date(2025, 1, 1)).status == "export-controlled"
    assert by_id["h200-sxm"].china == "licensed"


def test_rule_text_names_the_figures_in_both_languages(by_id):
    l4 = by_id["l4"].china_rule
    assert "3A090.a.2" in l4.en and "3A090.a.2" in l4.zh
    assert "1,940" in l4.en and "6.59" in l4.zh
    assert l4.source.startswith("US Federal Register 88 FR 73458") and "federalregister.gov" in l4.source


def test_no_availability_text_suggests_the_h800(by_id):
    for gpu in by_id.values():
        if gpu.id != "h800-sxm":
            assert "H800" not in gpu.availability_en + gpu.availability_zh, gpu.id


@pytest.mark.parametrize("language", ["en", "zh"])
def test_china_recommendation_says_which_rule_leaves_each_card_out(language):
    from knowledge.catalog import load_catalog
    from knowledge.serving import load_serving_data
    from tools.recommend.core import recommend_gpus
    from tools.recommend.schema import RecommendRequest

    result = recommend_gpus(RecommendRequest(model="Llama-3.1-70B", region="cn"), load_catalog(), load_serving_data())
    lines = [t.pick(language) for t in result.excluded]
    # only the barred parts that would otherwise have taken a tier are named (current, standard parts), each under the
    # rule that leaves it out: an ECCN paragraph or the licence policy with its date
    assert lines and all("3A090" in line or "2025-12-08" in line for line in lines), lines
    assert any("RTX PRO 6000" in line and "3A090.a.1" in line for line in lines)
    assert not any(old in line for line in lines for old in ("A40", "H800", "V100")), lines  # superseded parts lead no tier


def test_china_status_tool_reports_the_rule_on_a_date_and_the_history():
    from knowledge.catalog import load_catalog
    from tools.export_control import ChinaStatusRequest, china_status

    report = china_status(ChinaStatusRequest(gpu="H20", as_of=date(2025, 6, 1)), load_catalog(), load_export_rules())
    assert (report.gpu_id, report.rule.status) == ("h20", "export-controlled")
    assert [r.status for r in report.history] == ["available", "china-variant", "export-controlled"]  # below the thresholds, then launched as a China edition
    latest = china_status(ChinaStatusRequest(gpu="H20"), load_catalog(), load_export_rules())
    assert latest.rule.status == "china-variant" and latest.history[-1].rule == "h20-licences-granted-2025-08"
