"""Pure parsers that pull structured facts out of pasted GPU logs and symptom descriptions.

Each parser takes the whole text and returns ``ParsedRecord``s (a kind, numbers/strings,
and the line they came from). They never raise: unknown or mangled input gives fewer records.
Rules in ``knowledge/troubleshooting/*.yaml`` name a parser and put conditions on its fields;
``PARSERS`` declares which fields each parser can produce so the rule loader can reject typos.

Sizes are reported in MiB because PyTorch prints binary units (KiB/MiB/GiB).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tools.troubleshoot.parsers.driver import DRIVER_ERRORS, parse_driver
from tools.troubleshoot.parsers.nccl import NCCL_ERRORS, parse_nccl
from tools.troubleshoot.parsers.oom import parse_pytorch_oom
from tools.troubleshoot.parsers.pcie import parse_pcie_link
from tools.troubleshoot.parsers.records import EXCERPT_CHARS, ParsedRecord, Value, lines_with
from tools.troubleshoot.parsers.smi import (
    POWER_FIELDS,
    REASON_FIELDS,
    REMAP_FIELDS,
    RETIRED_FIELDS,
    TEMPERATURE_FIELDS,
    parse_nvidia_smi_query,
)
from tools.troubleshoot.parsers.symptoms import parse_symptoms
from tools.troubleshoot.parsers.xid import parse_xid

__all__ = [
    "EXCERPT_CHARS", "PARSERS", "ParsedRecord", "ParserSpec", "Value", "lines_with", "parse_driver", "parse_nccl",
    "parse_nvidia_smi_query", "parse_pcie_link", "parse_pytorch_oom", "parse_symptoms", "parse_xid",
]  # fmt: skip


@dataclass(frozen=True)
class ParserSpec:
    """A parser and the fields its records may carry (rule conditions may only name these)."""

    function: Callable[[str], list[ParsedRecord]]
    kinds: frozenset[str]
    fields: frozenset[str]


PARSERS: dict[str, ParserSpec] = {
    "pytorch_oom": ParserSpec(
        parse_pytorch_oom, frozenset({"device_oom", "host_oom"}),
        frozenset({"format", "requested_mib", "total_mib", "free_mib", "allocated_mib", "reserved_mib",
                   "reserved_unallocated_mib", "this_process_mib", "gpu_index", "other_processes_mib",
                   "other_process_count"}),
    ),
    "xid": ParserSpec(parse_xid, frozenset({"dmesg", "mention"}), frozenset({"xid", "pci", "pid", "process"})),
    "nvidia_smi_query": ParserSpec(
        parse_nvidia_smi_query, frozenset({"gpu", "reported"}),
        frozenset({"gpu_bus", "active_reasons", *REASON_FIELDS.values(), *TEMPERATURE_FIELDS.values(), *POWER_FIELDS.values(),
                   *REMAP_FIELDS.values(), *RETIRED_FIELDS.values(), "slowdown_margin_c", "shutdown_margin_c",
                   "max_operating_margin_c", "memory_margin_c", "power_limit_reduction_w",
                   "ecc_volatile_correctable", "ecc_volatile_uncorrectable", "ecc_aggregate_correctable",
                   "ecc_aggregate_uncorrectable", "sram_aggregate_uncorrectable", "ecc_uncorrectable"}),
    ),
    "nccl": ParserSpec(
        parse_nccl,
        frozenset({"watchdog_timeout", *NCCL_ERRORS, "ib_completion_error", "ib_error", "socket_interface",
                   "connect_failed", "shm_exhausted"}),
        frozenset({"seq_num", "op_type", "numel_in", "numel_out", "timeout_ms", "timeout_min", "ran_for_ms", "rank",
                   "last_enqueued", "last_completed", "error", "nccl_version", "peer", "ib_status", "opcode",
                   "vendor_err", "iface", "local_iface", "source", "shm_request_bytes"}),
    ),
    "pcie_link": ParserSpec(
        parse_pcie_link, frozenset({"lspci", "dmesg", "nvidia_smi"}),
        frozenset({"speed_gts", "width", "cap_speed_gts", "cap_width", "gen", "cap_gen", "speed_downgraded",
                   "width_downgraded", "available_gbps"}),
    ),
    "driver": ParserSpec(
        parse_driver, frozenset({*DRIVER_ERRORS, "versions"}),
        frozenset({"nvml_library_version", "driver_cuda_version", "driver_version", "runtime_cuda_version"}),
    ),
    "symptoms": ParserSpec(
        parse_symptoms, frozenset({"smi_table", "gpu_util", "temperature", "setting", "bandwidth"}),
        frozenset({"gpu_util_percent", "gpu_util_low_percent", "gpu_util_high_percent", "temperature_c", "power_draw_w",
                   "power_cap_w", "dataloader_workers", "busbw_gbs", "nics_per_node", "nic_gbps", "interconnect", "method", "mfu_percent", "speedup",
                   "nodes"}),
    ),
}  # fmt: skip
