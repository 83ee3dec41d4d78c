"""Golden tests: real-world logs and symptom descriptions → ranked diagnoses with evidence and numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.bilingual import AdvisorError
from tools.troubleshoot.diagnose import MAX_INPUT_BYTES, TroubleshootRequest, diagnose
from tools.troubleshoot.rulebook import load_rulebook

LOGS = Path(__file__).parent / "data" / "logs"

# file → (top rule, parsed values the top finding must carry, 1-based line of its first evidence)
GOLDEN = {
    # OOM, every PyTorch message era
    "oom_pytorch04_runtime_error.log": ("oom-capacity", {"format": "0.4"}, 2),
    "oom_pytorch10_cached.log": ("oom-capacity", {"format": "1.0-1.3", "requested_mib": 16384.0}, 8),
    "oom_pytorch1x_reserved.log": ("oom-fragmentation", {"format": "1.4-2.0", "requested_mib": 152.0}, 11),
    "oom_pytorch113_max_split.log": ("oom-capacity", {"format": "1.4-2.0", "free_mib": 62.44}, 8),
    # 410 MiB cached beside 14 GiB of live tensors is no fragmentation by the message's own figures; the 577 MiB another
    # process holds would have served the 138 MiB request on its own.
    "oom_pytorch21_other_process.log": ("oom-other-process", {"format": "2.1+", "other_processes_mib": 577.0}, 7),
    "oom_pytorch2x_fragmentation.log": ("oom-fragmentation", {"format": "2.1+", "reserved_unallocated_mib": 4208.64}, 6),
    "oom_pytorch2x_capacity.log": ("oom-capacity", {"format": "2.1+", "reserved_unallocated_mib": 412.53}, 8),
    "oom_host_killer_dmesg.log": ("host-ram-oom", {"format": "linux"}, 4),
    "vllm_kv_cache.log": ("oom-kv-cache", {}, 5),
    # Xid
    "xid_13.log": ("xid-13", {"xid": 13.0, "pid": 2711.0}, 1),
    "xid_31.log": ("xid-31", {"xid": 31.0, "pci": "0000:3b:00"}, 1),
    "xid_43.log": ("xid-43", {"xid": 43.0}, 1),
    "xid_45.log": ("xid-45", {"xid": 45.0}, 1),
    "xid_48_then_63.log": ("xid-48", {"xid": 48.0}, 1),
    "xid_61.log": ("xid-61", {"xid": 61.0}, 1),
    "xid_62.log": ("xid-62", {"xid": 62.0}, 1),
    "xid_63.log": ("xid-63", {"xid": 63.0}, 1),
    "xid_64.log": ("xid-64", {"xid": 64.0}, 1),
    "xid_74.log": ("xid-74", {"xid": 74.0, "process": "pt_main_thread"}, 1),
    "xid_79.log": ("xid-79", {"xid": 79.0, "pci": "0000:3b:00", "pid": 48211.0}, 3),
    "xid_92.log": ("xid-92", {"xid": 92.0}, 1),
    "xid_94.log": ("xid-94", {"xid": 94.0}, 1),
    "xid_95.log": ("xid-95", {"xid": 95.0}, 1),
    "xid_119.log": ("xid-119", {"xid": 119.0}, 1),
    "xid_154.log": ("xid-154", {"xid": 154.0}, 1),
    # thermal / power from nvidia-smi -q
    "smi_q_h100_hw_thermal.log": ("thermal-hw-slowdown", {"gpu_temp_c": 88.0, "slowdown_margin_c": 0.0}, 18),
    "smi_q_power_brake.log": ("thermal-power-brake", {"hw_power_brake_slowdown": 1.0}, 10),
    "smi_q_a100_old_driver_power_cap.log": ("power-cap-reduced", {"power_limit_w": 250.0, "default_power_limit_w": 400.0}, 32),
    "smi_q_h800_idle_healthy.log": ("util-idle-reason", {"gpu_temp_c": 35.0}, 3),
    # NCCL / distributed
    "nccl_watchdog_timeout_pt2.log": ("nccl-watchdog-timeout", {"timeout_ms": 600000.0, "op_type": "ALLREDUCE", "seq_num": 1580.0}, 1),
    "nccl_watchdog_timeout_pt1.log": ("nccl-watchdog-timeout", {"timeout_ms": 1800000.0, "rank": 3.0}, 1),
    "nccl_rank0_oom_then_timeout.log": ("oom-capacity", {"requested_mib": 2048.0}, 1),
    "nccl_system_error.log": ("nccl-system-error", {"nccl_version": "2.25.1"}, 6),
    "nccl_unhandled_cuda_error.log": ("nccl-cuda-error", {"nccl_version": "2.14.3"}, 1),
    "nccl_internal_error.log": ("nccl-internal-error", {"error": "internal_error"}, 1),
    "nccl_ib_completion_error.log": ("rdma-retry-exceeded", {"ib_status": 12.0, "vendor_err": 129.0}, 3),  # status 12: retries exhausted, explained on its own
    "nccl_wrong_interface.log": ("nccl-wrong-interface", {"iface": "docker0"}, 1),
    "nccl_shm_too_small.log": ("shm-too-small", {"shm_request_bytes": 9637888.0}, 3),
    "dataloader_bus_error.log": ("shm-too-small", {"source": "dataloader"}, 1),
    # hardware / platform
    "smi_q_ecc_old_format.log": ("ecc-uncorrectable", {"ecc_uncorrectable": 3.0, "ecc_volatile_uncorrectable": 2.0}, 18),
    "smi_q_ecc_new_format_remap_failure.log": ("row-remap-failure", {"remap_failure": 1.0}, 24),
    "lspci_link_downgraded.log": ("pcie-width-downgrade", {"width": 8.0, "cap_width": 16.0, "speed_gts": 2.5}, 10),
    "dmesg_pcie_limited.log": ("pcie-width-downgrade", {"available_gbps": 63.008}, 2),
    "smi_q_pcie_width.log": ("pcie-width-downgrade", {"width": 8.0, "cap_width": 16.0}, 10),
    "driver_nvml_mismatch.log": ("driver-library-mismatch", {"nvml_library_version": "550.127"}, 2),
    "driver_too_old.log": ("driver-too-old", {"driver_cuda_version": 11.4}, 6),
    "driver_insufficient_runtime.log": ("driver-too-old", {}, 2),
    "driver_runtime_newer.log": ("driver-runtime-newer", {"driver_cuda_version": 12.2, "runtime_cuda_version": 12.4}, 2),
    "smi_table_busy_low_power.log": ("util-busy-low-power", {"gpu_util_percent": 100.0, "power_draw_w": 88.0}, 8),
    # symptoms typed by users
    # a symptom described without a log is replaced by its causes, the likeliest first, carrying the figure read
    "symptom_zh_util.txt": ("util-dataloader", {"gpu_util_percent": 30.0}, 1),
    "symptom_zh_thermal.txt": ("thermal-hw-slowdown", {"temperature_c": 90.0}, 1),
    "symptom_zh_oom.txt": ("oom-capacity", {}, 1),
    "symptom_zh_fell_off.txt": ("xid-79", {"xid": 79.0}, 1),
    "symptom_zh_nccl_hang.txt": ("nccl-watchdog-timeout", {}, 1),
    "symptom_en_util.txt": ("util-dataloader", {"gpu_util_percent": 35.0}, 1),
    "symptom_en_thermal.txt": ("thermal-hw-slowdown", {"temperature_c": 91.0}, 1),
}


@pytest.fixture(scope="module")
def rules():
    return load_rulebook()


def run(text: str, rules, **kwargs):
    return diagnose(TroubleshootRequest(text=text, **kwargs), rules)


def test_every_sample_log_has_a_golden_expectation():
    assert {p.name for p in LOGS.iterdir()} == set(GOLDEN)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_top_diagnosis(name, rules):
    top_rule, parsed, line = GOLDEN[name]
    text = (LOGS / name).read_text(encoding="utf-8")
    diagnosis = run(text, rules)
    top = diagnosis.findings[0]
    assert top.rule_id == top_rule, [(f.rule_id, f.score) for f in diagnosis.findings]
    for key, value in parsed.items():
        assert top.parsed[key] == value, key
    assert top.evidence[0].line == line
    assert top.evidence[0].excerpt == text.split("\n")[line - 1].strip()[:300]
    assert top.causes and top.actions and top.title.en and top.title.zh
    assert diagnosis.truncated is False
    scores = [f.score for f in diagnosis.findings]
    assert scores == sorted(scores, reverse=True)


def test_chinese_symptoms_reply_in_chinese_and_english_logs_in_english(rules):
    assert run("训练时GPU利用率只有30%", rules).language == "zh"
    assert run((LOGS / "xid_79.log").read_text(), rules).language == "en"
    assert run("训练时GPU利用率只有30%", rules, language="en").language == "en"


def test_fragmentation_ranks_expandable_segments_first(rules):
    diagnosis = run((LOGS / "oom_pytorch2x_fragmentation.log").read_text(), rules)
    first_action = diagnosis.findings[0].actions[0]
    assert first_action.command == "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
    assert [f.rule_id for f in diagnosis.findings[:2]] == ["oom-fragmentation", "oom-capacity"]


def test_capacity_oom_suggests_batch_checkpointing_precision_sharding_offload(rules):
    diagnosis = run((LOGS / "oom_pytorch2x_capacity.log").read_text(), rules)
    assert "oom-fragmentation" not in [f.rule_id for f in diagnosis.findings]
    text = " ".join(a.en for a in diagnosis.findings[0].actions).lower()
    for technique in ("micro-batch", "accumulation", "checkpointing", "bf16", "zero", "fsdp", "offload", "context"):
        assert technique in text, technique


def test_oom_memory_hint_ties_back_to_the_memory_estimator(rules):
    diagnosis = run((LOGS / "oom_pytorch2x_capacity.log").read_text(), rules, model="llama-3.1-8b")
    hint = diagnosis.memory_hint
    assert hint is not None and hint.model == "llama-3.1-8b" and hint.format == "2.1+" and hint.gpu_index == 0
    assert hint.requested_gib == pytest.approx(1.96) and hint.capacity_gib == pytest.approx(79.15)
    assert hint.capacity_gb == pytest.approx(79.15 * 2**30 / 1e9, abs=0.01)  # an "80 GB" card
    assert hint.this_process_gib == pytest.approx(77.82) and hint.allocated_gib == pytest.approx(75.92)
    assert run((LOGS / "xid_79.log").read_text(), rules).memory_hint is None


def test_low_utilisation_from_a_log_table_keeps_its_checklist_in_order(rules):
    # an nvidia-smi table row is a log: the symptom's own finding stays, with every check in order
    row = "| N/A   41C    P0   120W / 400W |  30000MiB / 81920MiB |     30%      Default |"
    finding = next(f for f in run(row, rules).findings if f.rule_id == "util-low")
    commands = [a.command or "" for a in finding.actions]
    order = ["nvidia-smi dmon", "num_workers", "py-spy", "torch.compile", "set_sync_debug_mode", "all_reduce_perf",
             "torch.profiler", "nsys"]
    positions = [next(i for i, c in enumerate(commands) if marker in c) for marker in order]
    assert positions == sorted(positions)


@pytest.mark.parametrize("described", ["my gpu utilization hovers around 25-45% during training",
                                       "finetuning but GPU util stays at 38%", "训练的时候GPU利用率就二三十", "显卡利用率一直上不去"])
def test_low_utilisation_described_gives_ranked_causes_each_with_a_command(described, rules):
    findings = run(described, rules).findings
    assert "util-low" not in [f.rule_id for f in findings]  # the symptom is not offered as its own cause
    assert {"util-dataloader", "util-small-batch", "util-communication"} <= {f.rule_id for f in findings}
    for finding in findings:
        assert finding.described and finding.symptom == "low_utilisation"
        assert any(a.command for a in finding.actions[:2]), finding.rule_id  # a check to run comes first


def test_a_range_reads_like_a_single_figure(rules):
    ranged = run("GPU utilization is 20-30% the whole run", rules).findings
    single = run("GPU utilization is 25% the whole run", rules).findings
    assert [f.rule_id for f in ranged] == [f.rule_id for f in single]
    assert ranged[0].parsed["gpu_util_low_percent"] == 20 and ranged[0].parsed["gpu_util_high_percent"] == 30
    chinese = run("利用率百分之四五十的样子", rules).findings
    assert chinese[0].parsed["gpu_util_low_percent"] == 40 and chinese[0].parsed["gpu_util_high_percent"] == 50
    # Words between the name and the figure may hold a numeral of their own ("一直", "一般").
    steady = run("显卡利用率一直卡在二十多，也没报错", rules).findings
    assert steady and steady[0].parsed["gpu_util_low_percent"] == 20 and steady[0].parsed["gpu_util_high_percent"] == 30


def test_the_stated_setup_reorders_the_causes(rules):
    text = "utilization sits at about 40% while training"
    assert run(text, rules).findings[0].rule_id == "util-dataloader"
    multi_node = run(text, rules, setup={"nodes": 3, "gpus": 24}).findings[0]
    assert multi_node.rule_id == "util-communication" and multi_node.stated == {"nodes": 3}
    tiny_batch = run(text, rules, setup={"batch": 2}).findings[0]
    assert tiny_batch.rule_id == "util-small-batch" and tiny_batch.stated == {"batch": 2}
    few_workers = run("利用率只有四十%左右，dataloader用了1个worker", rules, setup={"batch": 16}).findings[0]
    assert few_workers.rule_id == "util-dataloader" and few_workers.stated == {"dataloader_workers": 1}


def test_a_described_hang_on_several_nodes_puts_the_network_first(rules):
    alone = run("训练跑一会儿就卡住，最后NCCL超时", rules).findings
    assert alone[0].rule_id == "nccl-watchdog-timeout"
    several = run("the job hangs at allreduce and then NCCL times out", rules, setup={"nodes": 2}).findings
    assert several[0].rule_id == "nccl-wrong-interface" and several[0].family == "nccl"
    assert any("NCCL_SOCKET_IFNAME" in (a.command or "") for a in several[0].actions)


def test_described_overheating_ranks_cooling_first_with_the_throttle_query(rules):
    for text in ("our 8 cards run very hot and the clocks drop", "机器里几张卡温度很高，还会降频"):
        top = run(text, rules).findings[0]
        assert top.rule_id == "thermal-hw-slowdown" and top.described
        assert "nvidia-smi -q -d PERFORMANCE" in top.actions[0].command


def test_a_pasted_log_is_quoted_and_a_description_is_not(rules):
    logged = run((LOGS / "oom_pytorch2x_capacity.log").read_text(), rules).findings[0]
    assert not logged.described and logged.evidence[0].source == "log"
    described = run("fine-tuning a 13b model keeps running out of memory", rules).findings[0]
    assert described.rule_id == "oom-capacity" and described.described


@pytest.mark.parametrize("text", ["the 7b run keeps OOMing on my card", "it OOMs at step 1", "一跑就爆显存"])
def test_oom_written_as_a_verb_is_an_oom(text, rules):
    assert run(text, rules).findings[0].rule_id == "oom-capacity"


def test_a_setup_condition_on_an_unknown_field_is_refused():
    from tools.troubleshoot.rulebook import Likelihood

    with pytest.raises(ValueError, match="stated-setup"):
        Likelihood(when=["racks > 2"], weight=0.5)


def test_root_cause_outranks_follow_on_errors(rules):
    # rank 0 ran out of memory; the other ranks then timed out waiting for it in the allreduce
    ids = [f.rule_id for f in run((LOGS / "nccl_rank0_oom_then_timeout.log").read_text(), rules).findings]
    assert ids.index("oom-capacity") < ids.index("nccl-watchdog-timeout")
    ids = [f.rule_id for f in run((LOGS / "xid_48_then_63.log").read_text(), rules).findings]
    assert ids == ["xid-48", "xid-63", "xid-45"]


def test_keyword_only_match_scores_below_log_evidence(rules):
    keyword = run("显存不够 OOM 了", rules).findings[0]
    logged = run((LOGS / "oom_pytorch2x_capacity.log").read_text(), rules).findings[0]
    assert keyword.rule_id == logged.rule_id == "oom-capacity"
    assert keyword.evidence[0].via == "keyword" and logged.evidence[0].via == "parser"
    assert keyword.score < logged.score


def test_english_keywords_match_whole_words_only(rules):
    assert run("the room was cold and the zoom call dropped", rules).findings == []


def test_ten_megabyte_paste_is_truncated_and_reported(rules):
    noise = "step=100 loss=1.2345 lr=2e-05 tokens/s=12000\n" * 240_000  # ≈ 10 MB
    tail = (LOGS / "xid_79.log").read_text()
    text = noise + tail
    assert len(text.encode()) > 10_000_000
    diagnosis = run(text, rules)
    assert diagnosis.truncated is True
    assert diagnosis.input_bytes == len(text.encode()) and diagnosis.analyzed_bytes <= MAX_INPUT_BYTES
    top = diagnosis.findings[0]
    assert top.rule_id == "xid-79"
    assert top.evidence[0].line == 240_000 + 3  # numbered as in the full paste
    assert any("200 KB" in note.en and "200 KB" in note.zh for note in diagnosis.notes)


def test_error_before_the_last_200_kb_is_not_seen(rules):
    text = (LOGS / "xid_79.log").read_text() + "ok\n" * (MAX_INPUT_BYTES // 3 + 10)
    diagnosis = run(text, rules)
    assert diagnosis.truncated and all(f.rule_id != "xid-79" for f in diagnosis.findings)


@pytest.mark.parametrize("text", ["", "   \n\t  \n", "\x00\x01\x02\x03" * 100, "ELF\x7f\x00\x00" + "\x00\x12" * 500])
def test_empty_whitespace_or_binary_input_is_a_bilingual_error(text, rules):
    with pytest.raises(AdvisorError) as caught:
        run(text, rules)
    assert caught.value.code in ("empty_input", "binary_input")
    assert caught.value.en and caught.value.zh


def test_unmatched_text_returns_no_findings_and_says_what_to_paste(rules):
    diagnosis = run("hello, can you help me?", rules)
    assert diagnosis.findings == []
    assert any("nvidia-smi -q" in note.en and "nvidia-smi -q" in note.zh for note in diagnosis.notes)


def test_max_findings_limits_the_list(rules):
    text = "\n".join((LOGS / name).read_text() for name in ("xid_13.log", "xid_79.log", "xid_94.log", "xid_119.log"))
    assert len(run(text, rules).findings) == 4
    assert [f.rule_id for f in run(text, rules, max_findings=2).findings] == ["xid-79", "xid-119"]


def test_coloured_log_lines_still_match(rules):
    text = "\x1b[31m[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.\x1b[0m\n"
    assert run(text, rules).findings[0].rule_id == "oom-capacity"


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=400))
def test_diagnose_never_raises_anything_but_advisor_error(text):
    try:
        diagnosis = diagnose(TroubleshootRequest(text=text), load_rulebook())
    except AdvisorError as error:
        assert error.code in ("empty_input", "binary_input")
    else:
        assert all(f.evidence for f in diagnosis.findings)


def test_a_symptom_phrase_matches_with_a_word_inside_it_but_only_as_whole_words(rules):
    described = run("every run dies with an NCCL watchdog timeout about 20 minutes in, but only on 4 nodes", rules)
    assert described.findings[0].rule_id == "nccl-watchdog-timeout"
    chinese = run("多机训练跑二十分钟左右就报nccl watchdog超时", rules)
    assert chinese.findings[0].rule_id == "nccl-watchdog-timeout"
    assert not run("the nccl tests pass and nothing ever timed out, the room is cold", rules).findings
