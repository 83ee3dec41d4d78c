"""Symptoms written in prose or a pasted nvidia-smi table: utilisation, temperature, power."""

from __future__ import annotations

import re

from tools.troubleshoot.parsers.records import MAX_RECORDS, LineLocator, ParsedRecord, Value, first_matches, lines_with, number

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
        for match in first_matches(_SMI_TABLE_ROW.finditer(text, start, end)):
            found[("smi_table", match.start())] = (match.start(), {
                "gpu_util_percent": float(match.group("util")), "temperature_c": float(match.group("temp")),
                "power_draw_w": float(match.group("draw")), "power_cap_w": float(match.group("cap")),
            })  # fmt: skip
    for start, end in lines_with(text, _UTIL_LITERALS, 20):
        for pattern in _UTIL_PATTERNS:
            for match in first_matches(pattern.finditer(text, start, end)):
                value = number(match.group(1))
                if value is not None and value <= 100:
                    found.setdefault(("gpu_util", match.start(1)), (match.start(), {"gpu_util_percent": value}))
    for start, end in lines_with(text, _TEMPERATURE_LITERALS, 20):
        if _SMI_QUERY_LINE.match(text, start, end):
            continue
        for pattern in _TEMPERATURE_PATTERNS:
            for match in first_matches(pattern.finditer(text, start, end)):
                value = number(match.group(1))
                if value is not None and 20 <= value <= 130:
                    found.setdefault(("temperature", match.start(1)), (match.start(), {"temperature_c": value}))
    locator = LineLocator(text)
    hits = sorted(((pos, kind, values) for (kind, _), (pos, values) in found.items()), key=lambda hit: hit[:2])
    return [locator.record("symptoms", kind, pos, values) for pos, kind, values in hits[:MAX_RECORDS]]
