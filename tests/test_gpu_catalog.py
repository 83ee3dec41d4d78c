"""The shipped GPU catalog: loads, covers every agreed id, resolves what users type, stays dense."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
import yaml

from knowledge.bilingual import AdvisorError
from knowledge.catalog import DATA_DIR, CatalogError, NameIndex, load_rows, normalize_name
from knowledge.gpus import GPU

GPU_IDS = (
    "b200 b300 gb200 gb300 gh200 h200-sxm h200-nvl h100-sxm h100-pcie h100-nvl h800-sxm h800-pcie h20 "
    "a100-80gb-sxm a100-40gb-sxm a100-80gb-pcie a800-80gb-sxm a800-40gb l40s l40 l20 l4 a10 a30 a40 t4 v100-32gb "
    "rtx-6000-ada rtx-pro-6000-blackwell rtx-a6000 rtx-5090 rtx-5080 rtx-4090 rtx-4090d rtx-4080-super "
    "rtx-4070-ti-super rtx-4060-ti-16gb rtx-3090 rtx-3060-12gb mi355x mi325x mi300x mi250x gaudi3 gaudi2 "
    "ascend-910b ascend-910c tpu-v5p tpu-v5e trainium2 apple-m4-max apple-m3-ultra apple-m2-ultra "
    "a10g rtx-4090-laptop rtx-4080-laptop rtx-4070-laptop rtx-4060-laptop rtx-3060-laptop jetson-agx-orin-64gb "
    "apple-m1-max apple-m1-ultra apple-m2-max apple-m3-pro apple-m3-max apple-m4-pro "
    "rtx-5090d rtx-5070-ti rtx-4080 rtx-4070-ti rtx-4070-super rtx-4070 rtx-3090-ti rtx-3080-12gb rtx-3080 "
    "radeon-ai-pro-r9700 apple-m1 apple-m1-pro apple-m4 apple-m5 apple-m5-pro apple-m5-max v100-16gb mlu370-x8 mtt-s4000"
).split()


@pytest.fixture(scope="module")
def rows() -> list[GPU]:
    # models.yaml is owned by another helper, so test the GPU side without load_catalog().
    return load_rows(DATA_DIR / "gpus.yaml", GPU)


@pytest.fixture(scope="module")
def index(rows) -> NameIndex[GPU]:
    return NameIndex(rows, "GPU", "GPU型号")


@pytest.fixture(scope="module")
def by_id(rows) -> dict[str, GPU]:
    return {row.id: row for row in rows}


def test_every_agreed_id_is_present_and_nothing_else(rows):
    assert len(rows) >= 61
    assert sorted(row.id for row in rows) == sorted(GPU_IDS)


def test_no_alias_points_at_two_rows(rows):
    owners: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        for key in (row.id, row.name, *row.aliases):
            owners[normalize_name(key)].add(row.id)
    clashes = {key: ids for key, ids in owners.items() if len(ids) > 1}
    assert clashes == {}


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("4090", "rtx-4090"),
        ("RTX4090", "rtx-4090"),
        ("4090D", "rtx-4090d"),
        ("RTX 4090 D", "rtx-4090d"),
        ("A100 80G", "a100-80gb-sxm"),
        ("A100-80GB", "a100-80gb-sxm"),
        ("a100 80gb", "a100-80gb-sxm"),
        ("Ａ100 80Ｇ", "a100-80gb-sxm"),
        ("A100", "a100-80gb-sxm"),
        ("A100 40G", "a100-40gb-sxm"),
        ("H100", "h100-sxm"),
        ("H100 PCIe", "h100-pcie"),
        ("昇腾910B", "ascend-910b"),
        ("910B", "ascend-910b"),
        ("昇腾910C", "ascend-910c"),
        ("MI300", "mi300x"),
        ("Gaudi3", "gaudi3"),
        ("M2 Ultra", "apple-m2-ultra"),
        ("GB200", "gb200"),
        ("4060 Ti 16GB", "rtx-4060-ti-16gb"),
    ],
)
def test_what_users_type_resolves(index, typed, expected):
    assert index.get(typed).id == expected


def test_unknown_name_raises_bilingual_error_with_h100_suggestions(index):
    with pytest.raises(AdvisorError) as caught:
        index.get("H10")
    error = caught.value
    assert error.code == "unknown_gpu"
    assert "H10" in error.en and "H10" in error.zh
    assert error.suggestions and all("H100" in name for name in error.suggestions)


def test_figures_are_dense_not_sparse(by_id):
    # Vendor pages print these with sparsity: 1,979 / 4,500 / 733 / 242 / 309.7.
    assert by_id["h100-sxm"].bf16_tflops == pytest.approx(989.5, rel=0.01)
    assert by_id["b200"].bf16_tflops == pytest.approx(2250, rel=0.01)
    assert by_id["l40s"].bf16_tflops == pytest.approx(362, rel=0.01)
    assert by_id["l4"].bf16_tflops == pytest.approx(121, rel=0.01)
    assert by_id["rtx-a6000"].bf16_tflops == pytest.approx(154.8, rel=0.01)


def test_fp8_never_exceeds_twice_bf16(rows):
    # A sparse FP8 figure next to a dense BF16 one would show up as a 4x ratio (2.05 allows rounding).
    for row in rows:
        if row.bf16_tflops and row.fp8_tflops:
            assert row.fp8_tflops <= 2.05 * row.bf16_tflops, row.id


def test_geforce_bf16_uses_fp32_accumulate_rate(rows):
    # GeForce tensor cores with FP32 accumulate run at twice the FP32 shader rate; the FP16-accumulate
    # or sparse figures would be 4x or 8x, which would overstate training speed.
    for row in rows:
        if row.segment == "consumer" and row.bf16_tflops and row.id != "rtx-5090d":  # 5090 D: AI rate capped, shaders not
            assert row.bf16_tflops / row.fp32_tflops == pytest.approx(2.0, rel=0.03), row.id


def test_apple_rows_are_inference_only_with_unified_memory(rows):
    apple = [row for row in rows if row.vendor == "Apple"]
    assert {row.id for row in apple} == {
        "apple-m4-max", "apple-m3-ultra", "apple-m2-ultra", "apple-m1-max", "apple-m1-ultra", "apple-m2-max",
        "apple-m3-pro", "apple-m3-max", "apple-m4-pro", "apple-m1", "apple-m1-pro", "apple-m4", "apple-m5", "apple-m5-pro",
        "apple-m5-max",
    }  # fmt: skip
    assert all(row.inference_only and row.segment == "apple" for row in apple)
    assert not any(row.inference_only for row in rows if row.vendor != "Apple")


def test_china_status_of_export_variants(by_id):
    for gpu_id in ("h20", "l20", "rtx-4090d", "rtx-5090d"):
        assert by_id[gpu_id].china == "china-variant", gpu_id
    for gpu_id in ("h800-sxm", "a800-80gb-sxm"):  # barred by the Oct-2023 rules: not buyable new
        assert by_id[gpu_id].china == "second-hand", gpu_id
    for gpu_id in ("h100-sxm", "b200", "a100-80gb-sxm", "l4", "a40"):
        assert by_id[gpu_id].china == "export-controlled", gpu_id
    assert by_id["ascend-910b"].china == "domestic"
    assert by_id["h200-sxm"].china == "licensed"  # approved customers only, since Dec-2025


def test_rows_carry_sources_and_dated_prices(rows):
    for row in rows:
        assert row.availability_en and row.availability_zh, row.id
        for price in (row.purchase_price, row.cloud_price):
            if price:
                assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", price.date), row.id
                assert price.source, row.id
    assert any(row.purchase_price and row.purchase_price.currency == "CNY" for row in rows)


def test_malformed_row_names_file_and_row(tmp_path):
    bad = tmp_path / "gpus.yaml"
    bad.write_text("- id: broken-gpu\n  name: Broken\n  vendor: NVIDIA\n  memory_gb: -1\n", encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        load_rows(bad, GPU)
    message = str(caught.value)
    assert str(bad) in message
    assert "row 1 (broken-gpu)" in message


def test_duplicate_ids_are_rejected(tmp_path, rows):
    row = rows[0].model_dump(mode="json")
    doubled = tmp_path / "gpus.yaml"
    doubled.write_text(yaml.safe_dump([row, row], allow_unicode=True), encoding="utf-8")
    with pytest.raises(CatalogError, match="duplicate ids"):
        load_rows(doubled, GPU)
