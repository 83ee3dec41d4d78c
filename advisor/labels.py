"""Bilingual labels for catalog and tool enums, shared by the chat answers and the web UI: (English, Chinese) pairs read from labels.yaml;
and the one rule for choosing between the two: Chinese for "zh", English for anything else.

Tool results carry machine values ('inference', 'months', 'datacenter'); people see these labels.
"""

from __future__ import annotations

from pathlib import Path

from knowledge.wording import Wording

WORDING = Wording(Path(__file__).with_name("labels.yaml"))


def _table(key: str) -> dict:
    """One table of labels.yaml as value → (English, Chinese)."""
    return {value: (row["en"], row["zh"]) for value, row in WORDING.data[key].items()}


VERDICT = _table("verdict")
CHINA_STATUS = _table("china_status")
SEGMENT = _table("segment")
MODE = _table("mode")
METHOD = _table("method")
TASK = _table("task")
ZERO_STAGE = _table("zero_stage")
CURRENCY = _table("currency")
OBJECTIVE = _table("objective")
ENGINE = _table("engine")  # serving engines go by their product names in both languages
BOUND = _table("bound")
MFU_SOURCE = _table("mfu_source")
UNITS = _table("units")  # units of tool line items (`LineItem.unit`); money units are formatted with the currency symbol instead
UNIT_NOTE = WORDING.pair("unit_note")


def pick(language: str, en: str, zh: str) -> str:
    return zh if language == "zh" else en


def label(pair: tuple[str, str], language: str) -> str:
    return pick(language, *pair)


def enum_label(table: dict, value, language: str) -> str:
    """The label of ``value`` in one of the tables above; an unknown value is shown as it is."""
    return label(table[value], language) if value in table else str(value)


def unit(code: str, language: str) -> str:
    """'months' → its Chinese counter word; per-hour units ('USD/GPU-hour') translate their denominator; others stay ('GB', 'kWh')."""
    if code.endswith("/GPU-hour"):
        return f"{code.removesuffix('/GPU-hour')}/{label(WORDING.pair('gpu_hour'), language)}"
    return enum_label(UNITS, code, language)


def choices(table: dict, language: str, values=None) -> list[tuple[str, object]]:
    """(label, value) pairs for a dropdown, in ``values`` order (default: the table's)."""
    return [(enum_label(table, v, language), v) for v in (values if values is not None else table)]


# Values a troubleshooting parser read from a log, named in words; a field missing here is named from its
# words and unit suffix (``offline.tasks.troubleshoot.render._parsed``), never shown as the parser's key.
PARSED = _table("parsed")
PARSED_UNITS = {"_mib": " MiB", "_ms": " ms", "_min": " min", "_c": " °C", "_w": " W", "_bytes": " bytes", "_gbps": " GB/s", "_pct": "%"}
