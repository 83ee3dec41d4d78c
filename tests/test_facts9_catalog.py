"""Issue #37 items 1-2: domestic accelerators only with dated, openable sources (unknown figures said, never guessed),
usable by the China-buyer tools; NVFP4/MXFP4 defined as data with primary sources; every row's source is dated."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import CatalogError, load_catalog
from knowledge.equivalents import equivalents
from knowledge.export_rules import load_export_rules
from knowledge.gpus import GPU
from knowledge.number_formats import number_formats
from knowledge.serving import load_serving_data
from tools.capability import CapabilityRequest, check_capability
from tools.equivalents import EquivalentRequest, find_equivalents
from tools.precision import kv_format, weight_format

# Rows whose `source` names its pages without a date and that have no `spec_sources` yet: empty since facts11 gave the
# H800 and the Ascend 910B/910C dated (secondary) pages; knowledge/gpus.py now refuses an undated row on load.
UNDATED_BEFORE_FACTS9 = frozenset()


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _dated(gpu: GPU) -> bool:
    return bool(gpu.spec_sources) or bool(re.search(r"(19|20)\d\d", gpu.source))


def test_every_row_states_bandwidth_rates_power_china_rule_and_a_dated_source(catalog):
    for gpu in catalog.gpus:
        assert gpu.bandwidth_gbs > 0 and (gpu.tensor16_tflops or gpu.fp32_tflops), gpu.id
        assert gpu.china_rule and gpu.china_rule.date and len(gpu.china_rule.source) > 10, gpu.id
        # power: a figure, or "not published" said by the row (Apple and TPUs publish none; see test_catalog_facts)
        assert gpu.tdp_w or "tdp_w" in gpu.unknown or gpu.vendor in ("Apple", "Google") or gpu.id == "ascend-910c", gpu.id
    undated = {gpu.id for gpu in catalog.gpus if not _dated(gpu)}
    assert undated <= UNDATED_BEFORE_FACTS9  # a new row must carry a dated source


def test_rows_with_unknown_figures_cite_dated_openable_pages(catalog):
    for gpu in catalog.gpus:
        if gpu.unknown:
            assert gpu.spec_sources, gpu.id
            assert all(s.url.startswith("https://") and re.fullmatch(r"\d{4}(-\d{2}){0,2}", s.date) for s in gpu.spec_sources), gpu.id
            assert all(getattr(gpu, name) is None for name in gpu.unknown), gpu.id


def test_a_row_cannot_claim_a_figure_it_calls_unknown():
    row = load_catalog().gpu("mtt-s4000").model_dump()
    row["tdp_w"] = 300  # a guessed power next to "tdp_w is unknown"
    with pytest.raises(ValueError, match="listed as unknown"):
        GPU.model_validate({**row, "china": None, "china_rule": None})
    with pytest.raises(ValueError, match="needs spec_sources"):
        GPU.model_validate({**row, "tdp_w": None, "spec_sources": [], "china": None, "china_rule": None})


def test_moore_threads_s4000_is_a_domestic_row_with_its_announced_figures(catalog):
    for typed in ("S4000", "MTT S4000", "摩尔线程S4000"):
        assert catalog.gpu(typed).id == "mtt-s4000"
    gpu = catalog.gpu("mtt-s4000")
    assert (gpu.memory_gb, gpu.bandwidth_gbs, gpu.bf16_tflops, gpu.fp32_tflops) == (48, 768, 100, 25)
    assert gpu.tdp_w is None and "tdp_w" in gpu.unknown  # not announced: left empty and said so
    assert gpu.fp8_tflops is None and gpu.fp4_tflops is None
    assert gpu.china == "domestic" and gpu.china_rule.rule == "domestic"  # by the rule's vendor list, not by hand
    assert "Moore Threads" in load_export_rules().domestic_vendors and equivalents().is_domestic("Moore Threads")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_unknown_power_is_said_not_invented(catalog, language):
    power = check_capability(CapabilityRequest(gpu="S4000", capability="tdp"), catalog)
    assert power.value is None
    mig = check_capability(CapabilityRequest(gpu="S4000", capability="mig"), catalog)
    assert mig.verdict == "unknown"  # the row says no source gives it: not a "no"


def test_china_buyer_equivalents_can_offer_the_domestic_row(catalog):
    result = find_equivalents(EquivalentRequest(gpu="L40S", vendors=["Moore Threads"]), catalog)
    assert [p.gpu.id for p in result.parts][:1] == ["mtt-s4000"]
    assert result.parts[0].share.bandwidth == pytest.approx(768 / 864, abs=0.01)
    domestic = [group for group in equivalents().vendor_groups if group.id == "domestic"][0].vendors
    assert "Moore Threads" in domestic
    found = find_equivalents(EquivalentRequest(gpu="L40S", vendors=list(domestic), count=3), catalog)
    assert "mtt-s4000" in {p.gpu.id for p in found.parts}


def test_domestic_only_recommendations_include_the_row(catalog):
    from tools.recommend import RecommendRequest, recommend_gpus

    ids = [g.id for g in catalog.gpus if g.china == "domestic"]
    assert "mtt-s4000" in ids
    result = recommend_gpus(RecommendRequest(model="Qwen2.5-7B", gpus=ids, region="cn"), catalog, load_serving_data())
    s4000 = [o for o in result.options if o.gpu_id == "mtt-s4000"]
    assert s4000 and all(o.power_w is None for o in s4000)  # no power figure is made up for it


def test_block_formats_are_defined_with_primary_sources():
    table = {f.id: f for f in number_formats().formats}
    nvfp4, mxfp4 = table["nvfp4"], table["mxfp4"]
    assert (nvfp4.element.format, nvfp4.block_size, nvfp4.scale.format, nvfp4.bits_per_value) == ("E2M1", 16, "E4M3", 4.5)
    assert (mxfp4.element.format, mxfp4.block_size, mxfp4.scale.format, mxfp4.bits_per_value) == ("E2M1", 32, "E8M0", 4.25)
    assert nvfp4.source.url.startswith("https://developer.nvidia.com/") and nvfp4.source.date == "2025-06-24"
    assert mxfp4.source.url.startswith("https://www.opencompute.org/") and mxfp4.source.date == "2023-09"
    # the memory tool's bytes per parameter and per cached element come from these definitions
    assert weight_format("nvfp4").bytes == nvfp4.bits_per_value / 8 and kv_format("mxfp4").bytes == mxfp4.bits_per_value / 8


def test_a30_cites_a_dated_page_a_reader_can_open(catalog):
    a30 = catalog.gpu("A30")
    assert any("tweaktown.com" in s.url and s.date == "2021-04-12" for s in a30.spec_sources)
    assert "shared/reference" in a30.source  # says which figures rest on NVIDIA's page alone


def test_a_malformed_unknown_entry_is_refused(tmp_path):
    from knowledge.catalog import DATA_DIR, load_rows

    text = (DATA_DIR / "gpus.yaml").read_text(encoding="utf-8").replace("unknown: [tdp_w, sparsity_2_4, mig_instances]", "unknown: [memory_gb]")
    bad = tmp_path / "gpus.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError, match="mtt-s4000"):
        load_rows(bad, GPU)


def test_the_domestic_side_is_the_export_rules_list():
    group = next(g for g in equivalents().vendor_groups if g.id == "domestic")
    assert set(group.vendors) == set(load_export_rules().domestic_vendors)  # "国产" searches every maker the rules call domestic


@pytest.mark.parametrize(
    ("message", "first_words"),
    [("How does the Moore Threads S4000 compare with the Ascend 910B?", "Huawei Ascend 910B"), ("摩尔线程的S4000和昇腾910B比怎么样", "Huawei Ascend 910B")],
)
def test_a_maker_named_with_its_catalogued_part_gets_the_side_by_side(offline_advisor, message, first_words):
    summary = offline_advisor.answer(message, []).summary
    assert "768" in summary and "1,600" in summary  # both rows' bandwidth in the compare table, not a card on the maker
