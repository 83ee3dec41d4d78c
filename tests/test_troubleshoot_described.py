"""Diagnoses from a description alone: a silent hang, a hardware slowdown written in a sentence, a cause the user
already suspects, a measured MFU to judge, and a transport line pasted later in a thread.

Wording here is our own (not from the issue, the briefs or either understanding split)."""

from __future__ import annotations

import pytest

from knowledge.catalog import CatalogError
from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
from tools.troubleshoot.rulebook import Rule, load_rulebook
from tools.troubleshoot.stated import StatedSetup


def ranked(text: str, **setup) -> list[str]:
    request = TroubleshootRequest(text=text, setup=StatedSetup(**setup) if setup else None)
    return [finding.rule_id for finding in diagnose(request, load_rulebook()).findings]


def top(text: str, **setup):
    return diagnose(TroubleshootRequest(text=text, setup=StatedSetup(**setup) if setup else None), load_rulebook()).findings[0]


# --- a hang with no error: its own toolkit, not "communication limits throughput" ---

SILENT_HANGS = [
    "three nodes, the loss stopped printing an hour ago, nvidia-smi shows every gpu at 100% util, nothing in the logs",
    "三台机器一起训练，已经一个小时没有进展了，每张卡利用率都是100%，日志里什么错误都没有",
]


@pytest.mark.parametrize("text", SILENT_HANGS)
def test_a_silent_hang_leads_with_the_hang_and_its_toolkit(text):
    finding = top(text, nodes=3)
    assert finding.rule_id == "hang-silent"
    commands = " ".join(action.command or "" for action in finding.actions)
    assert "py-spy dump" in commands and "TORCH_NCCL_ASYNC_ERROR_HANDLING=1" in commands
    assert "TORCH_NCCL_DUMP_ON_TIMEOUT" in commands and "TORCH_DISTRIBUTED_DEBUG=DETAIL" in commands


@pytest.mark.parametrize("text", SILENT_HANGS)
def test_the_busy_reading_of_a_hang_does_not_rank_bandwidth_causes(text):
    # 100% util during a hang is NCCL spinning: the busy-but-slow causes (slow links, PCIe) are not ranked
    causes = ranked(text, nodes=3)
    assert not {"util-communication", "pcie-topology-slow", "util-busy-but-slow"} & set(causes)


def test_the_reading_of_a_hang_says_the_util_is_spinning_not_work():
    diagnosis = diagnose(TroubleshootRequest(text=SILENT_HANGS[1]), load_rulebook())
    assert any("空转" in reading.zh and "spinning" in reading.en for reading in diagnosis.readings)


def test_a_hang_that_printed_a_watchdog_timeout_is_not_called_silent():
    assert "hang-silent" not in ranked("our 2-node run froze and then the nccl watchdog timed out after ten minutes", nodes=2)
    assert "hang-silent" not in ranked("两台机器训练卡住，最后报了 NCCL 超时", nodes=2)


@pytest.mark.parametrize("text", [
    "the job hangs at the end of epoch one on 4 nodes; rank 5 got a shorter shard of the data",
    "4台机器训练到第一个epoch末尾卡住了，rank 5 的数据分片比较短",
])  # fmt: skip
def test_uneven_data_between_ranks_is_the_lead_cause_of_the_hang(text):
    finding = top(text, nodes=4)
    assert finding.rule_id == "hang-rank-diverged"
    assert any("drop_last" in (action.command or "") for action in finding.actions)


# --- HW Slowdown written in a sentence ---


@pytest.mark.parametrize("text", [
    "clocks event reasons say HW Slowdown : Active, SW Power Cap : Not Active, SW Thermal Slowdown : Not Active; steps got 25% slower",
    "Clocks Event Reasons 里 HW Slowdown 显示为 Active，SW Power Cap 和 SW Thermal Slowdown 都是 Not Active，速度比上周慢",
])  # fmt: skip
def test_hw_slowdown_in_a_sentence_is_a_hardware_brake(text):
    finding = top(text)
    assert finding.rule_id == "thermal-hw-slowdown-other"
    commands = " ".join(action.command or "" for action in finding.actions)
    assert "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER" in commands and "ipmitool sel list" in commands
    assert "Power Brake" in finding.causes[0].en and "功率刹车" in finding.causes[0].zh


def test_hw_slowdown_not_active_is_no_evidence_of_a_brake():
    assert "thermal-hw-slowdown-other" not in ranked("HW Slowdown : Not Active, SW Power Cap : Active, the run feels sluggish")


# --- the user's own suspicion, on one node ---


