"""Extractors of time: a machine that runs around the clock, deadlines and spans of time (``time_words``)."""

from __future__ import annotations

from advisor.nlu.number_values import Value
from advisor.nlu.pattern_words import pattern
from advisor.nlu.scan import Scan, extractor
from advisor.nlu.time_words import time_values

ALWAYS_ON = pattern("always_on")


@extractor("always_on")
def always_on(scan: Scan) -> None:
    for match in ALWAYS_ON.finditer(scan.text):
        scan.claim(Value(match.start(), match.end(), "always_on", 1.0, surface=match.group()))


@extractor("dates_and_durations")
def dates_and_durations(scan: Scan) -> None:
    for start, end, kind, value, unit in time_values(scan.text):
        scan.claim(Value(start, end, kind, value, unit, scan.text[start:end]))
