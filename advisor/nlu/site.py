"""What a site question states, read once for the Ask: the power feeds ("two 30 A 208 V three-phase feeds, A+B",
"4路16A 220V"), whole racks and nodes counted, what a facility question asks for, and a quoted cut in cards
("half the cards"). The words are data in ``data/site_words.yaml``; for feeds a later message's figure replaces
an earlier one, so "what if they were 50 A?" re-runs the plan with the new rating."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml

from advisor.name_matcher import normalize_text

NUMBER = r"(?<![\d.])(\d+(?:\.\d+)?)"  # starts where a number starts: no rescan of a long digit run from each digit


@lru_cache(maxsize=1)
def _words() -> dict:
    return yaml.safe_load((Path(__file__).parent / "data" / "site_words.yaml").read_text(encoding="utf-8"))


def facility_asks(text: str) -> frozenset[str]:
    """What a facility question asks for ("bill", "fabric", "one_rack"…): the ``asks`` keys whose words ``text`` holds."""
    said = text.casefold()
    return frozenset(key for key, words in _words()["asks"].items() if any(word in said for word in words))


def card_cut(text: str) -> tuple[str, float] | None:
    """A quoted cut in cards ("half the cards", "卡可以减半") as said, with the speed factor it needs."""
    said = normalize_text(text)
    for row in _words()["card_cuts"]:
        for words in row["words"]:
            if normalize_text(words) in said:
                return words, float(row["factor"])
    return None


@lru_cache(maxsize=1)
def _patterns() -> dict[str, re.Pattern]:
    """Patterns built from the word lists, so a new unit or count word is a data change."""
    words = _words()["circuit_words"]

    def alternatives(key: str) -> str:
        return "|".join(re.escape(w) for w in sorted(words[key], key=len, reverse=True))

    # a Latin letter ("x") is a times sign only on its own: "rtx 4090" is no fourfold feed
    times = "|".join(r"(?<![a-z0-9])" + re.escape(w) if w.isascii() and w.isalpha() else re.escape(w) for w in words["times"])
    counts = "|".join(re.escape(w) for w in sorted(words["count_words"], key=len, reverse=True))
    return {
        "amps": re.compile(NUMBER + r"\s*(?:" + alternatives("amps") + r")(?![a-z0-9])"),
        "volts": re.compile(NUMBER + r"\s*(?:" + alternatives("volts") + r")(?![a-z0-9])"),
        "feeds_after": re.compile(r"(?<!\d)(" + r"\d+|" + counts + r")\s*(?:" + alternatives("feed_after") + r")"),
        "count_before_amps": re.compile(r"(?<![a-z])(" + counts + r")\s+" + NUMBER + r"\s*(?:" + alternatives("amps") + r")(?![a-z0-9])"),
        "nodes": re.compile(r"(?<![a-z0-9.])(\d+)\s*[-‐]?\s*(?:" + alternatives("node_words") + r")(?![a-z])"),
        "racks": re.compile(
            r"(?<![a-z0-9])(\d+|"
            + counts
            + r")(?!\s*(?:kw|kilowatt|千瓦|mw|\d))\s*(?:个|套|台)?\s*(?:[a-z0-9\-]++\s*){0,3}(?:"
            + alternatives("rack_words")
            + r")"
        ),
        "times": re.compile(r"(?:" + times + r")\s*(\d+)(?!\s*(?:卡|gpu|张|台|u\b))"),
    }


def read_circuit(messages: list[str]) -> dict | None:
    """The feeds the messages state, as the plan_facility ``circuit`` argument; None when no amps and volts are given."""
    words = _words()["circuit_words"]
    patterns = _patterns()
    found: dict = {}
    for message in messages:
        text = message.casefold()
        amps = patterns["amps"].findall(text)
        volts = patterns["volts"].findall(text)
        if amps:
            found["amps"] = float(amps[-1])
        if volts:
            found["volts"] = float(volts[-1])
        if any(w in text for w in words["three_phase"]):
            found["three_phase"] = True
        elif any(w in text for w in words["single_phase"]):
            found["three_phase"] = False
        if any(w in text for w in words["redundant"]):
            found["redundant"] = True
        feeds = _feeds(text, patterns, words["count_words"])
        if feeds:
            found["feeds"] = feeds
    if "amps" not in found or "volts" not in found:
        return None
    if found.get("redundant") and "feeds" not in found:  # "A+B" with no count is one pair
        found["feeds"] = 2
    return found


def _feeds(text: str, patterns: dict[str, re.Pattern], count_words: dict[str, int]) -> int | None:
    """How many feeds: "4路" / "two feeds", a count right before the rating ("two 30A"), or "× 4" after it."""
    for key in ("feeds_after", "count_before_amps", "times"):
        match = patterns[key].search(text)
        if match:
            word = match.group(1)
            return int(word) if word.isdigit() else count_words.get(word)
    return None


def read_rack_count(message: str) -> int | None:
    """How many whole-rack systems a message asks about ("two GB200 NVL72 racks"), for a part sold as a rack."""
    match = _patterns()["racks"].search(message.casefold())
    if match is None:
        return None
    word = match.group(1)
    return int(word) if word.isdigit() else _words()["circuit_words"]["count_words"].get(word)


def read_node_count(message: str) -> int | None:
    """Servers written as nodes ("a 16-node cluster", "16个节点") when the reader found no count."""
    match = _patterns()["nodes"].search(message.casefold())
    return int(match.group(1)) if match else None
