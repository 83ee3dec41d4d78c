"""Expected versus measured collective bandwidth (tools/troubleshoot/expected.py), the figures read from a description,
and the context- and family-aware rules around them. Wording here is our own."""

from __future__ import annotations

import pytest

from advisor.deps import default_registry
from knowledge.catalog import load_catalog
from knowledge.link_expectations import load_link_expectations
from knowledge.serving import load_serving_data
from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
from tools.troubleshoot.expected import MeasuredCheckRequest, check_measured
from tools.troubleshoot.parsers import parse_symptoms
from tools.troubleshoot.rulebook import load_rulebook


def check(**request):
    return check_measured(MeasuredCheckRequest(**request), load_catalog(), load_serving_data(), load_link_expectations())


def ranked(text, **setup):
    return [f.rule_id for f in diagnose(TroubleshootRequest(text=text, setup=setup or None), load_rulebook()).findings]


# --- the check itself -------------------------------------------------------------------------------------------


def test_a_tenth_of_four_200g_nics_is_far_below_and_below_even_one_nic():
    result = check(measured_busbw_gbs=9, nodes=2, nics_per_node=4, nic_gbps=200)
    # 4 × 200 Gb/s = 100 GB/s a direction; a healthy fabric gives 80–90 % of it
    assert (result.expected_low_gbs, result.expected_high_gbs) == (80.0, 90.0)
    assert result.verdict == "far_below" and result.times_below == pytest.approx(85 / 9, abs=0.05)
    assert result.shape == "below_one_nic" and result.suspects[0] == "nccl-socket-fallback"
    assert result.formula == "4 × 200 Gb/s ÷ 8 × 0.8–0.9"


def test_a_figure_near_one_nic_of_eight_points_at_the_nic_selection():
    result = check(measured_busbw_gbs=43, nodes=4, nics_per_node=8, nic_gbps=400)
    assert (result.one_nic_low_gbs, result.one_nic_high_gbs) == (40.0, 45.0)
    assert result.shape == "one_nic" and result.suspects[0] == "nccl-one-nic"


def test_a_healthy_figure_is_called_normal_with_nothing_to_suspect():
    result = check(measured_busbw_gbs=350, nodes=2, nics_per_node=8, nic_gbps=400)
    assert result.verdict == "as_expected" and result.shape is None and result.suspects == []


def test_half_way_is_below_and_blames_idle_nics_or_gdr():
    result = check(measured_busbw_gbs=55, nodes=2, nics_per_node=4, nic_gbps=200)
    assert result.verdict == "below" and result.shape == "part_of_nics"
    assert result.suspects[0] == "nccl-gdr-off"


@pytest.mark.parametrize("nics", [1, 2, 4, 8])
def test_the_expected_range_grows_with_the_nics(nics):
    one = check(measured_busbw_gbs=1, nodes=2, nics_per_node=1, nic_gbps=400)
    many = check(measured_busbw_gbs=1, nodes=2, nics_per_node=nics, nic_gbps=400)
    assert many.expected_high_gbs == pytest.approx(nics * one.expected_high_gbs)


def test_inside_one_node_pcie_cards_are_judged_against_pcie_and_nvlink_cards_against_nvlink():
    pcie = check(measured_busbw_gbs=20, gpu="A100 PCIe", gpus_per_node=8)
    assert pcie.path == "pcie" and pcie.pcie_gen == 4 and pcie.verdict == "as_expected"
    nvlink = check(measured_busbw_gbs=120, gpu="H100 SXM", gpus_per_node=8)
    assert nvlink.path == "nvlink" and nvlink.raw_gbs == 450 and nvlink.verdict == "far_below"
    assert nvlink.suspects == ["nvlink-p2p-off"]


def test_a_multi_node_figure_without_the_nics_is_a_bilingual_request_for_them():
    outcome = default_registry().call("check_measured", {"measured_busbw_gbs": 8, "nodes": 2})
    assert not outcome.ok and outcome.error["code"] == "missing_nics"
    assert "NICs" in outcome.error["en"] and "网卡" in outcome.error["zh"]


