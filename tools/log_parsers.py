"""Pure parsers that pull structured facts out of pasted GPU logs and symptom descriptions.

Each parser takes the whole text and returns ``ParsedRecord``s (a kind, numbers/strings,
and the line they came from). They never raise: unknown or mangled input gives fewer records.
Rules in ``knowledge/troubleshooting/*.yaml`` name a parser and put conditions on its fields;
``PARSERS`` declares which fields each parser can produce so the rule loader can reject typos.

Sizes are reported in MiB because PyTorch prints binary units (KiB/MiB/GiB).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pydantic import BaseModel, Field, field_validator

MAX_RECORDS = 200  # per parser; a log with 10 000 identical Xid lines tells nothing more after the first few
EXCERPT_CHARS = 300

Value = float | str


class ParsedRecord(BaseModel):
    """One fact found in the text, with where it was found."""

    parser: str = Field(description="Name of the parser that produced it, e.g. 'pytorch_oom'.")
    kind: str = Field(description="What was found, e.g. 'device_oom', 'dmesg', 'watchdog_timeout'.")
    line: int = Field(description="1-based line number in the text that was parsed.")
    excerpt: str = Field(description="The matched line, trimmed.")
    values: dict[str, Value] = Field(default_factory=dict, description="Parsed numbers and labels.")
    field_lines: dict[str, int] = Field(
        default_factory=dict, description="Line of individual fields when they come from different lines."
    )

    @field_validator("values")
    @classmethod
    def _finite_only(cls, values: dict[str, Value]) -> dict[str, Value]:
        # A mangled log can hold a 400-digit "size" that float() turns into inf (and inf - inf into
        # NaN): that is not a reading, so it is dropped like any other unparseable field.
        return {key: value for key, value in values.items() if not isinstance(value, float) or math.isfinite(value)}


class LineLocator:
    """Line numbers and line text for match offsets; cheap when offsets arrive in increasing order."""

    def __init__(self, text: str):
        self.text = text
        self._pos = 0
        self._line = 1

    def line(self, pos: int) -> int:
        if pos < self._pos:  # out of order: count again from the start
            self._pos, self._line = 0, 1
        self._line += self.text.count("\n", self._pos, pos)
        self._pos = pos
        return self._line

    def excerpt(self, pos: int) -> str:
        start = self.text.rfind("\n", 0, pos) + 1
        end = self.text.find("\n", pos)
        return self.text[start : end if end >= 0 else len(self.text)].strip()[:EXCERPT_CHARS]

    def record(self, parser: str, kind: str, pos: int, values: dict[str, Value]) -> ParsedRecord:
        return ParsedRecord(parser=parser, kind=kind, line=self.line(pos), excerpt=self.excerpt(pos), values=values)


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def _put(values: dict[str, Value], key: str, value: Value | None) -> None:
    if value is not None:
        values[key] = value


def lines_with(text: str, literals: tuple[str, ...], limit: int = MAX_RECORDS) -> list[tuple[int, int]]:
    """(start, end) offsets of the first ``limit`` distinct lines containing any of ``literals``, in order.

    ``str.find`` skips through a 200 KB log far faster than a regex that starts with an alternation or a
    character class, so parsers find candidate lines this way and run their regex on those lines only.
    """
    starts: set[int] = set()
    for literal in literals:  # the first `limit` lines overall are among the first `limit` lines of each literal
        pos = text.find(literal)
        for _ in range(limit):
            if pos < 0:
                break
            starts.add(text.rfind("\n", 0, pos) + 1)
            newline = text.find("\n", pos)
            if newline < 0:
                break
            pos = text.find(literal, newline)
    spans = []
    for start in sorted(starts)[:limit]:
        end = text.find("\n", start)
        spans.append((start, end if end >= 0 else len(text)))
    return spans


# --------------------------------------------------------------------------- PyTorch / CUDA OOM

_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(bytes|B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)\b")
# PyTorch's format_size is binary; wrappers that print "GB" mean the same binary figure.
_TO_MIB = {"bytes": 1 / 2**20, "B": 1 / 2**20, "KiB": 1 / 1024, "KB": 1 / 1024, "MiB": 1, "MB": 1,
           "GiB": 1024, "GB": 1024, "TiB": 2**20, "TB": 2**20}  # fmt: skip

_OOM_ANCHORS = ("out of memory", "Out of memory", "Out Of Memory", "OUT OF MEMORY", "OUT_OF_MEMORY", "OutOfMemory",
                "cudaErrorMemoryAllocation")
# What a size means, read from the words just before or just after it in the message. Every era is covered:
# 2018 "X total capacity; X already allocated; X free; X cached)", 1.4+ "X reserved in total by PyTorch",
# 2.1+ "total capacity of X (2.1 printed 'capacty') of which X is free … X is allocated by PyTorch …".
_SIZE_BEFORE = (("Tried to allocate ", "requested_mib"), ("total capacity of ", "total_mib"),
                ("total capacty of ", "total_mib"), ("of which ", "free_mib"), ("this process has ", "this_process_mib"))
_SIZE_AFTER = ((" total capacity", "total_mib"), (" already allocated", "allocated_mib"),
               (" is allocated by PyTorch", "allocated_mib"), (" is reserved by PyTorch but unallocated",
               "reserved_unallocated_mib"), (" reserved in total by PyTorch", "reserved_mib"),
               (" cached)", "cached_mib"), (" free", "free_mib"))  # fmt: skip
_OTHER_PROCESS_BEFORE = re.compile(r"Process \d+ has $")
_OOM_GPU = re.compile(r"\(GPU (\d+);|GPU (\d+) has a total capac")
_HOST_OOM = re.compile(r"Killed process|oom-kill|oom_reaper|invoked oom-killer|Out of memory: Kill")
_OOM_WINDOW = 1500


def _oom_format(window: str) -> str:
    if "total capacity of" in window or "total capacty of" in window:
        return "2.1+"
    if "reserved in total by PyTorch" in window:
        return "1.4-2.0"
    if " cached)" in window:
        return "1.0-1.3"
    if "cuda runtime error (2)" in window or "THCudaCheck FAIL" in window:
        return "0.4"
    return "other"


def parse_pytorch_oom(text: str) -> list[ParsedRecord]:
    """CUDA/HIP out-of-memory messages of every PyTorch era, plus the Linux host OOM killer."""
    locator = LineLocator(text)
    spans = lines_with(text, _OOM_ANCHORS)
    records: list[ParsedRecord] = []
    parsed: dict[str, dict[str, Value]] = {}  # multi-rank logs repeat the same message many times
    for index, (start, line_end) in enumerate(spans):
        # The message's fields may wrap onto following lines; stop before the next OOM message.
        next_start = spans[index + 1][0] if index + 1 < len(spans) else len(text)
        window = text[start : max(line_end, min(next_start, start + _OOM_WINDOW))]
        if _HOST_OOM.search(text, start, line_end):
            records.append(locator.record("pytorch_oom", "host_oom", start, {"format": "linux"}))
        else:
            if window not in parsed:
                parsed[window] = _oom_values(window)
            records.append(locator.record("pytorch_oom", "device_oom", start, dict(parsed[window])))
    return records


def _oom_values(window: str) -> dict[str, Value]:
    window = " ".join(window.split())  # terminals and log shippers wrap long messages mid-sentence
    values: dict[str, Value] = {"format": _oom_format(window)}
    others: list[float] = []
    for match in _SIZE.finditer(window):
        mib = round(float(match.group(1)) * _TO_MIB[match.group(2)], 3)
        before = window[max(0, match.start() - 30) : match.start()]
        field = next((name for words, name in _SIZE_BEFORE if before.endswith(words)), None)
        if field is None:
            field = next((name for words, name in _SIZE_AFTER if window.startswith(words, match.end())), None)
        if field is None and _OTHER_PROCESS_BEFORE.search(before):
            others.append(mib)
        elif field is not None:
            values.setdefault(field, mib)
    cached = values.pop("cached_mib", None)
    if "reserved_unallocated_mib" not in values:
        if isinstance(cached, float):
            values["reserved_unallocated_mib"] = cached
        elif isinstance(values.get("reserved_mib"), float) and isinstance(values.get("allocated_mib"), float):
            values["reserved_unallocated_mib"] = round(float(values["reserved_mib"]) - float(values["allocated_mib"]), 3)
    gpu = _OOM_GPU.search(window)
    if gpu:
        values["gpu_index"] = float(gpu.group(1) or gpu.group(2))
    if others:
        values["other_processes_mib"] = round(sum(others), 3)
        values["other_process_count"] = float(len(others))
    return values


# --------------------------------------------------------------------------- Xid (dmesg / syslog)

# "\b" before Xid keeps NVSwitch "SXid" lines out; mentions such as "Xid 79" in prose count too.
_XID = re.compile(
    r"\b[Xx][Ii][Dd]\b(?:\s*\((?P<pci>[^)\n]{1,40})\))?"  # "Xid (PCI:0000:3b:00)" in dmesg; absent in prose
    r"\s*(?:[:#=]|errors?|code|错误|事件)*\s*(?P<code>\d{1,3})(?![\d.])"
)
_XID_PID = re.compile(r"pid=(\d+)")
_XID_NAME = re.compile(r"name=([^,\s]+)")


def parse_xid(text: str) -> list[ParsedRecord]:
    """NVRM Xid lines (``NVRM: Xid (PCI:0000:3b:00): 79, pid=…, …``) and Xid codes mentioned in prose."""
    locator = LineLocator(text)
    records: list[ParsedRecord] = []
    for start, end in lines_with(text, ("Xid", "XID", "xid")):
        for match in _XID.finditer(text, start, end):
            values: dict[str, Value] = {"xid": float(match.group("code"))}
            if match.group("pci"):
                values["pci"] = match.group("pci").removeprefix("PCI:")
            for key, pattern in (("pid", _XID_PID), ("process", _XID_NAME)):
                found = pattern.search(text, match.end(), end)
                if found:
                    values[key] = float(found.group(1)) if key == "pid" else found.group(1)
            kind = "dmesg" if "pci" in values or text.find("NVRM", start, end) >= 0 else "mention"
            records.append(locator.record("xid", kind, match.start(), values))
    return records[:MAX_RECORDS]


# --------------------------------------------------------------------------- nvidia-smi -q

_SMI_GUARD = ("Current Temp", "Throttle Reasons", "Event Reasons", "ECC Errors", "Remapped Rows", "Retired Pages")
_SMI_GPU_HEADER = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$")
_REASON_FIELDS = {
    "idle": "gpu_idle", "applications clocks setting": "applications_clocks", "sw power cap": "sw_power_cap",
    "hw slowdown": "hw_slowdown", "hw thermal slowdown": "hw_thermal_slowdown",
    "hw power brake slowdown": "hw_power_brake_slowdown", "sync boost": "sync_boost",
    "sw thermal slowdown": "sw_thermal_slowdown",
}  # fmt: skip
_TEMPERATURE_FIELDS = {
    "gpu current temp": "gpu_temp_c", "gpu shutdown temp": "shutdown_temp_c", "gpu slowdown temp": "slowdown_temp_c",
    "gpu max operating temp": "max_operating_temp_c", "memory current temp": "memory_temp_c",
    "memory max operating temp": "memory_max_temp_c",
    # Newer drivers on Hopper/Ada print "T.Limit" rows instead: the current headroom ("GPU T.Limit Temp")
    # and each threshold as a T.Limit value (slowdown at -2 C means slowdown when headroom reaches -2).
    "gpu t.limit temp": "tlimit_c", "gpu shutdown t.limit temp": "shutdown_tlimit_c",
    "gpu slowdown t.limit temp": "slowdown_tlimit_c", "gpu max operating t.limit temp": "max_operating_tlimit_c",
}  # fmt: skip
_POWER_FIELDS = {
    "power draw": "power_draw_w", "average power draw": "power_draw_w", "current power limit": "power_limit_w",
    "enforced power limit": "power_limit_w", "power limit": "power_limit_w",
    "default power limit": "default_power_limit_w",
}  # fmt: skip
_REMAP_FIELDS = {
    "correctable error": "remap_correctable", "uncorrectable error": "remap_uncorrectable",
    "pending": "remap_pending", "remapping failure occurred": "remap_failure",
}  # fmt: skip
_RETIRED_FIELDS = {
    "single bit ecc": "retired_sbe", "double bit ecc": "retired_dbe",
    "pending page blacklist": "retired_pending", "pending page retirement": "retired_pending",
}  # fmt: skip
_LEADING_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?")


def _smi_value(raw: str) -> float | None:
    """'Active' → 1, 'Not Active' → 0, 'Yes'/'No', '35 C' → 35, '74.71 W' → 74.71, 'N/A' → None."""
    lowered = raw.strip().lower()
    if lowered in ("active", "yes"):
        return 1.0
    if lowered in ("not active", "no"):
        return 0.0
    number = _LEADING_NUMBER.match(lowered)
    return float(number.group()) if number else None


@dataclass
class _SmiGpu:
    bus: str
    line: int
    values: dict[str, Value]
    field_lines: dict[str, int]
    ecc: dict[tuple[str, str, str], float]  # (volatile|aggregate, parent section, key) → count


def _section_kind(name: str, parent: str | None) -> str | None:
    """Which of our field tables a ``nvidia-smi -q`` section feeds; None for sections we ignore."""
    if name.startswith("clocks") and name.endswith("reasons"):  # "... Reasons Counters" holds durations: ignored
        return "reasons"
    if name == "temperature":
        return "temperature"
    if "power readings" in name:
        return "power"
    if name == "remapped rows":
        return "remap"
    if name == "retired pages":
        return "retired"
    if parent == "retired":
        return "retired:" + name
    if name == "ecc errors":
        return "ecc"
    if parent == "ecc" and name in ("volatile", "aggregate"):
        return f"ecc:{name}"
    if parent is not None and parent.startswith("ecc:"):
        return parent.split("/")[0] + "/" + name
    return None


def parse_nvidia_smi_query(text: str) -> list[ParsedRecord]:
    """``nvidia-smi -q`` output: clocks event/throttle reasons, temperatures vs limits, power, ECC, row remapping.

    Works with both the pre-R535 "Clocks Throttle Reasons" and the newer "Clocks Event Reasons" headings.
    One record per GPU block (or one record when the paste has no ``GPU 0000:…`` header).
    """
    if not any(marker in text for marker in _SMI_GUARD):
        return []
    lines = text.split("\n")
    gpus: list[_SmiGpu] = []
    stack: list[tuple[int, str, str | None]] = []  # (indent, section name, section kind)
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        if not stripped:
            continue
        indent = len(line) - len(stripped)
        if indent == 0 and line.startswith("GPU "):
            header = _SMI_GPU_HEADER.match(line)
            if header:
                gpus.append(_SmiGpu(header.group(1), number, {}, {}, {}))
                stack = []
                continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key, colon, raw = stripped.partition(":")
        key = key.strip().lower()
        section = stack[-1][2] if stack else None
        if not colon:
            stack.append((indent, key, _section_kind(key, section)))
        elif section is not None:
            if not gpus:
                gpus.append(_SmiGpu("unknown", number, {}, {}, {}))
            _smi_store(gpus[-1], number, section, stack[-1][1], key, raw)
    records = []
    for gpu in gpus[:MAX_RECORDS]:
        values = _smi_derive(gpu)
        if len(values) > 1:  # more than the bus id: the block held something we understand
            excerpt = lines[gpu.line - 1].strip()[:EXCERPT_CHARS]
            records.append(ParsedRecord(parser="nvidia_smi_query", kind="gpu", line=gpu.line, excerpt=excerpt,
                                        values=values, field_lines=gpu.field_lines))  # fmt: skip
    return records


_SECTION_TABLES = {"reasons": _REASON_FIELDS, "temperature": _TEMPERATURE_FIELDS, "power": _POWER_FIELDS,
                   "remap": _REMAP_FIELDS, "retired": _RETIRED_FIELDS}  # fmt: skip


def _smi_store(gpu: _SmiGpu, number: int, section: str, parent: str, key: str, raw: str) -> None:
    value = _smi_value(raw)
    if value is None:
        return
    if section.startswith("ecc:"):
        scope, _, subsection = section[4:].partition("/")
        gpu.ecc[(scope, subsection, key)] = value
        uncorrectable = "uncorrectable" in key or subsection == "double bit"
        if value > 0:  # evidence points at the first non-zero counter of each class
            gpu.field_lines.setdefault(f"ecc_{scope}_{'un' if uncorrectable else ''}correctable", number)
        return
    if section.startswith("retired:") and key == "retirement count":  # R450+ nests counts under "Single Bit ECC"
        section, key = "retired", parent
    name = _SECTION_TABLES.get(section, {}).get(key)
    if name and name not in gpu.values:
        gpu.values[name] = value
        gpu.field_lines[name] = number


def _ecc_totals(ecc: dict[tuple[str, str, str], float], scope: str) -> tuple[float | None, float | None, float]:
    """(correctable, uncorrectable, SRAM uncorrectable) for one scope, for old (Single/Double Bit) and new layouts."""
    entries = {(parent, key): v for (s, parent, key), v in ecc.items() if s == scope}
    if not entries:
        return None, None, 0.0
    if any(key == "total" for _, key in entries):
        correctable = entries.get(("single bit", "total"))
        uncorrectable = entries.get(("double bit", "total"))
        return correctable, uncorrectable, 0.0
    correctable = sum(v for (_, k), v in entries.items() if "correctable" in k and "uncorrectable" not in k)
    uncorrectable = sum(v for (_, k), v in entries.items() if "uncorrectable" in k)
    sram = sum(v for (_, k), v in entries.items() if "uncorrectable" in k and "sram" in k)
    return correctable, uncorrectable, sram


def _smi_derive(gpu: _SmiGpu) -> dict[str, Value]:
    values: dict[str, Value] = {"gpu_bus": gpu.bus, **gpu.values}

    def margin(name: str, minuend: str, subtrahend: str) -> None:
        if isinstance(values.get(minuend), float) and isinstance(values.get(subtrahend), float):
            values[name] = float(values[minuend]) - float(values[subtrahend])
            current = minuend if minuend == "tlimit_c" else subtrahend  # point evidence at the live reading
            gpu.field_lines[name] = gpu.field_lines[current]

    for name in ("slowdown", "shutdown", "max_operating"):
        margin(f"{name}_margin_c", f"{name}_temp_c", "gpu_temp_c")
        if f"{name}_margin_c" not in values:
            margin(f"{name}_margin_c", "tlimit_c", f"{name}_tlimit_c")
    margin("memory_margin_c", "memory_max_temp_c", "memory_temp_c")
    margin("power_limit_reduction_w", "default_power_limit_w", "power_limit_w")
    for scope in ("volatile", "aggregate"):
        correctable, uncorrectable, sram = _ecc_totals(gpu.ecc, scope)
        _put(values, f"ecc_{scope}_correctable", correctable)
        _put(values, f"ecc_{scope}_uncorrectable", uncorrectable)
        if scope == "aggregate" and sram:
            values["sram_aggregate_uncorrectable"] = sram
            gpu.field_lines["sram_aggregate_uncorrectable"] = gpu.field_lines["ecc_aggregate_uncorrectable"]
    # Volatile counts reset at driver reload and aggregate ones persist, so the larger one is the total seen.
    counts = {s: values.get(f"ecc_{s}_uncorrectable") for s in ("volatile", "aggregate")}
    known = {s: float(v) for s, v in counts.items() if isinstance(v, float)}
    if known:
        values["ecc_uncorrectable"] = max(known.values())
        lines = [gpu.field_lines.get(f"ecc_{scope}_uncorrectable") for scope in known]
        if any(lines):
            gpu.field_lines["ecc_uncorrectable"] = next(line for line in lines if line)
    return values


# --------------------------------------------------------------------------- NCCL / distributed

_WATCHDOG = re.compile(
    r"Watchdog caught collective operation timeout: WorkNCCL\((?P<body>(?:[^()\n]|\([^()\n]*\))*)\)"
    r"(?: ran for (?P<ran>\d+) milliseconds)?"
)
_WATCHDOG_FIELDS = {"SeqNum": "seq_num", "NumelIn": "numel_in", "NumelOut": "numel_out", "Timeout(ms)": "timeout_ms"}
_RANK = re.compile(r"\bRank (\d+)\b|\brank(?:\s*=\s*|\s+)(\d+)\b")
_LAST_WORK = re.compile(r"last enqueued NCCL work: (-?\d+), last completed NCCL work: (-?\d+)")
_NCCL_VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
# kind → literals that identify it (both the enum name and the human message NCCL prints)
_NCCL_ERRORS: dict[str, tuple[str, ...]] = {
    "system_error": ("ncclSystemError", "unhandled system error"),
    "cuda_error": ("ncclUnhandledCudaError", "unhandled cuda error"),
    "internal_error": ("ncclInternalError", "internal error - please report this issue"),
    "invalid_usage": ("ncclInvalidUsage", "invalid usage (run with NCCL_DEBUG=WARN"),
    "remote_error": ("ncclRemoteError", "remote process exited or there was a network error"),
    "no_interface": ("no socket interface found", "No usable listening interface"),
    "ib_not_found": ("NET/IB : No device found", "NET/IB: No device found"),
}
_IB_COMPLETION = re.compile(
    r"NET/IB\s*:\s*Got completion from peer (?P<peer>\S+) with (?:error|status)\s*[=:]?\s*(?P<status>\d+),?"
    r"\s*opcode\s*[=:]?\s*(?P<opcode>\d+)(?:,?\s*len\s*[=:]?\s*(?P<len>\d+))?(?:,?\s*vendor err\s*[=:]?\s*(?P<vendor>\d+))?"
)
_IB_OTHER_LITERALS = ("NET/IB", "ibv_", "IBV_WC_", "local catastrophic error", "port error")
_IB_OTHER = re.compile(
    r"NET/IB\s*:.*(?:[Ee]rror|[Ff]ailed|[Uu]nable)|ibv_\w+ failed|IBV_WC_\w+_ERR|catastrophic|port error"
)
_SOCKET_USING = re.compile(r"(?:NET/Socket\s*:\s*Using \[\d+\]|Bootstrap\s*:\s*Using )(?P<iface>[\w.@-]+):(?P<addr>\S+)")
_CONNECT_LITERALS = ("socketStartConnect", "socketConnect", "Connect to ", "connectSocket")
_CONNECT_FAILED = re.compile(r"[Cc]onnection refused|timed out|No route to host|failed")
# Interfaces that only reach this host or a container bridge: picking one breaks multi-node NCCL.
_LOCAL_IFACES = re.compile(r"^(?:lo|docker\d*|virbr\d*|veth\w*|br-\w+|cni\d*|flannel[.\w]*|cali\w+|podman\d*)$")
# (source, literal that finds the line, regex that confirms it; a "size" group is the failed shm request)
_SHM_SIGNS = [
    ("nccl", "Error while creating shared memory segment", re.compile(r"segment /dev/shm/\S+ \(size (?P<size>\d+)\)")),
    ("nccl", "ncclShmOpen", None),
    ("nccl", "shm_open failed", None),
    ("dataloader", "is killed by signal: Bus error", re.compile(r"DataLoader worker")),
    ("dataloader", "caused by insufficient shared memory", None),
    ("dataloader", "unable to write to file </torch_", None),
    ("dataloader", "unable to mmap", re.compile(r"from file <?/?torch_")),
    ("shm", "No space left on device", re.compile(r"/dev/shm")),
]


def parse_nccl(text: str) -> list[ParsedRecord]:
    """NCCL watchdog timeouts, ncclSystemError/CudaError/InternalError/…, IB/RoCE completion errors,
    the network interface NCCL picked, connection failures and /dev/shm exhaustion."""
    found: list[tuple[int, str, dict[str, Value]]] = []
    for start, end in lines_with(text, ("Watchdog caught collective operation timeout",)):
        match = _WATCHDOG.search(text, start, end)
        if match:
            found.append((match.start(), "watchdog_timeout", _watchdog_values(text, match, start)))
    for kind, literals in _NCCL_ERRORS.items():
        for start, _ in lines_with(text, literals, 20):
            values: dict[str, Value] = {"error": kind}
            version = _NCCL_VERSION.search(text, start, start + 600)
            if version:
                values["nccl_version"] = version.group(1)
            found.append((start, kind, values))
    for start, end in lines_with(text, ("Got completion from peer",)):
        match = _IB_COMPLETION.search(text, start, end)
        if match:
            values = {"peer": match.group("peer"), "ib_status": float(match.group("status")),
                      "opcode": float(match.group("opcode"))}  # fmt: skip
            if match.group("vendor"):
                values["vendor_err"] = float(match.group("vendor"))
            found.append((start, "ib_completion_error", values))
    if not any(kind == "ib_completion_error" for _, kind, _ in found):
        for start, end in lines_with(text, _IB_OTHER_LITERALS, 20):
            if _IB_OTHER.search(text, start, end) and "No device found" not in text[start:end]:
                found.append((start, "ib_error", {}))
    for start, end in lines_with(text, ("Using [", "Bootstrap : Using", "Bootstrap: Using"), 20):
        match = _SOCKET_USING.search(text, start, end)
        if match:
            iface = match.group("iface")
            local = 1.0 if _LOCAL_IFACES.match(iface) or match.group("addr").startswith("127.") else 0.0
            found.append((start, "socket_interface", {"iface": iface, "local_iface": local}))
    for start, end in lines_with(text, _CONNECT_LITERALS, 20):
        if _CONNECT_FAILED.search(text, start, end):
            found.append((start, "connect_failed", {}))
    for source, literal, confirm in _SHM_SIGNS:
        for start, end in lines_with(text, (literal,), 20):
            match = confirm.search(text, start, end) if confirm else None
            if confirm is None or match:
                values = {"source": source}
                if match and "size" in match.groupdict():
                    values["shm_request_bytes"] = float(match.group("size"))
                found.append((start, "shm_exhausted", values))
    found.sort(key=lambda item: item[0])
    locator = LineLocator(text)
    return [locator.record("nccl", kind, pos, values) for pos, kind, values in found[:MAX_RECORDS]]


def _watchdog_values(text: str, match: re.Match[str], line_start: int) -> dict[str, Value]:
    values: dict[str, Value] = {}
    for part in match.group("body").split(","):
        key, _, raw = part.strip().partition("=")
        if key == "OpType":
            values["op_type"] = raw.strip()
        elif key in _WATCHDOG_FIELDS:
            _put(values, _WATCHDOG_FIELDS[key], _number(raw.strip()))
    if match.group("ran"):
        values["ran_for_ms"] = float(match.group("ran"))
    if isinstance(values.get("timeout_ms"), float):
        values["timeout_min"] = round(float(values["timeout_ms"]) / 60000, 2)
    rank = _RANK.search(text, line_start, match.start())
    if rank:
        values["rank"] = float(rank.group(1) or rank.group(2))
    last = _LAST_WORK.search(text, match.end(), match.end() + 2000)
    if last:
        values["last_enqueued"], values["last_completed"] = float(last.group(1)), float(last.group(2))
    return values


# --------------------------------------------------------------------------- PCIe link

_GT_PER_GEN = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
_LNKCAP = re.compile(r"LnkCap:\s*Port #\d+, Speed (?P<speed>[\d.]+)GT/s, Width x(?P<width>\d+)")
_LNKSTA = re.compile(
    r"LnkSta:\s*Speed (?P<speed>[\d.]+)GT/s(?: \((?P<speed_flag>downgraded|ok)\))?,"
    r" Width x(?P<width>\d+)(?: \((?P<width_flag>downgraded|ok)\))?"
)
_DMESG_LIMITED = re.compile(
    r"(?P<avail>[\d.]+) Gb/s available PCIe bandwidth, limited by (?P<speed>[\d.]+) GT/s PCIe x(?P<width>\d+) link"
    r"(?: at (?P<at>\S+))? \(capable of (?P<cap_bw>[\d.]+) Gb/s with (?P<cap_speed>[\d.]+) GT/s PCIe x(?P<cap_width>\d+)"
)
_SMI_GEN = re.compile(r"PCIe Generation\s*\n\s*Max\s*:\s*(?P<max>\d)\s*\n\s*Current\s*:\s*(?P<cur>\d)")
_SMI_WIDTH = re.compile(r"Link Width\s*\n\s*Max\s*:\s*(?P<max>\d+)x\s*\n\s*Current\s*:\s*(?P<cur>\d+)x")


def _link_values(speed: float | None, width: float | None, cap_speed: float | None, cap_width: float | None,
                 flags: tuple[str | None, str | None] = (None, None)) -> dict[str, Value]:  # fmt: skip
    values: dict[str, Value] = {}
    for key, value in (("speed_gts", speed), ("width", width), ("cap_speed_gts", cap_speed), ("cap_width", cap_width)):
        _put(values, key, value)
    _put(values, "gen", float(_GT_PER_GEN[speed]) if speed in _GT_PER_GEN else None)
    _put(values, "cap_gen", float(_GT_PER_GEN[cap_speed]) if cap_speed in _GT_PER_GEN else None)
    speed_down = flags[0] == "downgraded" or (speed is not None and cap_speed is not None and speed < cap_speed)
    width_down = flags[1] == "downgraded" or (width is not None and cap_width is not None and width < cap_width)
    values["speed_downgraded"], values["width_downgraded"] = float(speed_down), float(width_down)
    return values


def parse_pcie_link(text: str) -> list[ParsedRecord]:
    """PCIe link state from ``lspci -vv`` (LnkCap/LnkSta), dmesg "limited by" lines and ``nvidia-smi -q``."""
    found: list[tuple[int, str, dict[str, Value]]] = []
    cap: re.Match[str] | None = None  # LnkSta is compared with the LnkCap printed just before it
    for start, end in lines_with(text, ("LnkCap:", "LnkSta:")):
        match = _LNKCAP.search(text, start, end)
        if match:
            cap = match
            continue
        match = _LNKSTA.search(text, start, end)
        if match:
            cap_speed, cap_width = (_number(cap.group("speed")), _number(cap.group("width"))) if cap else (None, None)
            values = _link_values(_number(match.group("speed")), _number(match.group("width")), cap_speed, cap_width,
                                  (match.group("speed_flag"), match.group("width_flag")))  # fmt: skip
            found.append((start, "lspci", values))
            cap = None
    for start, end in lines_with(text, ("available PCIe bandwidth, limited by",)):
        match = _DMESG_LIMITED.search(text, start, end)
        if match:
            values = _link_values(*(_number(match.group(k)) for k in ("speed", "width", "cap_speed", "cap_width")))
            values["available_gbps"] = float(match.group("avail"))
            found.append((start, "dmesg", values))
    if "Link Width" in text:
        speeds = {g: s for s, g in _GT_PER_GEN.items()}
        for gen, width in zip(_SMI_GEN.finditer(text), _SMI_WIDTH.finditer(text)):
            values = _link_values(speeds.get(int(gen.group("cur"))), _number(width.group("cur")),
                                  speeds.get(int(gen.group("max"))), _number(width.group("max")))  # fmt: skip
            found.append((width.start(), "nvidia_smi", values))
    found.sort(key=lambda item: item[0])
    locator = LineLocator(text)
    return [locator.record("pcie_link", kind, pos, values) for pos, kind, values in found[:MAX_RECORDS]]


# --------------------------------------------------------------------------- driver / CUDA versions

_DRIVER_ERRORS: dict[str, tuple[str, ...]] = {
    "nvml_mismatch": ("Failed to initialize NVML: Driver/library version mismatch",),
    "driver_too_old": ("CUDA driver version is insufficient for CUDA runtime version", "cudaErrorInsufficientDriver",
                       "CUDA_ERROR_INSUFFICIENT_DRIVER", "The NVIDIA driver on your system is too old"),
    "compat_unsupported": ("forward compatibility was attempted on non supported HW",),
    "no_driver": ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
                  "Found no NVIDIA driver on your system", "no CUDA-capable device is detected"),
}  # fmt: skip
_NVML_LIB = re.compile(r"NVML library version: ([\d.]+)")
_FOUND_VERSION = re.compile(r"too old \(found version (\d{4,5})\)")
_SMI_HEADER = re.compile(r"Driver Version: ([\d.]+)\s+CUDA Version: (\d+\.\d+)")
_TORCH_CUDA = re.compile(r"\+cu(\d{2})(\d)\b|CUDA runtime(?: version)?[:\s]+(\d{2})\.(\d)\b")


def parse_driver(text: str) -> list[ParsedRecord]:
    """Driver/library mismatches, drivers older than the CUDA runtime, and the versions printed alongside."""
    found: list[tuple[int, str, dict[str, Value]]] = []
    for kind, literals in _DRIVER_ERRORS.items():
        for start, _ in lines_with(text, literals, 20):
            values: dict[str, Value] = {}
            lib = _NVML_LIB.search(text, start, start + 400)
            if lib:
                values["nvml_library_version"] = lib.group(1)
            version = _FOUND_VERSION.search(text, start, start + 400)
            if version:  # the driver API reports 11040 for CUDA 11.4
                code = int(version.group(1))
                values["driver_cuda_version"] = code // 1000 + (code % 1000) / 100
            found.append((start, kind, values))
    header = _SMI_HEADER.search(text) if "CUDA Version:" in text else None
    if header:
        values = {"driver_version": header.group(1), "driver_cuda_version": float(header.group(2))}
        runtime = _TORCH_CUDA.search(text) if "+cu" in text or "CUDA runtime" in text else None
        if runtime:
            major, minor = runtime.group(1, 2) if runtime.group(1) else runtime.group(3, 4)
            values["runtime_cuda_version"] = float(f"{int(major)}.{minor}")
        found.append((header.start(), "versions", values))
    found.sort(key=lambda item: item[0])
    locator = LineLocator(text)
    return [locator.record("driver", kind, pos, values) for pos, kind, values in found[:MAX_RECORDS]]


# --------------------------------------------------------------------------- symptoms in prose

_PERCENT = r"(\d{1,3}(?:\.\d+)?)\s*[%％]"
_UTIL_LITERALS = ("利用率", "使用率", "util", "Util", "UTIL")
_UTIL_PATTERNS = [
    re.compile(r"(?:利用率|使用率)[^\d\n%％。，,]{0,12}?" + _PERCENT),
    re.compile(r"(?i)\butil(?:i[sz]ation)?\b[^\d\n%]{0,24}?" + _PERCENT),
    re.compile(r"(?i)" + _PERCENT + r"\s*(?:的)?\s*(?:GPU\s*)?(?:util(?:i[sz]ation)?\b|利用率|使用率)"),
]
# The default nvidia-smi table row: "| N/A 34C P0 61W / 400W | 1MiB / 81920MiB | 30% Default |"
_SMI_TABLE_ROW = re.compile(
    r"\|\s*(?:\d+%|N/A)\s+(?P<temp>\d+)C\s+P\d+\s+(?P<draw>\d+)W\s*/\s*(?P<cap>\d+)W\s*\|[^|\n]*MiB\s*\|\s*(?P<util>\d+)%"
)
_TEMPERATURE_LITERALS = ("温度", "temp", "Temp", "TEMP", "°", "℃", "度")
# "    GPU Max Operating Temp   : 85 C": nvidia-smi -q lines are limits or readings for the -q parser, not prose.
_SMI_QUERY_LINE = re.compile(r"\s+\S[^:\n]*?\s{2,}:\s")
_TEMPERATURE_PATTERNS = [
    re.compile(
        r"(?i)(?:温度|temp(?:erature)?s?\b)[^\d\n。，,]{0,15}?(\d{2,3})(?:\.\d+)?\s*(?:°\s*C|℃|摄氏度|度|°|C\b)?"
    ),
    re.compile(r"(?i)(?<![\d.])(\d{2,3})(?:\.\d+)?\s*(?:°\s*C|℃|摄氏度|度(?!量))"),
]


def parse_symptoms(text: str) -> list[ParsedRecord]:
    """Numbers in a user's description: GPU utilisation ("利用率只有30%") and temperature ("90度", "90°C")."""
    # Keyed by (kind, where the number is): "temperature 90°C" matches both temperature patterns once.
    found: dict[tuple[str, int], tuple[int, dict[str, Value]]] = {}
    for start, end in lines_with(text, ("W |", "W|"), 64):
        for match in _first(_SMI_TABLE_ROW.finditer(text, start, end)):
            found[("smi_table", match.start())] = (match.start(), {
                "gpu_util_percent": float(match.group("util")), "temperature_c": float(match.group("temp")),
                "power_draw_w": float(match.group("draw")), "power_cap_w": float(match.group("cap")),
            })  # fmt: skip
    for start, end in lines_with(text, _UTIL_LITERALS, 20):
        for pattern in _UTIL_PATTERNS:
            for match in _first(pattern.finditer(text, start, end)):
                value = _number(match.group(1))
                if value is not None and value <= 100:
                    found.setdefault(("gpu_util", match.start(1)), (match.start(), {"gpu_util_percent": value}))
    for start, end in lines_with(text, _TEMPERATURE_LITERALS, 20):
        if _SMI_QUERY_LINE.match(text, start, end):
            continue
        for pattern in _TEMPERATURE_PATTERNS:
            for match in _first(pattern.finditer(text, start, end)):
                value = _number(match.group(1))
                if value is not None and 20 <= value <= 130:
                    found.setdefault(("temperature", match.start(1)), (match.start(), {"temperature_c": value}))
    locator = LineLocator(text)
    hits = sorted(((pos, kind, values) for (kind, _), (pos, values) in found.items()), key=lambda hit: hit[:2])
    return [locator.record("symptoms", kind, pos, values) for pos, kind, values in hits[:MAX_RECORDS]]


