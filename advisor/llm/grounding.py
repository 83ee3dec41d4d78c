"""Does every figure in an LLM answer come from a tool result or the user? (memory, compute, speed, time, power, money)

Only numbers with a unit are checked: GB/GiB/TB (and /s), TFLOPS/FLOPs, tok/s, hours/days/weeks/
months, W/kW/kWh, and money ($, ¥, USD, 元, 万元…). A figure is grounded when it matches a number
in this conversation's tool results, the user's messages or the GPU catalog's memory sizes, within
the rounding it is written with (at least 3%; 12% after "about", "~", "约"), also after the
usual conversions (GB↔GiB, TB→GB, days↔hours, W↔kW, the exchange rate a tool used) and for an
integer multiple of a GPU count or server count ("2 × 24 GB = 48 GB").
"""

from __future__ import annotations

import bisect
import datetime as dt
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tools.cost.price_age import age_months

GIB = 2**30 / 1e9
RELATIVE = 0.03
APPROXIMATE = 0.12
MAX_UNGROUNDED_SHOWN = 8
COUNT_KEYS = {"count", "num_gpus", "total_gpus", "gpus_per_server", "servers", "tp", "pp", "dp", "max_gpus"}
RATE_KEYS = {"usd_to_cny"}

_NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?"
_MULTIPLIER = r"(?:\s?(thousand|million|billion|trillion|[kKMB](?![A-Za-z])|万|亿|千))?"
_CURRENCY_BEFORE = r"(US\$|\$|¥|￥|USD\s?|CNY\s?|RMB\s?)?"
_UNIT = (
    r"(GiB/s|GB/s|TB/s|GiB|GB|TiB|TB|MiB|MB|G(?=显存|的|\s*(?:显存|卡|VRAM))|PFLOPS|TFLOPS|TFLOP/s|FLOPs|FLOPS|FLOP"
    r"|tok(?:ens?)?/s|tokens? per second|GPU[- ]?hours?|GPU时|卡时|hours?|hrs?|小时|h(?![A-Za-z])|days?|天|weeks?|周|months?|个月"
    r"|MWh|kWh|度电|度|MW|kW|W(?![A-Za-z])|USD|CNY|RMB|美元|万元|亿元|元|dollars?)?"
)
FIGURE = re.compile(_CURRENCY_BEFORE + r"(?<![A-Za-z0-9_.])" + _NUMBER + _MULTIPLIER + r"\s?" + _UNIT)
PLAIN_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])" + _NUMBER + _MULTIPLIER)
RANGE_HEAD = re.compile(r"(?<![A-Za-z0-9_.])" + _NUMBER + r"\s*(?:-|–|—|~|～|to|至|到)\s*$")
APPROX = re.compile(r"(about|around|approx\.?|approximately|roughly|nearly|almost|~|≈|约|大约|大概|近|接近)\s*$", re.IGNORECASE)
APPROX_AFTER = re.compile(r"^\s*(左右|上下)")
CARD_BEFORE = re.compile(
    r"(?:[A-Za-z]{1,4}\s?\d{2,4}[A-Za-z]{0,3}|\b\d{4}\b|昇腾\s?\d{3}[A-Z]?|卡)\s*(?:SXM\d?|PCIe|NVL)?\s*[(（,，:：]?\s*$"
)
CARD_AFTER = re.compile(r"^\s*[)）]?\s*(?:cards?\b|GPUs?\b(?!\s*memory)|accelerators?\b|显卡|卡|版)")
USER_COUNT = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,4})\s*(?:[×xX*]|张|块|台|个节点|cards?\b|GPUs?\b|nodes?\b|servers?\b|卡)")
MULTIPLIERS = {
    "thousand": 1e3,
    "k": 1e3,
    "K": 1e3,
    "千": 1e3,
    "million": 1e6,
    "M": 1e6,
    "billion": 1e9,
    "B": 1e9,
    "trillion": 1e12,
    "万": 1e4,
    "亿": 1e8,
}


@dataclass(frozen=True)
class Figure:
    text: str
    value: float
    family: str
    unit: str
    step: float  # half of the last written digit, in the figure's own unit
    approximate: bool
    names_a_card: bool = False  # "a 24 GB card", "A100 80GB": a catalog memory size, not a computed need


