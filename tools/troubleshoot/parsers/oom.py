"""PyTorch and host out-of-memory messages, in every format PyTorch has printed."""

from __future__ import annotations

import re

from tools.troubleshoot.parsers.records import LineLocator, ParsedRecord, Value, lines_with

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
