"""Every published measured peak in tests/data/calibration.yaml is estimated within ±15%."""

import pytest

from benchmarks.calibration import comparable, excluded, load_calibration, markdown_table, measured_gb, rows
from knowledge.catalog import load_catalog
from tools.memory.estimator import MemoryRequest, estimate_memory

catalog = load_catalog()
CALIBRATION = load_calibration()
TOLERANCE = 0.15


@pytest.mark.parametrize("row", CALIBRATION["rows"], ids=[r["case"] for r in CALIBRATION["rows"]])
def test_measured_peak_within_tolerance(row):
    estimate = comparable(estimate_memory(MemoryRequest(**row["request"]), catalog), row["metric"])
    measured = measured_gb(row)
    assert estimate == pytest.approx(measured, rel=TOLERANCE), f"{row['case']}: {estimate:.2f} vs {measured:.2f} GB"


def test_rows_carry_source_and_unit():
    for row in CALIBRATION["rows"]:
        assert row["source"] and row["measured"]["unit"] in ("GB", "GiB")
        assert row["metric"] in ("allocated", "allocated_all_gpus", "weights", "total")


def test_exclusions_give_a_reason():
    assert excluded()
    assert all(len(reason) > 40 for _, reason in excluded())


def test_table_has_every_case_with_its_error():
    table = rows(catalog)
    assert [case for case, *_ in table] == [row["case"] for row in CALIBRATION["rows"]]
    for _, measured, estimated, error in table:
        assert error == pytest.approx((estimated - measured) / measured * 100, abs=0.2)
    markdown = markdown_table(catalog)
    assert markdown.count("\n") == len(table) + 1 and "%" in markdown


def test_calibration_spans_inference_and_training():
    modes = {row["request"].get("mode", "inference") for row in CALIBRATION["rows"]}
    assert modes == {"inference", "training"}
    assert len(CALIBRATION["rows"]) >= 30
