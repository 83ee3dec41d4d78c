"""Log parsers: the numbers they pull out of real message formats, and that they never raise."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.troubleshoot.parsers import (
    PARSERS,
    lines_with,
    parse_driver,
    parse_nccl,
    parse_nvidia_smi_query,
    parse_pcie_link,
    parse_pytorch_oom,
    parse_symptoms,
    parse_xid,
)

LOGS = Path(__file__).parent / "data" / "logs"


def log(name: str) -> str:
    return (LOGS / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "era", "expected_mib"),
    [
        ("oom_pytorch04_runtime_error.log", "0.4", {}),
        ("oom_pytorch10_cached.log", "1.0-1.3",
         {"requested_mib": 16384, "total_mib": 11.93 * 1024, "allocated_mib": 4096, "free_mib": 7.33 * 1024,
          "reserved_unallocated_mib": 179 / 1024}),
        ("oom_pytorch1x_reserved.log", "1.4-2.0",
         {"requested_mib": 152, "total_mib": 31.72 * 1024, "allocated_mib": 24.89 * 1024, "free_mib": 6.12,
          "reserved_mib": 30.70 * 1024, "reserved_unallocated_mib": (30.70 - 24.89) * 1024}),
        ("oom_pytorch21_other_process.log", "2.1+",
         {"requested_mib": 138, "total_mib": 15.90 * 1024, "free_mib": 8.44, "this_process_mib": 15.32 * 1024,
          "allocated_mib": 14.12 * 1024, "reserved_unallocated_mib": 410.41, "other_processes_mib": 577}),
        ("oom_pytorch2x_fragmentation.log", "2.1+",
         {"requested_mib": 3.15 * 1024, "total_mib": 39.56 * 1024, "free_mib": 6.80 * 1024,
          "this_process_mib": 36.61 * 1024, "allocated_mib": 31.66 * 1024, "reserved_unallocated_mib": 4.11 * 1024}),
    ],
)  # fmt: skip
def test_pytorch_oom_formats_of_every_era(name, era, expected_mib):
    records = [r for r in parse_pytorch_oom(log(name)) if r.kind == "device_oom"]
    assert records and records[-1].values["format"] == era
    for key, value in expected_mib.items():
        assert records[-1].values[key] == pytest.approx(value, abs=0.01), key


def test_oom_message_wrapped_over_lines_and_gpu_index():
    text = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 3 has a total\n"
        "capacity of 23.64 GiB of which 100.50 MiB is free. Including non-PyTorch memory, this process has\n"
        "23.53 GiB memory in use. Of the allocated memory 22.10 GiB is allocated by PyTorch, and 1.01 GiB is reserved by PyTorch but unallocated."
    )
    (record,) = parse_pytorch_oom(text)
    assert record.line == 1
    assert record.values["requested_mib"] == 512 and record.values["gpu_index"] == 3
    assert record.values["total_mib"] == pytest.approx(23.64 * 1024)
    assert record.values["this_process_mib"] == pytest.approx(23.53 * 1024)
    assert record.values["reserved_unallocated_mib"] == pytest.approx(1.01 * 1024)


def test_host_oom_killer_is_not_a_gpu_oom():
    kinds = {r.kind for r in parse_pytorch_oom(log("oom_host_killer_dmesg.log"))}
    assert kinds == {"host_oom"}


def test_xid_lines_mentions_and_not_sxid():
    text = (
        "[Mon Feb  5 10:00:01 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=48211, name=python, GPU has fallen off the bus.\n"
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error\n"
        "we also saw XID 48 yesterday\n"
        "[  402.877171] NVRM: Xid (PCI:0000:02:00): 61, 0cbd(2f68) 00000000 00000000\n"
    )
    records = parse_xid(text)
    assert [(r.kind, r.values["xid"], r.line) for r in records] == [
        ("dmesg", 79, 1), ("mention", 48, 3), ("dmesg", 61, 4),
    ]  # fmt: skip
    assert records[0].values["pci"] == "0000:3b:00" and records[0].values["pid"] == 48211
    assert records[0].values["process"] == "python"
    assert "pid" not in records[2].values


def test_nvidia_smi_query_new_driver_thermal_block_and_tlimit_margins():
    (gpu,) = parse_nvidia_smi_query(log("smi_q_h100_hw_thermal.log"))
    values = gpu.values
    assert values["gpu_bus"] == "00000000:18:00.0"
    assert values["hw_thermal_slowdown"] == 1 and values["sw_thermal_slowdown"] == 1 and values["sw_power_cap"] == 0
    assert values["gpu_temp_c"] == 88
    assert values["slowdown_margin_c"] == 0  # T.Limit -2 C vs slowdown at -2 C
    assert values["shutdown_margin_c"] == 6
    # The "... Reasons Counters" block holds microseconds, which must not overwrite the flags.
    assert values["sw_power_cap"] == 0
    assert gpu.field_lines["hw_thermal_slowdown"] == 18


def test_nvidia_smi_query_old_driver_headings_and_power():
    (gpu,) = parse_nvidia_smi_query(log("smi_q_a100_old_driver_power_cap.log"))
    values = gpu.values
    assert values["sw_power_cap"] == 1 and values["hw_slowdown"] == 0
    assert (values["gpu_temp_c"], values["slowdown_temp_c"], values["shutdown_temp_c"]) == (61, 89, 92)
    assert values["slowdown_margin_c"] == 28 and values["memory_margin_c"] == 25
    assert (values["power_limit_w"], values["default_power_limit_w"]) == (250, 400)
    assert values["power_limit_reduction_w"] == 150


def test_nvidia_smi_query_ecc_counters_old_and_new_layouts():
    (old,) = parse_nvidia_smi_query(log("smi_q_ecc_old_format.log"))
    assert old.values["ecc_volatile_correctable"] == 12 and old.values["ecc_volatile_uncorrectable"] == 2
    assert old.values["ecc_aggregate_uncorrectable"] == 3 and old.values["ecc_uncorrectable"] == 3
    assert old.values["remap_pending"] == 1 and old.values["remap_uncorrectable"] == 2
    (new,) = parse_nvidia_smi_query(log("smi_q_ecc_new_format_remap_failure.log"))
    assert new.values["ecc_volatile_uncorrectable"] == 0
    assert new.values["ecc_aggregate_uncorrectable"] == 15  # 3 + 3 SRAM + 9 DRAM
    assert new.values["sram_aggregate_uncorrectable"] == 6
    assert new.values["ecc_aggregate_correctable"] == 118
    assert new.values["remap_failure"] == 1


def test_nvidia_smi_query_one_record_per_gpu():
    block = log("smi_q_power_brake.log")
    text = block + block.replace("00000000:CA:00.0", "00000000:CB:00.0").replace("Active\n", "Not Active\n")
    records = parse_nvidia_smi_query(text)
    assert [r.values["gpu_bus"] for r in records] == ["00000000:CA:00.0", "00000000:CB:00.0"]
    assert records[0].values["hw_power_brake_slowdown"] == 1 and records[1].values["hw_power_brake_slowdown"] == 0


def test_nccl_watchdog_timeout_numbers():
    records = [r for r in parse_nccl(log("nccl_watchdog_timeout_pt2.log")) if r.kind == "watchdog_timeout"]
    first = records[0].values
    assert first["seq_num"] == 1580 and first["op_type"] == "ALLREDUCE" and first["numel_in"] == 466119168
    assert first["timeout_ms"] == 600000 and first["timeout_min"] == 10 and first["ran_for_ms"] == 600060
    assert first["rank"] == 1 and first["last_enqueued"] == 1582 and first["last_completed"] == 1579
    (old,) = [r for r in parse_nccl(log("nccl_watchdog_timeout_pt1.log")) if r.kind == "watchdog_timeout"]
    assert old.values["timeout_min"] == 30 and old.values["op_type"] == "BROADCAST" and old.values["rank"] == 3


@pytest.mark.parametrize(
    ("name", "kind", "values"),
    [
        ("nccl_system_error.log", "system_error", {"nccl_version": "2.25.1"}),
        ("nccl_unhandled_cuda_error.log", "cuda_error", {"nccl_version": "2.14.3"}),
        ("nccl_internal_error.log", "internal_error", {"nccl_version": "2.19.3"}),
        ("nccl_ib_completion_error.log", "ib_completion_error", {"ib_status": 12, "vendor_err": 129, "opcode": 0}),
        ("nccl_wrong_interface.log", "socket_interface", {"iface": "docker0", "local_iface": 1}),
        ("nccl_wrong_interface.log", "ib_not_found", {}),
        ("nccl_shm_too_small.log", "shm_exhausted", {"shm_request_bytes": 9637888, "source": "nccl"}),
        ("dataloader_bus_error.log", "shm_exhausted", {"source": "dataloader"}),
        ("nccl_system_error.log", "connect_failed", {}),
    ],
)
def test_nccl_error_classes(name, kind, values):
    matching = [r for r in parse_nccl(log(name)) if r.kind == kind]
    assert matching, [r.kind for r in parse_nccl(log(name))]
    for key, value in values.items():
        assert matching[0].values[key] == value


def test_nccl_real_interface_is_not_flagged():
    records = parse_nccl("node1:12:12 [0] NCCL INFO NET/Socket : Using [0]ens8f0:10.1.2.3<0>\n")
    assert [(r.kind, r.values["iface"], r.values["local_iface"]) for r in records] == [("socket_interface", "ens8f0", 0)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("lspci_link_downgraded.log", {"speed_gts": 2.5, "width": 8, "cap_speed_gts": 32, "cap_width": 16, "gen": 1, "cap_gen": 5}),
        ("dmesg_pcie_limited.log", {"speed_gts": 8, "width": 8, "cap_width": 16, "available_gbps": 63.008}),
        ("smi_q_pcie_width.log", {"gen": 4, "cap_gen": 4, "width": 8, "cap_width": 16, "speed_downgraded": 0}),
    ],
)
def test_pcie_link_state(name, expected):
    (record,) = parse_pcie_link(log(name))
    assert record.values["width_downgraded"] == 1
    for key, value in expected.items():
        assert record.values[key] == value, key


def test_pcie_full_link_is_not_downgraded():
    text = "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\n\t\tLnkSta:\tSpeed 16GT/s, Width x16\n"
    (record,) = parse_pcie_link(text)
    assert record.values["width_downgraded"] == 0 and record.values["speed_downgraded"] == 0


@pytest.mark.parametrize(
    ("name", "kind", "values"),
    [
        ("driver_nvml_mismatch.log", "nvml_mismatch", {"nvml_library_version": "550.127"}),
        ("driver_too_old.log", "driver_too_old", {"driver_cuda_version": 11.4}),
        ("driver_insufficient_runtime.log", "driver_too_old", {}),
        ("driver_runtime_newer.log", "versions", {"driver_version": "535.183.01", "driver_cuda_version": 12.2, "runtime_cuda_version": 12.4}),
    ],
)
def test_driver_problems_and_versions(name, kind, values):
    record = next(r for r in parse_driver(log(name)) if r.kind == kind)
    for key, value in values.items():
        assert record.values[key] == pytest.approx(value) if isinstance(value, float) else record.values[key] == value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("训练时GPU利用率只有30%", {"gpu_util_percent": 30}),
        ("显卡温度90度降频", {"temperature_c": 90}),
        ("GPU utilization is only 35% and temps hit 88C", {"gpu_util_percent": 35, "temperature_c": 88}),
        ("sitting at 45% GPU util", {"gpu_util_percent": 45}),
        ("My RTX 4090 hits 91°C after ten minutes", {"temperature_c": 91}),
        ("训练速度很慢，batch size 是 8", {"batch": 8}),  # a setting the rules rank causes by, not a symptom figure
        ("利用率大概只有一半", {"gpu_util_percent": 50}),
        ("the micro-batch is down to 1 already", {"batch": 1}),
        ("我们三台服务器一起训", {"nodes": 3}),
        ("a 16-node run", {"nodes": 16}),
        ("每次都是2号节点报错", {}),  # which node it is, not how many
    ],
)
def test_symptom_numbers(text, expected):
    values = {}
    for record in parse_symptoms(text):
        values.update(record.values)
    assert values == expected


def test_symptoms_ignore_nvidia_smi_query_limit_lines():
    assert parse_symptoms("        GPU Max Operating Temp            : 85 C\n") == []


def test_lines_with_finds_each_line_once_in_order():
    text = "a Xid b\nnothing\nxid and Xid\n"
    assert lines_with(text, ("Xid", "xid")) == [(0, 7), (16, 27)]


def test_parsers_tolerate_empty_and_junk():
    for spec in PARSERS.values():
        assert spec.function("") == []
        assert isinstance(spec.function("Xid Xid (PCI: 999999 out of memory Tried to allocate GiB LnkSta: Speed"), list)


# Text built from the fragments the parsers look for, so random inputs reach deep into their code paths.
FRAGMENTS = [
    "NVRM: Xid (PCI:0000:3b:00): ", "79, pid=", "name=", "SXid", "out of memory", "Tried to allocate ", "GiB", "MiB",
    " total capacity", "of which ", " is free", "Process ", " has ", " memory in use", "(GPU ", ";", " cached)",
    "reserved in total by PyTorch", "WorkNCCL(", "SeqNum=", "Timeout(ms)=", ")", "Watchdog caught collective operation timeout: ",
    " ran for ", " milliseconds", "ncclSystemError", "NET/IB : Got completion from peer ", " with status=", " opcode ",
    "NET/Socket : Using [0]", "lo:", "LnkCap:\tPort #0, Speed ", "LnkSta:\tSpeed ", "GT/s", ", Width x", " (downgraded)",
    "GPU 00000000:18:00.0", "    Clocks Event Reasons", "        HW Slowdown   : ", "Active", "Not Active",
    "    Temperature", "        GPU Current Temp   : ", " C", "    ECC Errors", "        Volatile", "            Total  : ",
    "Driver Version: ", "CUDA Version: ", "+cu", "too old (found version ", "利用率", "温度", "度", "%", "°C", "\n", " ",
    "\t", "\x1b[31m", "-", ".", "0", "9", "99999999999999999999", "1e309",
]  # fmt: skip
fragment_text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=40).map("".join)


@settings(max_examples=150, deadline=None)
@given(text=st.one_of(st.text(max_size=300), fragment_text))
def test_parsers_never_raise(text):
    for spec in PARSERS.values():
        for record in spec.function(text):
            assert record.kind in spec.kinds
            assert set(record.values) <= spec.fields
            assert 1 <= record.line <= text.count("\n") + 1
