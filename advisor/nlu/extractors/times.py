"""Extractors of time: a machine that runs around the clock, deadlines and spans of time (``time_words``)."""

from __future__ import annotations

import re

from advisor.nlu.number_values import Value
from advisor.nlu.scan import Scan, extractor
from advisor.nlu.time_words import time_values

ALWAYS_ON = re.compile(
    r"24\s*/\s*7|7\s*[x×*]\s*24|全天候|全天(?:运行|跑)|不间断|不关机|24\s*小时\s*(?:满载|满跑|不停|运行|开着|在线|跑|开机|工作|都在跑)|满载运行|全年无休|全年不停|常年开着|一直开着|不停机|around\s+the\s+clock|non[\s-]?stop"
)


@extractor("always_on")
def always_on(scan: Scan) -> None:
    for match in ALWAYS_ON.finditer(scan.text):
        scan.claim(Value(match.start(), match.end(), "always_on", 1.0, surface=match.group()))


@extractor("dates_and_durations")
def dates_and_durations(scan: Scan) -> None:
    for start, end, kind, value, unit in time_values(scan.text):
        scan.claim(Value(start, end, kind, value, unit, scan.text[start:end]))
