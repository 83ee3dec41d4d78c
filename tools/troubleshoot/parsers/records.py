"""What every log parser returns, and the helpers they share to find lines cheaply."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator

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

    def record(self, parser: str, kind: str, pos: int, values: dict[str, Value], log_from: int | None = None) -> ParsedRecord:
        """``log_from``: where the log's own text starts on the line (NVRM), so a sentence typed before it on the same
        line ("the job died overnight, dmesg shows: NVRM: Xid …") is not quoted back as evidence."""
        excerpt = self.excerpt(pos)
        if log_from is not None:
            start = self.text.rfind("\n", 0, log_from) + 1
            if prose(self.text[start:log_from]):
                end = self.text.find("\n", log_from)
                excerpt = self.text[log_from : end if end >= 0 else len(self.text)].strip()[:EXCERPT_CHARS]
        return ParsedRecord(parser=parser, kind=kind, line=self.line(pos), excerpt=excerpt, values=values)


def prose(prefix: str) -> bool:
    """Text before a log line's start is the user's sentence, not a syslog prefix ("Dec 7 10:01 gpu07 kernel:"): it holds
    Chinese, or a sentence or clause end after a word ("died overnight. dmesg shows:", "crashed; log:")."""
    if any(character >= "\u2e80" for character in prefix):
        return True
    return any(prefix[i].isalpha() and prefix[i + 1] in ".!?;," and prefix[i + 2] == " " for i in range(len(prefix) - 2))


def number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def put(values: dict[str, Value], key: str, value: Value | None) -> None:
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


def first_matches(matches: Iterator[re.Match[str]], limit: int = 20) -> Iterator[re.Match[str]]:
    """At most ``limit`` matches: a pasted wall of text must not turn into thousands of records."""
    return itertools.islice(matches, limit)
