"""NCCL and torch.distributed failures: watchdog timeouts, IB completion errors, sockets, shared memory."""

from __future__ import annotations

import re

from tools.troubleshoot.parsers.records import MAX_RECORDS, LineLocator, ParsedRecord, Value, lines_with, number, put

_WATCHDOG = re.compile(
    r"Watchdog caught collective operation timeout: WorkNCCL\((?P<body>(?:[^()\n]|\([^()\n]*\))*)\)"
    r"(?: ran for (?P<ran>\d+) milliseconds)?"
)
_WATCHDOG_FIELDS = {"SeqNum": "seq_num", "NumelIn": "numel_in", "NumelOut": "numel_out", "Timeout(ms)": "timeout_ms"}
_RANK = re.compile(r"\bRank (\d+)\b|\brank(?:\s*=\s*|\s+)(\d+)\b")
_LAST_WORK = re.compile(r"last enqueued NCCL work: (-?\d+), last completed NCCL work: (-?\d+)")
_NCCL_VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
# kind → literals that identify it (both the enum name and the human message NCCL prints)
NCCL_ERRORS: dict[str, tuple[str, ...]] = {
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
    for kind, literals in NCCL_ERRORS.items():
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
            put(values, _WATCHDOG_FIELDS[key], number(raw.strip()))
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