@pytest.mark.parametrize("text", [
    "one server, 8 gpus, utilization goes up and down between 10 and 95% like a sawtooth; the data sits on an nfs share other teams hammer too",
    "单机8卡，利用率在10%到95%之间锯齿状跳动，训练数据放在和别的组共用的NAS上，我觉得是存储的问题",
])  # fmt: skip
def test_a_suspected_shared_storage_on_one_node_leads_and_communication_does_not(text):
    causes = ranked(text)
    assert causes[0] == "data-shared-storage"
    assert "util-communication" not in causes[:2]
    finding = top(text)
    assert any("NVMe" in action.en and "NVMe" in action.zh for action in finding.actions)


def test_a_range_written_with_and_reads_as_a_range():
    diagnosis = diagnose(TroubleshootRequest(text="gpu utilization hovers between 20 and 40% during training"), load_rulebook())
    parsed = diagnosis.findings[0].parsed
    assert (parsed["gpu_util_low_percent"], parsed["gpu_util_high_percent"]) == (20.0, 40.0)


# --- a measured MFU judged against a published run ---


@pytest.mark.parametrize("text, expected", [
    ("we measure 27% MFU on 2048 H100s for a dense 65B pretrain, is that poor?", "mfu-below-published"),
    ("2048张H100预训练稠密65B，MFU只有27%，算低吗", "mfu-below-published"),
    ("MFU holds at 42% on 512 H100s, any reason to worry?", "mfu-within-published"),
    ("512张H100上MFU稳定在42%，需要担心吗", "mfu-within-published"),
])  # fmt: skip
def test_a_measured_mfu_is_judged_against_the_published_range(text, expected):
    finding = top(text)
    assert finding.rule_id == expected and finding.verdict is not None
    assert "38–43%" in finding.verdict.en and "38–43%" in finding.verdict.zh
    assert {"mfu-below-published", "mfu-within-published"} - {expected} & set(ranked(text)) == set()


def test_mfu_named_without_a_figure_gets_the_performance_checklist():
    assert ranked("how do we raise our mfu") == ["checklist-performance"]


# --- a transport line from NCCL's log ---


def test_ncc_socket_transport_line_is_evidence_of_the_tcp_fallback():
    finding = top("node01:1234:1301 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>", nodes=2)
    assert finding.rule_id == "nccl-socket-fallback" and not finding.described
    assert finding.new_finding is not None and "NCCL_IB_HCA" in finding.new_finding.en


# --- the rule fields behind these, validated ---


def test_a_verdict_may_only_name_stated_setup_fields():
    rule = {"id": "x", "family": "utilization", "title": {"en": "t", "zh": "t"}, "weight": 0.5,
            "patterns": {"keywords": {"en": ["mfu"]}}, "causes": [{"en": "c", "zh": "c"}],
            "actions": [{"en": "a", "zh": "a"}]}  # fmt: skip
    Rule.model_validate({**rule, "verdict": {"en": "{mfu_percent}% is low", "zh": "{mfu_percent}% 偏低"}})
    with pytest.raises(ValueError, match="not stated-setup fields"):
        Rule.model_validate({**rule, "verdict": {"en": "{mfu_pct}% is low", "zh": "{mfu_pct}% 偏低"}})


def test_the_shipped_rule_book_still_loads():
    try:
        load_rulebook.cache_clear()
        assert load_rulebook().rule("hang-silent").absorbs
    except CatalogError as exc:  # pragma: no cover - the message names the file and rule
        pytest.fail(str(exc))


def test_a_hang_named_by_another_rule_of_the_symptom_still_absorbs_the_busy_reading():
    # "卡住不动" is the watchdog rule's phrase, not the silent hang's: the hang still explains the 100%
    causes = ranked("两台机器训练卡住不动了，所有卡利用率显示 100%，没有任何报错", nodes=2)
    assert causes[0] == "hang-silent" and "util-communication" not in causes


# --- first checks a senior engineer gives from a description: scaling across nodes, a precision the card lacks,
# --- heat on a card with no fan of its own (rules as data: nccl.yaml, hardware.yaml, thermal.yaml) ---

SCALING = [
    ("Went from one node to 4 nodes with 8 GPUs each and the run is only 1.6x faster than before", {}),
    ("扩到4个节点之后训练只快了1.6倍，每台8张卡", {}),
]


@pytest.mark.parametrize("text, setup", SCALING)
def test_poor_multi_node_scaling_is_called_abnormal_with_the_expected_speed_up(text, setup):
    finding = top(text, **setup)
    assert finding.rule_id == "multi-node-scaling"
    assert finding.stated.get("scaling_pct") == 40.0  # 1.6× on 4 nodes: 40% of linear
    verdict = finding.verdict.en.format(nodes=4, speedup=1.6, scaling_pct=40)
    assert "Not normal" in verdict and "close to 4×" in verdict


