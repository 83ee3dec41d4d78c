"""NVIDIA Xid events from dmesg or syslog, and Xid numbers mentioned in prose."""

from __future__ import annotations

import re

from knowledge.wording import shipped
from tools.troubleshoot.parsers.records import MAX_RECORDS, LineLocator, ParsedRecord, Value, lines_with

XID_WORDS = "|".join(re.escape(word) for word in shipped("troubleshoot_text.yaml").entry("xid_words"))  # Chinese words for "error", "event"

# No ASCII letter or digit before Xid keeps NVSwitch "SXid" lines out; a Chinese character may stand right before it
# (a Chinese verb written against "Xid 79"), which "\b" refused; mentions such as "Xid 79" in prose count too.
_XID = re.compile(
    r"(?<![A-Za-z0-9_])[Xx][Ii][Dd]\b(?:\s*\((?P<pci>[^)\n]{1,40})\))?"  # "Xid (PCI:0000:3b:00)" in dmesg; absent in prose
    rf"\s*(?:[:#=]|errors?|code|{XID_WORDS})*\s*(?P<code>\d{{1,3}})(?!\d|\.\d)"  # "Xid 79." ends a sentence; "Xid 79.5" is no code
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
            nvrm = text.rfind("NVRM", start, match.start())
            kind = "dmesg" if "pci" in values or nvrm >= 0 or text.find("NVRM", start, end) >= 0 else "mention"
            records.append(locator.record("xid", kind, match.start(), values, log_from=nvrm if nvrm >= 0 else None))
    return records[:MAX_RECORDS]