def _first(matches: Iterator[re.Match[str]], limit: int = 20) -> Iterator[re.Match[str]]:
    """At most ``limit`` matches: a pasted wall of text must not turn into thousands of records."""
    return itertools.islice(matches, limit)


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
        parse_nvidia_smi_query, frozenset({"gpu"}),
        frozenset({"gpu_bus", *_REASON_FIELDS.values(), *_TEMPERATURE_FIELDS.values(), *_POWER_FIELDS.values(),
                   *_REMAP_FIELDS.values(), *_RETIRED_FIELDS.values(), "slowdown_margin_c", "shutdown_margin_c",
                   "max_operating_margin_c", "memory_margin_c", "power_limit_reduction_w",
                   "ecc_volatile_correctable", "ecc_volatile_uncorrectable", "ecc_aggregate_correctable",
                   "ecc_aggregate_uncorrectable", "sram_aggregate_uncorrectable", "ecc_uncorrectable"}),
    ),
    "nccl": ParserSpec(
        parse_nccl,
        frozenset({"watchdog_timeout", *_NCCL_ERRORS, "ib_completion_error", "ib_error", "socket_interface",
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
        parse_driver, frozenset({*_DRIVER_ERRORS, "versions"}),
        frozenset({"nvml_library_version", "driver_cuda_version", "driver_version", "runtime_cuda_version"}),
    ),
    "symptoms": ParserSpec(
        parse_symptoms, frozenset({"smi_table", "gpu_util", "temperature"}),
        frozenset({"gpu_util_percent", "temperature_c", "power_draw_w", "power_cap_w"}),
    ),
}  # fmt: skip
