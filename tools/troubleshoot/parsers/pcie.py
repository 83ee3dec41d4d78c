"""PCIe link state from lspci, dmesg and nvidia-smi: downgraded speed or width."""

from __future__ import annotations

import re

from tools.troubleshoot.parsers.records import MAX_RECORDS, LineLocator, ParsedRecord, Value, lines_with, number, put

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
        put(values, key, value)
    put(values, "gen", float(_GT_PER_GEN[speed]) if speed in _GT_PER_GEN else None)
    put(values, "cap_gen", float(_GT_PER_GEN[cap_speed]) if cap_speed in _GT_PER_GEN else None)
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
            cap_speed, cap_width = (number(cap.group("speed")), number(cap.group("width"))) if cap else (None, None)
            values = _link_values(number(match.group("speed")), number(match.group("width")), cap_speed, cap_width,
                                  (match.group("speed_flag"), match.group("width_flag")))  # fmt: skip
            found.append((start, "lspci", values))
            cap = None
    for start, end in lines_with(text, ("available PCIe bandwidth, limited by",)):
        match = _DMESG_LIMITED.search(text, start, end)
        if match:
            values = _link_values(*(number(match.group(k)) for k in ("speed", "width", "cap_speed", "cap_width")))
            values["available_gbps"] = float(match.group("avail"))
            found.append((start, "dmesg", values))
    if "Link Width" in text:
        speeds = {g: s for s, g in _GT_PER_GEN.items()}
        for gen, width in zip(_SMI_GEN.finditer(text), _SMI_WIDTH.finditer(text)):
            values = _link_values(speeds.get(int(gen.group("cur"))), number(width.group("cur")),
                                  speeds.get(int(gen.group("max"))), number(width.group("max")))  # fmt: skip
            found.append((width.start(), "nvidia_smi", values))
    found.sort(key=lambda item: item[0])
    locator = LineLocator(text)
    return [locator.record("pcie_link", kind, pos, values) for pos, kind, values in found[:MAX_RECORDS]]
