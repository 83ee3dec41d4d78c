"""Find catalog GPU and model names inside free text: "用8×H100跑Qwen2.5-72B" → h100-sxm, qwen2.5-72b.

Text and aliases are cut into the same tokens (letter runs, numbers, single CJK characters)
and compared as joined keys, so "RTX4090", "rtx 4090" and "RTX-4090" all meet the alias
"RTX 4090", and a name glued to a count ("8xA100") is still found. Only tokens that can
start a name are looked at, and a key stops growing once it is no longer the prefix of any
alias, so a 100 KB message costs one dictionary lookup per token.
"""

from __future__ import annotations

import re
import unicodedata
import weakref
from typing import Literal, NamedTuple

from knowledge.catalog import Catalog

Kind = Literal["gpu", "model"]

TOKEN = re.compile(r"[a-z]+|\d+(?:\.\d+)*|[^\x00-\x7f\s]")
# Separators allowed inside one name: "A100-80G", "Qwen2.5 72B", "llama_3".
JOINABLE_GAP = re.compile(r"[\s\-_/.·]{0,3}")
# Vendor and brand words say nothing about which part is meant ("NVIDIA H100" = "H100").
BRAND_WORDS = frozenset({"nvidia", "geforce", "tesla", "amd", "radeon", "instinct", "intel", "habana", "huawei", "google", "aws", "apple"})
MEMORY_UNITS = frozenset({"g", "gb", "gib"})
# A bare number alias ("4090") followed by one of these is a price or a date, not a GPU.
NOT_A_NAME_AFTER = tuple("元块%年月天个号")


class NameMatch(NamedTuple):
    start: int
    end: int
    kind: Kind
    id: str


def normalize_text(text: str) -> str:
    """The form every extractor works on: NFKC (full-width → ASCII) and lower case, length-preserving after that."""
    return unicodedata.normalize("NFKC", text).lower()


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """(start, end, token) on already-normalised text; brand words dropped, '80GB' unit folded to '80g'."""
    tokens: list[tuple[int, int, str]] = []
    for match in TOKEN.finditer(text):
        token = match.group()
        if token in BRAND_WORDS:
            continue
        if token in MEMORY_UNITS and tokens and tokens[-1][2][0].isdigit():
            token = "g"
        tokens.append((match.start(), match.end(), token))
    return tokens


def _extend(key: str, token: str) -> str:
    # Two numbers in a row keep a separator so "qwen2 57b" and "qwen25 7b" stay different.
    if key and key[-1].isdigit() and token[0].isdigit():
        return f"{key}|{token}"
    return key + token


def _key(name: str) -> str:
    key = ""
    for _, _, token in _tokens(normalize_text(name)):
        key = _extend(key, token)
    return key


class NameMatcher:
    """All GPU and model names and aliases of one catalog, ready to scan text."""

    def __init__(self, catalog: Catalog):
        self.names: dict[str, tuple[Kind, str]] = {}
        self.prefixes: set[str] = set()
        self.first_tokens: set[str] = set()
        entries: list[tuple[Kind, str, list[str]]] = [("gpu", g.id, [g.id, g.name, *g.aliases]) for g in catalog.gpus]
        entries += [("model", m.id, [m.id, m.name, *m.aliases]) for m in catalog.models]
        for kind, entry_id, names in entries:
            for name in names:
                tokens = [token for _, _, token in _tokens(normalize_text(name))]
                key = ""
                for token in tokens:
                    key = _extend(key, token)
                if not _usable(key) or key in self.names:
                    continue
                self.names[key] = (kind, entry_id)
                self.first_tokens.add(tokens[0])
                key = ""
                for token in tokens:
                    key = _extend(key, token)
                    self.prefixes.add(key)

    def scan(self, text: str) -> list[NameMatch]:
        """Non-overlapping longest matches, left to right, on ``normalize_text`` output."""
        tokens = _tokens(text)
        found: list[NameMatch] = []
        index, count = 0, len(tokens)
        while index < count:
            if tokens[index][2] not in self.first_tokens:
                index += 1
                continue
            best, key, last = None, "", index
            while last < count:
                if last > index and not JOINABLE_GAP.fullmatch(text, tokens[last - 1][1], tokens[last][0]):
                    break
                key = _extend(key, tokens[last][2])
                if key not in self.prefixes:
                    break
                if key in self.names:
                    best = (last, self.names[key])
                last += 1
            if best is not None and not self._glued(text, tokens[index][0], tokens[best[0]][1]):
                end_index, (kind, entry_id) = best
                found.append(NameMatch(tokens[index][0], tokens[end_index][1], kind, entry_id))
                index = end_index + 1
            else:
                index += 1
        return found

    @staticmethod
    def _glued(text: str, start: int, end: int) -> bool:
        """True when the match is part of a longer word or number ("A1000", "4090元", "subH100")."""
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        after_next = text[end + 1] if end + 1 < len(text) else " "
        count_before = before == "x" and start >= 2 and text[start - 2].isdigit()  # "8xA100"
        if before.isascii() and before.isalpha() and text[start].isalpha() and not count_before:
            return True
        plural_or_count = (after == "s" and not after_next.isalnum()) or (after == "x" and after_next.isdigit())
        if after.isascii() and after.isalnum() and not plural_or_count:
            return True
        span = text[start:end]
        return span.isdigit() and (after in NOT_A_NAME_AFTER or before in "$¥")


def _usable(key: str) -> bool:
    """Skip one- and two-letter aliases: in free text they are ordinary words."""
    return bool(key) and not (key.isascii() and key.isalpha() and len(key) <= 2)


_MATCHERS: weakref.WeakKeyDictionary[Catalog, NameMatcher] = weakref.WeakKeyDictionary()


def matcher_for(catalog: Catalog) -> NameMatcher:
    """One matcher per catalog object, built on first use."""
    matcher = _MATCHERS.get(catalog)
    if matcher is None:
        matcher = _MATCHERS[catalog] = NameMatcher(catalog)
    return matcher