def test_nonsense_input_is_refused_in_both_languages():
    outcome = default_registry().call("check_measured", {"measured_busbw_gbs": -3, "nodes": 2})
    assert not outcome.ok and outcome.error["en"] and outcome.error["zh"]


# --- figures read from what the user wrote ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "busbw", "nics", "rate"),
    [
        ("nccl-tests across 2 servers: busbw is just 7.5 GB/s, every box has 4 x 200Gb/s HCAs", 7.5, 4, 200),
        ("两台机器跑 all_reduce_perf，busbw 才 11 GB/s，每台有 8 张 400G 网卡", 11, 8, 400),
        ("# Avg bus bandwidth    : 31.2\nwe have 8×400G IB per node", 31.2, 8, 400),
        ("nccl 测试 busbw 只有 6 GB/s\n补充一下：每台 4 张 200G 的 RoCE 网卡", 6, 4, 200),
    ],
)
def test_the_measured_busbw_and_the_nics_are_read_in_both_languages(text, busbw, nics, rate):
    records = parse_symptoms(text)
    assert {"busbw_gbs": busbw} in [r.values for r in records if r.kind == "bandwidth"]
    assert {"nics_per_node": nics, "nic_gbps": rate} in [r.values for r in records if r.kind == "setting"]


def test_a_line_rate_in_bits_is_never_taken_for_a_measurement():
    assert not [r for r in parse_symptoms("the nodes talk over 2 x 400 Gb/s RoCE links") if r.kind == "bandwidth"]


@pytest.mark.parametrize("text", ["eight PCIe A100s and utilization sits at 100%", "四张卡没有 NVLink，利用率 100%"])
def test_pcie_only_nodes_are_read_as_such(text):
    assert {"interconnect": "pcie"} in [r.values for r in parse_symptoms(text) if r.kind == "setting"]


# --- context- and family-aware rules ---------------------------------------------------------------------------


def test_a_serving_engine_oom_gets_start_up_causes_not_training_ones():
    for text in ("SGLang dies with CUDA out of memory as the server boots", "sglang 一启动就爆显存"):
        causes = ranked(text)
        assert causes[0] == "serving-startup-oom", causes
        assert "oom-capacity" not in causes  # micro-batch, checkpointing and ZeRO are training levers
    assert ranked("CUDA out of memory while fine-tuning, batch 16", method="lora")[0] == "oom-capacity"


def test_retries_exhausted_is_explained_on_its_own():
    for text in ("ranks die with IBV_WC_RETRY_EXC_ERR after an hour", "日志里有 transport retry counter exceeded"):
        assert ranked(text)[0] == "rdma-retry-exceeded"


def test_one_node_rules_out_the_nics_and_pcie_rules_out_nvlink():
    single = ranked("all_reduce_perf busbw is just 15 GB/s on one box", nodes=1)
    assert single and not {"nccl-socket-fallback", "nccl-gdr-off", "nccl-one-nic"} & set(single)
    assert "nvlink-p2p-off" not in ranked("busbw only 9 GB/s between our PCIe cards, no NVLink", nodes=1)


def test_busy_gpus_on_pcie_point_at_the_link_first():
    assert ranked("util shows 100% on all GPUs but FSDP is crawling on our PCIe A100 box")[0] == "pcie-topology-slow"
    assert "util-busy-but-slow" in ranked("利用率 100%，但是训练很慢")


def test_a_checklist_answers_only_when_nothing_specific_matched():
    assert ranked("after a few thousand steps the loss turns into nan") == ["checklist-numerical"]
    assert ranked("程序跑了一会儿就不动了") == ["checklist-hang"]
    with_specific = ranked("training is slow and the dataloader is slow, num_workers=0")
    assert with_specific and not any(rule.startswith("checklist-") for rule in with_specific)