def _family(unit: str, currency: str) -> str | None:
    u = unit.lower()
    if currency or u in {"usd", "cny", "rmb", "美元", "万元", "亿元", "元", "dollar", "dollars"}:
        return "money"
    if not u:
        return None
    if u.startswith("tok"):
        return "throughput"
    if "flop" in u:
        return "compute"
    if u.endswith("/s") and u[0] in "gtm":
        return "bandwidth"
    if u in {"gib", "gb", "tib", "tb", "mib", "mb", "g"}:
        return "memory"
    if u in {"mwh", "kwh", "度电", "度"}:
        return "energy"
    if u in {"mw", "kw", "w"}:
        return "power"
    return "time"


def _number(whole: str, decimals: str | None, exponent: str | None) -> tuple[float, float]:
    value = float(whole.replace(",", "") + (f".{decimals}" if decimals else "") + (f"e{exponent}" if exponent else ""))
    step = 0.5 * 10 ** (-len(decimals or "")) * (10 ** int(exponent) if exponent else 1)
    return value, step


def extract_figures(text: str) -> list[Figure]:
    """Numbers with a unit (or currency) in ``text``, ranges included ("18–20 GB" gives both)."""
    figures = []
    for match in FIGURE.finditer(text or ""):
        currency, whole, decimals, exponent, multiplier, unit = match.groups()
        unit = unit or ""
        family = _family(unit, (currency or "").strip())
        if family is None:
            continue
        value, step = _number(whole, decimals, exponent)
        scale = MULTIPLIERS.get(multiplier or "", 1.0) * (1e4 if unit == "万元" else 1e8 if unit == "亿元" else 1.0)
        before, after = text[: match.start()], text[match.end() :]
        approximate = bool(APPROX.search(before[-12:]) or APPROX_AFTER.match(after))
        card = family == "memory" and bool(CARD_BEFORE.search(before[-24:]) or CARD_AFTER.match(after))
        figures.append(Figure(match.group(0).strip(), value * scale, family, unit, step * scale, approximate, card))
        head = RANGE_HEAD.search(before)
        if head:
            low, low_step = _number(*head.groups())
            low_text = head.group(1) + (f".{head.group(2)}" if head.group(2) else "")
            figures.append(Figure(f"{low_text} {unit}".strip(), low * scale, family, unit, low_step * scale, True))
    return figures


def numbers_in_text(text: str) -> Iterator[float]:
    for match in PLAIN_NUMBER.finditer(text or ""):
        whole, decimals, exponent, multiplier = match.groups()
        value, _ = _number(whole, decimals, exponent)
        yield value
        if multiplier in MULTIPLIERS:
            yield value * MULTIPLIERS[multiplier]


@dataclass
class Corpus:
    numbers: list[float]
    counts: set[int]
    rates: set[float]
    card_sizes: set[float] = field(default_factory=set)
    stated: set[float] = field(default_factory=set)  # the numbers the user wrote (a budget, a rack limit)

    def contains(self, value: float, tolerance: float) -> bool:
        i = bisect.bisect_left(self.numbers, value - tolerance)
        return i < len(self.numbers) and self.numbers[i] <= value + tolerance


def build_corpus(results: Iterable[Any], texts: Iterable[str] = (), card_sizes: Iterable[float] = ()) -> Corpus:
    """Every number in the tool results (strings such as formulas included) and the texts; ``card_sizes``
    (the catalog's GPU memory sizes) ground only figures that name a card ("a 24 GB card")."""
    numbers: set[float] = set()
    counts: set[int] = set()
    rates: set[float] = set()
    stack = list(results)
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in COUNT_KEYS and isinstance(value, int) and 1 < value <= 100_000:
                    counts.add(value)
                if key in RATE_KEYS and isinstance(value, (int, float)) and value > 0:
                    rates.add(float(value))
                stack.append(value)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, bool):
            continue
        elif isinstance(item, (int, float)):
            numbers.add(abs(float(item)))
        elif isinstance(item, str):
            numbers.update(numbers_in_text(item))
            numbers.update(_ages(item, dt.date.today()))
    stated: set[float] = set()
    for text in texts:
        stated.update(numbers_in_text(text))
        counts.update(int(n) for n in USER_COUNT.findall(text or "") if 1 < int(n) <= 1024)
    numbers |= stated
    clean = {n for n in stated if not math.isnan(n) and n >= 100}  # a money limit, not "72" of a model name
    return Corpus(sorted(n for n in numbers if not math.isnan(n)), counts, rates, {float(x) for x in card_sizes}, clean)