def test_the_scaling_checks_start_with_the_transport_then_hcas_then_nccl_tests_then_sharding():
    finding = top(SCALING[0][0])
    commands = [action.command or "" for action in finding.actions]
    assert "NCCL_DEBUG=INFO" in commands[0] and "NET/Socket" in commands[0]
    assert "NCCL_IB_HCA" in commands[1]
    assert "all_reduce_perf" in commands[2] and "mpirun" in commands[2]
    assert "HYBRID_SHARD" in commands[3]


def test_a_job_already_on_zero2_is_not_told_to_leave_zero3():
    finding = top(SCALING[0][0], sharding="zero-2")
    assert not any("HYBRID_SHARD" in (action.command or "") for action in finding.actions)


def test_near_linear_scaling_is_not_an_abnormal_finding():
    findings = ranked("4 nodes and training is 3.7x faster than on one node")
    assert "multi-node-scaling" not in findings[:1] or top("4 nodes and training is 3.7x faster than on one node").score < 0.5


def test_one_node_rules_out_the_scaling_cause():
    assert "multi-node-scaling" not in ranked("single node, 8 GPUs, only 1.5x faster than 4 GPUs", nodes=1)


@pytest.mark.parametrize("text", ["vLLM refuses to start on our T4: bf16 is not supported", "T4 上用 vLLM 起服务报错，说不支持bf16"])
def test_a_bf16_error_on_a_card_without_bf16_is_the_card_and_fp16_is_the_fix(text):
    finding = top(text, card="NVIDIA T4", bf16=False, fp8=False)
    assert finding.rule_id == "precision-no-bf16"
    assert "--dtype half" in " ".join(action.command or "" for action in finding.actions)
    assert "{card}" in finding.verdict.en and "no BF16" in finding.verdict.en


def test_the_vllm_message_itself_is_recognised_as_evidence():
    log = "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla V100 GPU has compute capability 7.0."
    assert top(log, card="NVIDIA V100", bf16=False).rule_id == "precision-no-bf16"


def test_a_card_with_bf16_makes_the_capability_cause_unlikely():
    with_bf16 = top("bf16 is not supported error when starting the server", card="NVIDIA A100", bf16=True)
    without = top("bf16 is not supported error when starting the server", card="NVIDIA T4", bf16=False)
    assert with_bf16.score < without.score


@pytest.mark.parametrize("text", ["FP8 checkpoint on our A100 fails: fp8 is not supported", "A100 上跑 FP8 模型报错，不支持FP8"])
def test_fp8_on_ampere_is_the_card(text):
    finding = top(text, card="NVIDIA A100 80GB SXM", bf16=True, fp8=False)
    assert finding.rule_id == "precision-no-fp8"
    assert "no FP8" in finding.verdict.en


@pytest.mark.parametrize("text", ["Our L40S box starts throttling about 20 minutes into training", "L40S 服务器训练二十分钟后就开始降频"])
def test_heat_on_a_passive_card_points_at_chassis_airflow_and_the_bmc_fan_policy(text):
    finding = top(text, card="NVIDIA L40S", cooling="passive")
    assert finding.rule_id == "thermal-passive-airflow"
    said = " ".join(action.en for action in finding.actions)
    assert "BMC fan policy" in said and "airflow" in said


def test_a_card_with_its_own_fans_is_not_sent_to_the_bmc():
    assert "thermal-passive-airflow" not in ranked("my 4090 is throttling under load", card="NVIDIA GeForce RTX 4090", cooling="active")


def test_the_catalog_marks_passive_cards():
    from knowledge.catalog import load_catalog

    catalog = load_catalog()
    assert catalog.gpu("l40s").cooling == "passive" and catalog.gpu("a100-80gb-pcie").cooling == "passive"
    assert catalog.gpu("rtx-4090").cooling is None  # fans of its own: never sent to the chassis airflow
    assert catalog.gpu("t4").bf16_tflops is None and catalog.gpu("a100-80gb-sxm").fp8_tflops is None


def test_a_scale_up_sentence_is_sized_by_its_larger_node_count_even_when_the_reader_took_the_smaller():
    # "from 1 node to 4": the conversation's reading may hold the baseline; the speed-up compares two sizes
    finding = top("We went from 1 node to 4 nodes and training is only 1.5x faster", nodes=1)
    assert finding.rule_id == "multi-node-scaling" and finding.stated.get("scaling_pct") == 37.5
