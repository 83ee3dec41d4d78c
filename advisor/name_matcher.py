"""Find catalog GPU and model names inside free text: "用8×H100跑Qwen2.5-72B" → h100-sxm, qwen2.5-72b.

Text and aliases are cut into the same tokens (letter runs, numbers, single CJK characters)
and compared as joined keys, so "RTX4090", "rtx 4090" and "RTX-4090" all meet the alias
"RTX 4090", and a name glued to a count ("8xA100") is still found. One compiled pattern
finds the few places where some name can start; from there a key grows token by token and
stops as soon as it is no longer the prefix of any alias.
"""

from __future__ import annotations

import re
import unicodedata
import weakref
from typing import Literal, NamedTuple

from knowledge.catalog import Catalog

Kind = Literal["gpu", "model"]

# A precision written straight after a model size, as Chinese users often do ("70BQ8", "14Bint8").
GLUED_PRECISION = r"(?:q\d|int\d|fp\d|bf16|awq|gptq|nf4|w\d)"
GLUED_METHOD = r"(?:sft|q?lora|dpo|ft\b)"  # likewise a method: "14BSFT", "7Blora"
TOKEN = re.compile(rf"(?<=\d)b(?={GLUED_PRECISION}|{GLUED_METHOD})|[a-z]+|\d+(?:\.\d+)*|[^\x00-\x7f\s]")
# Separators allowed inside one name: "A100-80G", "Qwen2.5 72B", "llama_3", Ollama's "qwen2.5:32b".
JOINABLE_GAP = re.compile(r"[\s\-_/.·:]{0,3}")
# Vendor and brand words say nothing about which part is meant ("NVIDIA H100" = "H100").
BRAND_WORDS = frozenset({"nvidia", "geforce", "tesla", "amd", "radeon", "instinct", "intel", "habana", "huawei", "google", "aws", "apple"})
MEMORY_UNITS = frozenset({"g", "gb", "gib"})
# Chinese writers glue a count to a name that ends in a letter: "910B8卡" is a 910B, then 8 cards.
COUNT_AFTER = re.compile(r"\d{1,4}\s*(?:卡|张|块|台|片|机)")
# A bare number alias ("4090") followed by one of these is a price or a date, not a GPU.
NOT_A_NAME_AFTER = tuple("元块%年月天个号")


class NameMatch(NamedTuple):
    start: int
    end: int
    kind: Kind
    id: str


def normalize_text(text: str) -> str:
    """The form every extractor works on and every span refers to: NFKC (full-width → ASCII), lower case."""
    return unicodedata.normalize("NFKC", text).lower()


def _alias_tokens(name: str) -> list[str]:
    """An alias as tokens: brand words dropped, the unit of '80GB' folded to 'g' as the scanner does."""
    tokens: list[str] = []
    for token in TOKEN.findall(normalize_text(name)):
        if token in BRAND_WORDS:
            continue
        tokens.append("g" if token in MEMORY_UNITS and tokens and tokens[-1][0].isdigit() else token)
    return tokens


def _extend(key: str, token: str) -> str:
    # Two numbers in a row keep a separator so "qwen2 57b" and "qwen25 7b" stay different.
    if key and key[-1].isdigit() and token[0].isdigit():
        return f"{key}|{token}"
    return key + token


class NameMatcher:
    """All GPU and model names and aliases of one catalog, ready to scan text."""

    def __init__(self, catalog: Catalog):
        self.names: dict[str, tuple[Kind, str]] = {}
        self.prefixes: set[str] = set()
        first_tokens: set[str] = set()
        entries: list[tuple[Kind, str, list[str]]] = [("gpu", g.id, [g.id, g.name, *g.aliases]) for g in catalog.gpus]
        entries += [("model", m.id, [m.id, m.name, *m.aliases]) for m in catalog.models]
        for kind, entry_id, names in entries:
            for name in names:
                tokens = _alias_tokens(name)
                prefixes = [""]
                for token in tokens:
                    prefixes.append(_extend(prefixes[-1], token))
                key = prefixes[-1]
                if not _usable(key) or key in self.names:
                    continue  # the first entry to claim a name keeps it
                self.names[key] = (kind, entry_id)
                self.prefixes.update(prefixes[1:])
                first_tokens.add(tokens[0])
        self.starts = _start_pattern(first_tokens)

    def scan(self, text: str) -> list[NameMatch]:
        """Non-overlapping longest matches, left to right, on ``normalize_text`` output."""
        found: list[NameMatch] = []
        resume = 0
        for start in self.starts.finditer(text):
            if start.start() < resume:
                continue
            match = self._longest(text, start)
            if match is not None:
                found.append(match)
                resume = match.end
        return found

    def _longest(self, text: str, first: re.Match[str]) -> NameMatch | None:
        best: NameMatch | None = None
        key, token, end, previous = "", first.group(), first.end(), ""
        while True:
            if token in MEMORY_UNITS and previous[:1].isdigit():
                token = "g"
            key = _extend(key, token)
            if key not in self.prefixes:
                break
            if key in self.names and not self._glued(text, first.start(), end):
                best = NameMatch(first.start(), end, *self.names[key])
            gap = JOINABLE_GAP.match(text, end)
            if len(key) == 1 and key.isalpha() and gap.group().isspace():  # "a 10gb card", "buy a 100 gpus": an article, no A10G/A100
                break
            following = TOKEN.match(text, gap.end())
            if following is None:
                break
            previous, token, end = token, following.group(), following.end()
        return best

    @staticmethod
    def _glued(text: str, start: int, end: int) -> bool:
        """True when the match is part of a longer word or number ("A1000", "4090元", "sub4090")."""
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        after_next = text[end + 1] if end + 1 < len(text) else " "
        count_before = before == "x" and start >= 2 and text[start - 2].isdigit()  # "8xA100"
        if before.isascii() and before.isalpha() and not count_before:
            return True
        plural_or_count = (after == "s" and not after_next.isalnum()) or (after == "x" and after_next.isdigit())
        glued_suffix = re.match(GLUED_PRECISION, text[end : end + 4]) is not None  # "70bq8", "r1w8a8"
        glued_suffix |= text[end - 1 : end] == "b" and re.match(GLUED_METHOD, text[end : end + 5]) is not None  # "14bsft"
        glued_count = text[end - 1 : end].isalpha() and COUNT_AFTER.match(text, end) is not None
        if after.isascii() and after.isalnum() and not plural_or_count and not glued_suffix and not glued_count:
            return True
        span = text[start:end]
        return span.isdigit() and (after in NOT_A_NAME_AFTER or before in "$¥")


def _start_pattern(first_tokens: set[str]) -> re.Pattern[str]:
    """Where a name can begin: a whole letter run, a whole number or a CJK character that starts some alias.

    Searching for these in C is what keeps long messages cheap: the Python loop only runs
    at the few places a name may start.
    """
    by_length = sorted(first_tokens, key=len, reverse=True)
    words = "|".join(re.escape(t) for t in by_length if t[0].isascii() and t[0].isalpha())
    numbers = "|".join(re.escape(t) for t in by_length if t[0].isdigit())
    others = "".join(re.escape(t) for t in by_length if not t[0].isascii())
    parts = [rf"(?:(?<![a-z])|(?<=\dx))(?:{words})(?![a-z])" if words else "", rf"(?<![\d.])(?:{numbers})(?![\d]|\.\d)" if numbers else ""]
    parts.append(f"[{others}]" if others else "")
    return re.compile("|".join(p for p in parts if p) or r"(?!)")


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
