"""Compile keyword patterns behind a first-character guard, so scanning long messages stays cheap.

Python's regex engine tries every alternative at every position of the text, and a pattern
that opens with a lookbehind ("lora" but not inside "qlora") cannot use the engine's own
prefix shortcuts. Prefixing the pattern with a lookahead for the characters any match can
start with lets the engine reject most positions in one step (about three times faster on
the keyword tables). The guard is derived from the parsed pattern, so it cannot drift from it.
"""

from __future__ import annotations

import re
from re import _constants as sre  # the parser is private, so every failure below falls back to a plain compile
from re import _parser

ZERO_WIDTH = (sre.AT, sre.ASSERT, sre.ASSERT_NOT)
REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT))
CATEGORIES = {sre.CATEGORY_DIGIT: r"\d", sre.CATEGORY_SPACE: r"\s", sre.CATEGORY_WORD: r"\w"}


class _NoGuard(Exception):
    """The pattern can start with anything (or with nothing): no useful guard."""


def compile_guarded(pattern: str) -> re.Pattern[str]:
    """``re.compile(pattern)``, behind a lookahead for its possible first characters when they are known."""
    try:
        first, nullable = _first(_parser.parse(pattern))
    except (_NoGuard, KeyError, AttributeError, TypeError, ValueError):
        return re.compile(pattern)
    if nullable or not first:
        return re.compile(pattern)
    return re.compile(f"(?=[{first}])(?:{pattern})")


def _first(sequence) -> tuple[str, bool]:
    """Character-class text for what ``sequence`` can start with, and whether it can match empty."""
    parts: list[str] = []
    for op, arg in sequence:
        if op in ZERO_WIDTH:
            continue
        chars, nullable = _first_of(op, arg)
        parts.append(chars)
        if not nullable:
            return "".join(parts), False
    return "".join(parts), True


def _first_of(op, arg) -> tuple[str, bool]:
    if op is sre.LITERAL:
        return re.escape(chr(arg)), False
    if op is sre.IN:
        return "".join(_class_item(item_op, value) for item_op, value in arg), False
    if op is sre.BRANCH:
        branches = [_first(branch) for branch in arg[1]]
        return "".join(chars for chars, _ in branches), any(nullable for _, nullable in branches)
    if op is sre.SUBPATTERN:
        return _first(arg[3])
    if op in REPEATS:
        chars, nullable = _first(arg[2])
        return chars, nullable or arg[0] == 0
    if op is getattr(sre, "ATOMIC_GROUP", None):
        return _first(arg)
    raise _NoGuard


def _class_item(op, value) -> str:
    if op is sre.LITERAL:
        return re.escape(chr(value))
    if op is sre.RANGE:
        return f"{re.escape(chr(value[0]))}-{re.escape(chr(value[1]))}"
    if op is sre.CATEGORY:
        return CATEGORIES[value]
    raise _NoGuard
