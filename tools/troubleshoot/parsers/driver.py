"""Driver, NVML and CUDA runtime version mismatches."""

from __future__ import annotations

import re

from tools.troubleshoot.parsers.records import MAX_RECORDS, LineLocator, ParsedRecord, Value, lines_with

DRIVER_ERRORS: dict[str, tuple[str, ...]] = {
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
    for kind, literals in DRIVER_ERRORS.items():
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
