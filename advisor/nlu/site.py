"""What a site question states, read once for the Ask: the power feeds ("two 30 A 208 V three-phase feeds, A+B",
"four 16 A 220 V feeds"), whole racks and nodes counted, what a facility question asks for, and a quoted cut in cards
("half the cards"). The words are data in ``data/site_words.yaml``; for feeds a later message's figure replaces
an earlier one, so "what if they were 50 A?" re-runs the plan with the new rating."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

from advisor.name_matcher import normalize_text
from advisor.nlu.phrases import PhraseMatch, PhraseTable, phrase_tables


@lru_cache(maxsize=1)
def _words() -> dict:
    return yaml.safe_load((Path(__file__).parent / "data" / "site_words.yaml").read_text(encoding="utf-8"))


def facility_asks(text: str) -> frozenset[str]:
    """What a facility question asks for ("bill", "fabric", "one_rack"…): the ``asks`` keys whose words ``text`` holds."""
    said = text.casefold()
    return frozenset(key for key, words in _words()["asks"].items() if any(word in said for word in words))


def card_cut(text: str) -> tuple[str, float] | None:
    """A quoted cut in cards ("half the cards", "the cards can be halved") as said, with the speed factor it needs."""
    said = normalize_text(text)
    for row in _words()["card_cuts"]:
        for words in row["words"]:
            if normalize_text(words) in said:
                return words, float(row["factor"])
    return None


@lru_cache(maxsize=1)
def _tables() -> dict[str, PhraseTable]:
    """The phrase tables of ``circuit_phrases``, over the word lists beside them, so a new unit or count word is a data change."""
    words = _words()["circuit_words"]
    lists = {name: list(value) for name, value in words.items()}  # count_words is read by its keys
    return phrase_tables(lists, _words()["circuit_phrases"])


def _count(match: PhraseMatch | None, text: str) -> int | None:
    """The count a phrase starts with: its digits (label ``digits``), else the longest count word written where it
    starts ("two", or its Chinese word; a ``word`` phrase's own number is the rating after the count: "two 30A")."""
    if match is None:
        return None
    if match.label == "digits":
        return int(match.number)
    count_words = _words()["circuit_words"]["count_words"]
    word = max((word for word in count_words if text.startswith(word, match.start)), key=len)
    return count_words[word]


def _first(table: str, text: str) -> PhraseMatch | None:
    return next(iter(_tables()[table].find_all(text)), None)


def read_circuit(messages: list[str]) -> dict | None:
    """The feeds the messages state, as the plan_facility ``circuit`` argument: amps and volts, or the supply alone (a
    mains voltage and its phase, "single-phase 220 V", with no ``amps``); None when no voltage is given."""
    words = _words()["circuit_words"]
    found: dict = {}
    for message in messages:
        text = message.casefold()
        for rating in ("amps", "volts"):
            said = _tables()[rating].find_all(text)
            if said:
                found[rating] = float(said[-1].number)
        if any(w in text for w in words["three_phase"]):
            found["three_phase"] = True
        elif any(w in text for w in words["single_phase"]):
            found["three_phase"] = False
        if any(w in text for w in words["redundant"]):
            found["redundant"] = True
        feeds = _feeds(text)
        if feeds:
            found["feeds"] = feeds
    if "volts" not in found:
        return None
    if "amps" not in found:  # "single-phase 220 V" with no breaker: the supply alone, whose rating the plan works out
        supply = _words()["supply"]
        if not supply["lowest_volts"] <= found["volts"] <= supply["highest_volts"]:
            return None  # "5 V", "12 V": a device's rail, never a site's supply
        if "three_phase" not in found:  # "380 V" alone is the three-phase line voltage where it is the usual supply
            found["three_phase"] = found["volts"] in supply["three_phase_volts"]
    if found.get("redundant") and "feeds" not in found:  # "A+B" with no count is one pair
        found["feeds"] = 2
    return found


def _feeds(text: str) -> int | None:
    """How many feeds: "4 feeds" / "two feeds", a count right before the rating ("two 30A"), or "× 4" after it."""
    for table in ("feeds_named", "feeds_before_amps", "feeds_times"):
        match = _first(table, text)
        if match:
            return _count(match, text)
    return None


def read_rack_count(message: str) -> int | None:
    """How many whole-rack systems a message asks about ("two GB200 NVL72 racks"), for a part sold as a rack."""
    text = message.casefold()
    return _count(_first("racks", text), text)


def read_node_count(message: str) -> int | None:
    """Servers written as nodes ("a 16-node cluster", "16 nodes" in Chinese) when the reader found no count."""
    text = message.casefold()
    return _count(_first("nodes", text), text)
