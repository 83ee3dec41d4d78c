"""Read numbers the way users type them: Arabic or Chinese numerals with magnitude words.

"70亿", "七十亿", "1.5万亿", "两万", "1,000", "1.8k", "7B", "3.5M", "十二" all become floats.
Everything here is pure and total: any string in, a float or ``None`` out, never an exception.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import NamedTuple

CHINESE_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "壹": 1, "二": 2, "贰": 2, "貳": 2, "两": 2, "兩": 2, "俩": 2, "倆": 2,
    "三": 3, "叁": 3, "參": 3, "四": 4, "肆": 4, "五": 5, "伍": 5, "六": 6, "陆": 6, "陸": 6,
    "七": 7, "柒": 7, "八": 8, "捌": 8, "九": 9, "玖": 9,
}  # fmt: skip
# Units below 万 add to the current group; 万/亿 (and the Western suffixes) multiply
# everything smaller that came before them, which is what makes "1.5万亿" = 1.5e12 work.
SMALL_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
BIG_UNITS = {"万": 1e4, "萬": 1e4, "亿": 1e8, "億": 1e8}
SUFFIXES = {
    "k": 1e3, "thousand": 1e3, "w": 1e4,  # "2w" is common Chinese shorthand for 两万
    "m": 1e6, "mn": 1e6, "mil": 1e6, "million": 1e6,
    "b": 1e9, "bn": 1e9, "billion": 1e9,
    "t": 1e12, "tn": 1e12, "trillion": 1e12,
    "lakh": 1e5, "lakhs": 1e5, "crore": 1e7, "crores": 1e7,  # Indian amounts
}  # fmt: skip
DECIMAL_POINT = "点"
APPROXIMATE_PREFIXES = ("~", "≈", "约", "大约", "大概", "about ", "around ", "approx. ", "approximately ")

_ARABIC = r"\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+"
_SUFFIX_WORDS = "|".join(sorted(SUFFIXES, key=len, reverse=True))
_CHINESE_CHARS = "".join(CHINESE_DIGITS) + "".join(SMALL_UNITS) + "".join(BIG_UNITS) + DECIMAL_POINT
# "四十多万", "20多万", "十多", "十几个小时": 多/来/几 (a little over) after a round number reads as the round number
_MORE_THAN = r"(?<=[十拾百佰千仟])[多来几]|(?<=\d)多(?=[十百千万亿])"
_TOKEN = re.compile(rf"\s*(?:(?P<arabic>{_ARABIC})|(?P<chinese>[{_CHINESE_CHARS}])|(?P<more>{_MORE_THAN})|(?P<suffix>{_SUFFIX_WORDS})(?![a-z]))")
# "七八张", "三五十个人", "两三百", "十七八": two neighbouring digits give a range; sizing takes its top
_SPREAD = re.compile(r"(?P<tens>十)?(?P<low>[一二两三四五六七八九])(?P<high>[二两三四五六七八九])(?P<unit>[十百千万亿].*)?$")
_LEADING_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_COUNTED_TEN_THOUSANDS = re.compile(r"个(?=w$)")  # "四十个w": forty ten-thousands, said with a measure word
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


class Term(NamedTuple):
    value: float
    scale: float  # largest multiplier applied so far; a later big unit multiplies every smaller term


class NumberMatch(NamedTuple):
    start: int
    end: int
    text: str
    value: float


def normalize_quantity(text: str) -> str:
    """Full-width to ASCII, lower case, thousands separators removed, surrounding noise stripped."""
    text = unicodedata.normalize("NFKC", text).strip().lower()
    text = _THOUSANDS_COMMA.sub("", text)
    text = _COUNTED_TEN_THOUSANDS.sub("", text)
    for prefix in APPROXIMATE_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :].strip()
    return text


def parse_number(text: str) -> float | None:
    """The value of ``text`` if the whole string is one number expression, else ``None``.

    Accepts Arabic digits (with thousands commas, decimals, exponents), Chinese numerals
    including 两/零/点 and financial forms, the magnitude words 十百千万亿, and the suffixes
    k/M/B/T/w or thousand/million/billion/trillion. A leading '-' or '负' makes it negative.
    A spoken range ("三五十", "两三百") is read as its upper end.
    """
    if not isinstance(text, str):
        return None
    text = normalize_quantity(text)
    sign = 1.0
    if text[:1] in ("-", "负", "−"):
        sign, text = -1.0, text[1:].strip()
    spread = _SPREAD.match(text)
    if spread and CHINESE_DIGITS[spread["high"]] > CHINESE_DIGITS[spread["low"]]:
        text = (spread["tens"] or "") + spread["high"] + (spread["unit"] or "")
    tokens = _tokenize(text)
    if tokens is None:
        return None
    value = _evaluate(tokens)
    return None if value is None else sign * value


def _tokenize(text: str) -> list[tuple[str, object]] | None:
    """Split into ('num', float) / ('digit', int) / ('small'|'big'|'suffix', float) / ('point', None)."""
    tokens: list[tuple[str, object]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            return None if text[position:].strip() else tokens or None
        position = match.end()
        if match["more"]:
            continue
        if match["arabic"]:
            tokens.append(("num", float(match["arabic"])))
        elif match["suffix"]:
            tokens.append(("suffix", SUFFIXES[match["suffix"]]))
        else:
            char = match["chinese"]
            if char in CHINESE_DIGITS:
                tokens.append(("digit", CHINESE_DIGITS[char]))
            elif char in SMALL_UNITS:
                tokens.append(("small", float(SMALL_UNITS[char])))
            elif char in BIG_UNITS:
                tokens.append(("big", BIG_UNITS[char]))
            else:
                tokens.append(("point", None))
    return tokens or None


def _evaluate(tokens: list[tuple[str, object]]) -> float | None:
    terms: list[Term] = []  # finished groups, each tagged with its scale
    pending: float | None = None  # a number waiting for its unit
    previous_kind = ""
    fraction_place = 0.0  # >0 while reading Chinese digits after 点
    last_unit = 0.0
    for kind, value in tokens:
        if previous_kind == "suffix":
            return None  # a Western suffix ends the number: "7B5" is not a quantity
        if kind == "num":
            if pending is not None or previous_kind == "point":
                return None  # "7 8" or "3点5" mixing scripts: ambiguous
            pending = float(value)  # type: ignore[arg-type]
        elif kind == "digit":
            digit = float(value)  # type: ignore[arg-type]
            if fraction_place:
                pending = (pending or 0.0) + digit * fraction_place
                fraction_place /= 10
            elif previous_kind == "digit" and pending is not None:
                pending = pending * 10 + digit  # digit strings such as 二〇二四
            elif pending is not None and previous_kind != "digit":
                return None
            else:
                pending = digit
        elif kind == "point":
            if previous_kind != "digit" or fraction_place:
                return None
            fraction_place = 0.1
        elif kind == "small":
            unit = float(value)  # type: ignore[arg-type]
            terms.append(Term((1.0 if pending is None else pending) * unit, unit))
            pending, fraction_place, last_unit = None, 0.0, unit
        else:  # big unit or suffix: multiply everything smaller gathered so far
            unit = float(value)  # type: ignore[arg-type]
            if pending is None and not terms:
                return None  # "万" or "k" on its own is not a number
            if pending is not None:
                terms.append(Term(pending, 1.0))
            smaller = [t for t in terms if t.scale < unit]
            if not smaller:
                return None  # "5万万" style repetition
            kept = [t for t in terms if t.scale >= unit]
            terms = kept + [Term(sum(t.value for t in smaller) * unit, unit)]
            pending, fraction_place, last_unit = None, 0.0, unit
        previous_kind = kind
    if pending is not None:
        # Colloquial "一万五" / "3万5" = 35000 and "两千五" = 2500: a lone single digit right
        # after a unit counts in the next unit down. "一百零五" (with 零) stays 105.
        follows_unit = len(tokens) >= 2 and tokens[-2][0] in ("small", "big")
        if follows_unit and last_unit > 10 and pending < 10 and pending == int(pending):
            pending *= last_unit / 10
        terms.append(Term(pending, 1.0))
    total = sum(t.value for t in terms)
    return total if terms and math.isfinite(total) else None


# Unit words that begin with a magnitude character: in "15千瓦" the 千 is the unit's prefix (kilowatt), not the
# number's (15,000 watts), so the number stops before it and the unit reader sees the whole unit word.
UNITS_WITH_MAGNITUDE_PREFIX = ("千瓦", "兆瓦", "千克", "千米", "千兆", "万兆")

# A method name may run into the size it trains ("lora13b", "qlora70b"), unlike a product name ("a100"); a magnitude letter
# with digits after it starts a product name ("4 b200 servers", "2 t4"), not a size ("4b"). A comma groups
# thousands only after at most three digits: "4090，500亿" (NFKC turns the Chinese comma into ",") is a card, then a number
_CANDIDATE = re.compile(
    rf"(?:(?:(?<![a-z0-9.])|(?<=lora)|(?<=sft))(?:{_ARABIC})|[{_CHINESE_CHARS}])(?:[\d.{_CHINESE_CHARS}]|{_MORE_THAN}|(?<!\d{{4}}),(?=\d{{3}}(?!\d))|e[+-]?\d)*"
    # "10 亿 token", "3 万元", "3 千万 token", "5 千 token": a magnitude word typed after a space (not a unit's own 千: "15 千瓦")
    rf"(?:\s?(?:[{''.join(SMALL_UNITS)}]?[{''.join(BIG_UNITS)}]+|[{''.join(SMALL_UNITS)}](?!{'|'.join(u[1:] for u in UNITS_WITH_MAGNITUDE_PREFIX)})))?"
    rf"(?:\s?(?:个(?=w))?(?:{_SUFFIX_WORDS})(?:(?![a-z0-9])|(?<=b)(?=(?:fp|bf|int|nf)\d)))?",  # "72bfp16": a size glued to its precision
    re.IGNORECASE,
)


_MEASURE_WORD = re.compile(r"[台张个块片次人年月天周]")


def find_numbers(text: str) -> list[NumberMatch]:
    """Every number expression inside free text, with its span in the NFKC-normalised,
    lower-cased text (the same as the input's for ordinary Chinese/ASCII text).

    A run glued to a preceding letter or digit ("A100", "H800") is skipped so product names
    are not read as quantities. Single Chinese digits inside words (一下) are returned too;
    callers decide from context whether they matter.
    """
    if not isinstance(text, str):
        return []
    normalized = unicodedata.normalize("NFKC", text).lower()
    matches: list[NumberMatch] = []
    for match in _CANDIDATE.finditer(normalized):
        raw = match.group(0).rstrip(".,")
        if raw[-2:-1] in ("万", "千", "亿") and raw.endswith("一") and _MEASURE_WORD.match(normalized, match.start() + len(raw)):
            raw = raw[:-1]  # "130万一台" is 1.3 million a server, not 1,300,001 servers
        if any(normalized.startswith(unit, match.start() + len(raw) - 1) for unit in UNITS_WITH_MAGNITUDE_PREFIX):
            raw = raw[:-1]
        value = parse_number(raw)
        if value is None and (digits := _LEADING_DIGITS.match(raw)):  # "0.5一度": digits run into a Chinese word; the digits are the number
            raw, value = digits.group(), parse_number(digits.group())
        if value is not None:
            matches.append(NumberMatch(match.start(), match.start() + len(raw), raw, value))
    return matches


_PARAM_WORDS = re.compile(r"(?:个)?(?:参数量?|params?|parameters?|模型|models?|规模|的)$")
MIN_PARAM_COUNT = 1e6  # a bare "7" is ambiguous, so a size needs its magnitude word


def parse_param_count(text: str) -> float | None:
    """A model size in parameters: "7B", "70亿参数", "0.5B", "1.5T", "405b params" → float.

    Returns ``None`` for anything that is not a positive count of at least a million,
    including bare numbers without a magnitude ("7") and expert notation ("8x7B").
    """
    if not isinstance(text, str):
        return None
    text = normalize_quantity(text)
    previous = None
    while previous != text:  # peel "参数", "params", "模型" ... from the end
        previous, text = text, _PARAM_WORDS.sub("", text).strip()
    value = parse_number(text)
    if value is None or value < MIN_PARAM_COUNT:
        return None
    return value