def _ages(text: str, today: dt.date) -> set[float]:
    """A date in a tool result ("2025-01", "2025-01-15") grounds the age an answer says of it ("23 months old", "6 years
    old"): whole months either way of the exact figure, and whole years."""
    if len(text) not in (7, 10) or text[4:5] != "-" or not text[:4].isdigit() or not text[5:7].isdigit():
        return set()
    try:
        months = age_months(text, today)
    except ValueError:
        return set()
    return {float(math.floor(months)), float(math.ceil(months)), float(round(months)), float(int(months // 12))} if months >= 0 else set()


def _candidates(figure: Figure, corpus: Corpus) -> Iterator[float]:
    """The figure converted to the units a tool may have used for it."""
    v, u = figure.value, figure.unit.lower()
    if figure.family == "memory" or figure.family == "bandwidth":
        to_gb = {"gib": GIB, "gib/s": GIB, "tb": 1000, "tb/s": 1000, "tib": 1000 * GIB, "mb": 1e-3, "mib": GIB / 1024}.get(u, 1.0)
        base = [v * to_gb, v * to_gb / GIB, v]
    elif figure.family == "compute":
        base = [v, v * 1000, v * 1e12, v * 1e15] if "pflop" in u else [v, v * 1e12, v / 1e12] if "tflop" in u else [v, v / 1e12]
    elif figure.family == "time":
        if u.startswith(("day", "天")):
            base = [v, v * 24]
        elif u.startswith(("week", "周")):
            base = [v, v * 7, v * 168]
        elif u.startswith(("month", "个月")):
            base = [v, v * 30.4, v * 730]
        else:
            base = [v, v / 24]
    elif figure.family == "power":
        base = [v, v * 1000, v / 1000] if u in {"kw", "w"} else [v, v * 1000, v * 1e6]
    elif figure.family == "energy":
        base = [v, v * 1000] if u == "mwh" else [v, v / 1000]
    elif figure.family == "money":
        base = [v] + [v * r for r in corpus.rates] + [v / r for r in corpus.rates]
    else:
        base = [v]
    yield from base


def is_grounded(figure: Figure, corpus: Corpus) -> bool:
    if figure.value == 0:
        return True
    if figure.names_a_card and any(abs(figure.value - size) <= max(figure.step, 0.5) for size in corpus.card_sizes):
        return True
    relative = APPROXIMATE if figure.approximate else RELATIVE
    ratio = figure.step / figure.value if figure.value else 0
    for candidate in _candidates(figure, corpus):
        if corpus.contains(abs(candidate), abs(candidate) * max(relative, ratio)):
            return True
    # "2 × 24 GB = 48 GB": a multiple of a figure by a GPU or server count, in the figure's own unit and
    # without the slack of "about" (the more ways to match, the stricter each has to be).
    value = next(_candidates(figure, corpus))
    if any(corpus.contains(value / count, value / count * max(RELATIVE, ratio)) for count in corpus.counts):
        return True
    # "$484 to spare" of a stated $40,000 budget: the gap between a limit the user wrote and a computed sum, exactly
    # (money only, and the computed side must itself be a tool figure)
    return figure.family == "money" and any(
        corpus.contains(limit - value, max(figure.step, 0.5)) or corpus.contains(limit + value, max(figure.step, 0.5)) for limit in corpus.stated
    )


def ungrounded_figures(answer: str, corpus: Corpus) -> list[str]:
    """The figures of ``answer`` (as written) that nothing in ``corpus`` supports, first occurrence each."""
    seen: list[str] = []
    for figure in extract_figures(answer):
        if figure.text not in seen and not is_grounded(figure, corpus):
            seen.append(figure.text)
    return seen[:MAX_UNGROUNDED_SHOWN]


def repair_prompt(ungrounded: list[str], language: str) -> str:
    listed = ", ".join(ungrounded)
    reply = "Simplified Chinese" if language == "zh" else "English"
    return (
        f"Check failed: your answer states figures that no tool result in this conversation contains: {listed}. "
        "Call the tool that computes them and quote its numbers, or leave those figures out. "
        f"Then write the complete answer again, in {reply}, without mentioning this check."
    )
