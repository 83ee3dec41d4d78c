"""What a rent-or-buy question says in words that no slot holds, read once into the Ask so the TCO answer never
reads the message: running costs the reader took for a price (by the words of their clause), a quoted
cloud-to-owning multiple, where payback words sit, which spans of time are a commitment's term, and spans written
as a range. The words are data (``data/tco_words.yaml`` and the focus words of ``knowledge/answer_text``)."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict

from advisor.name_matcher import normalize_text
from advisor.nlu.facets import cue_pattern
from advisor.nlu.frame import Frame, Money
from advisor.nlu.number_values import REQUEST_VOLUME
from advisor.nlu.reader import COMMITMENT_AFTER
from advisor.nlu.time_words import HOURS, duration_range
from knowledge.answer_text import focus_words, word_positions
from knowledge.api_prices import api_prices
from knowledge.bilingual import Phrases
from tools.cost.tco_model import HOURS_PER_MONTH
from tools.quantities import parse_number

WORDS_FILE = Path(__file__).parent / "data" / "tco_words.yaml"
ASK_REACH_CHARS = 12  # "how long until it pays back",: the question word sits right before the payback word
RUNNING_FROM = ("server_price", "budget", "cloud_price")  # the roles the reader gives an amount it has no slot for
HOURLY = frozenset({"hour", "gpu_hour"})  # a price per (GPU-)hour is a rental rate: running costs are billed monthly or yearly


@cache
def _words() -> dict:
    return yaml.safe_load(WORDS_FILE.read_text(encoding="utf-8"))


class SaidValue(BaseModel):
    """A value of the conversation's frame, found again by its slot, where it was said and its words."""

    model_config = ConfigDict(frozen=True)

    slot: str
    start: int
    surface: str


class RunningCost(SaidValue):
    role: str  # "colocation" or "staff"
    per_kw: bool  # a colocation rate per kW-month rather than a bill for the space


class RatioClaim(BaseModel):
    """A quoted multiple of owning's cost ("cloud is 3x more expensive"): its value, where its number starts, and the
    number with its times word as written (a count the reader took from it, "3x", is no number of GPUs)."""

    model_config = ConfigDict(frozen=True)

    value: float
    start: int
    written: str


class HorizonRange(BaseModel):
    """A span of time written as a range ("for 2-3 years"): the value the reader kept and its two ends, in years."""

    model_config = ConfigDict(frozen=True)

    value: float
    low: float
    high: float


def running_costs(message: str, state: Frame) -> tuple[RunningCost, ...]:
    """Colocation and staff amounts the reader took for a purchase, a budget or a rent, told by the words of their
    clause ("colo $200 per kW-month", "an ops engineer at 20k a month"), one per role."""
    words = _words()["running_costs"]
    found: dict[str, RunningCost] = {}
    for slot in RUNNING_FROM:
        for value in state.slots.get(slot, []):
            if not isinstance(value.value, Money) or value.value.per in HOURLY:
                continue
            end = value.start + len(value.surface)
            after = message[end : end + words["after_chars"]] if value.start >= 0 else ""
            clause = f"{value.lead} {value.surface}".casefold()  # what it is the price of is said before it, its unit may follow
            role = next((r for r in ("colocation", "staff") if r not in found and any(w in clause for w in words[r]["words"])), None)
            if role:
                said = f"{clause} {after.casefold()}".replace(" ", "")
                per_kw = any(word.replace(" ", "") in said for word in words["per_kw"])
                found[role] = RunningCost(slot=slot, start=value.start, surface=value.surface, role=role, per_kw=per_kw)
    return tuple(found.values())


def ratio_claim(texts: list[str]) -> RatioClaim | None:
    """The first quoted multiple of owning's cost in ``texts`` (this message first, then the thread's earlier ones)."""
    return next((claim for text in texts if (claim := _ratio_claim(text)) is not None), None)


def _ratio_claim(message: str) -> RatioClaim | None:
    words = _words()["ratio_claim"]
    text = message.casefold()
    if not any(word in text for word in words["dearer"]):
        return None
    digits = set(words["number_chars"])
    for kind, times in words["times"].items():
        for word in times:
            at = text.find(word)
            while at > 0:
                following = text[at + len(word) : at + len(word) + words["after_chars"] + max(map(len, words["dearer"]))].lstrip()
                start = at
                while start > 0 and text[start - 1] in digits:
                    start -= 1
                if start < at and (kind == "chinese" or any(following.startswith(d) for d in words["dearer"])):
                    value = parse_number(text[start:at])
                    if value is not None and value > 1:
                        return RatioClaim(value=value, start=start, written=text[start : at + len(word)])
                at = text.find(word, at + 1)
    return None


def payback_word_starts(message: str) -> tuple[int, ...]:
    """Where this message says a payback as a claim ("pays back in 8 months"); a payback asked about ("when does it pay back") is a question, so the span beside it is no claim."""
    asks = [at for _, at in word_positions("tco_asks", message)]
    return tuple(
        at for item, at in word_positions("tco_claim", message)
        if item == "payback" and not any(0 <= at - q <= ASK_REACH_CHARS for q in asks)
    )  # fmt: skip


def commitment_terms(message: str, frame: Frame) -> tuple[int, ...]:
    """Where this message's spans of time that are a commitment's term start ("1yr commit": they price the
    rent, not how long the servers are kept."""
    text = normalize_text(message)
    return tuple(
        v.start for v in frame.slots.get("horizon", []) if v.start >= 0 and COMMITMENT_AFTER.match(text, v.start + len(v.surface))
    )


def horizon_ranges(state: Frame) -> tuple[HorizonRange, ...]:
    """The conversation's spans of time written as a range, with both ends in years."""
    ranges = []
    for said in state.slots.get("horizon", []):
        hours = duration_range(said.surface)
        if hours and isinstance(said.value, float):
            ranges.append(HorizonRange(value=said.value, low=hours[0] / HOURS["year"], high=hours[1] / HOURS["year"]))
    return tuple(ranges)


HOURS_IN = {"week": 168.0, "month": HOURS_PER_MONTH, "day": 24.0, "year": 12 * HOURS_PER_MONTH}


class GpuHours(BaseModel):
    """Use said as GPU-hours ("300 gpu-hours a week", "2000 card-hours a month"): an amount of use, never a count of cards. ``per`` is
    the period it is said over (None: a total, "a 5,000 GPU-hour job"); ``start``/``end`` span its words, so the count
    and the span of time the reader took from them can be set aside."""

    model_config = ConfigDict(frozen=True)

    hours: float
    per: str | None = None  # "week", "month", "day", "year"
    start: int
    end: int

    @property
    def per_month(self) -> float | None:
        """GPU-hours a month (a month = 730 hours), None for a total."""
        return None if self.per is None else self.hours * HOURS_PER_MONTH / HOURS_IN[self.per]


def gpu_hours_used(message: str) -> GpuHours | None:
    """The first amount of GPU-hours this message states, with the period beside it; None when it states none (a price
    "per GPU-hour" has no number before its unit)."""
    words = _words()["gpu_hours"]
    text = message.casefold()
    digits, between = set(words["number_chars"]), set(words["between"])
    found = sorted((at, unit) for unit in words["units"] for at in _positions(text, unit))
    for at, unit in found:
        end_number = at
        while end_number > 0 and text[end_number - 1] in between:
            end_number -= 1
        start = _number_start(text, end_number, digits)
        if start < end_number and start > 0 and text[start - 1].isascii() and text[start - 1].isalpha():
            # "300 H100 GPU-hours": the digits are a card's name (h100), the amount is the number before the name; a word
            # with no digits before the unit ("$2.1 per GPU-hour") is no card name, and the number before it no use
            name_start = start - 1
            while name_start > 0 and not text[name_start - 1].isspace() and text[name_start - 1] not in between:
                name_start -= 1
            end_number = name_start
            while end_number > 0 and text[end_number - 1] in between:
                end_number -= 1
            start = _number_start(text, end_number, digits)
        hours = parse_number(text[start:end_number].strip().replace(",", "")) if start < end_number else None
        if hours is None or hours <= 0:
            continue
        end = at + len(unit)
        reach = words["reach_chars"]
        before, after = text[max(0, start - reach) : start], text[end : end + reach]
        per, period_end = None, end
        for name, period_words in words["periods"].items():
            hit = next((w for w in period_words if w in after), None) or next((w for w in period_words if w in before), None)
            if hit:
                per = name
                if hit in after:
                    period_end = end + after.find(hit) + len(hit)
                break
        return GpuHours(hours=hours, per=per, start=start, end=period_end)
    return None


def _number_start(text: str, end: int, digits: set[str]) -> int:
    """Where the number that ends at ``end`` starts (``end`` itself when no digit stands there)."""
    start = end
    while start > 0 and text[start - 1] in digits:
        start -= 1
    return start


def _positions(text: str, word: str) -> list[int]:
    found, at = [], text.find(word)
    while at >= 0:
        found.append(at)
        at = text.find(word, at + 1)
    return found


class Reservation(BaseModel):
    """Reserved (committed) capacity weighed against on-demand in one message, with the hourly rate said for each."""

    model_config = ConfigDict(frozen=True)

    reserved: Money | None = None
    on_demand: Money | None = None


def reservation(message: str, frame: Frame, either: bool = False) -> Reservation | None:
    """Reserved against on-demand ("1-yr reserved at $3.9/hr vs on-demand $6.9", "on demand 45 yuan, yearly package 25"): None unless the
    message says both kinds of billing (``either``: one is enough, for a thread that weighed both before). Each hourly
    rate is bound to the billing word before it, or, when the rates are written first ("$3.9 reserved or $6.9 on
    demand"), to the one after it."""
    text = message.casefold()
    on_demand = sorted(at for word in _words()["reservation"]["on_demand"] for at in _positions(text, word))
    committed = sorted(at for word in focus_words("tco_billing")["committed"] for at in _positions(text, word))
    if not (on_demand or committed) or (not either and not (on_demand and committed)):
        return None
    cues = sorted([(at, "on_demand") for at in on_demand] + [(at, "reserved") for at in committed])
    rates = sorted((v for v in frame.slots.get("cloud_price", []) if isinstance(v.value, Money) and v.value.per in HOURLY and v.start >= 0),
                   key=lambda v: v.start)  # fmt: skip
    prefix = not rates or cues[0][0] < rates[0].start
    bound: dict[str, Money] = {}
    for rate in rates:
        if prefix:
            kind = next((kind for at, kind in reversed(cues) if at < rate.start), None)
        else:
            kind = next((kind for at, kind in cues if at > rate.start), None)
        if kind is not None and kind not in bound:
            bound[kind] = rate.value
    return Reservation(reserved=bound.get("reserved"), on_demand=bound.get("on_demand"))


def reservation_in_thread(messages: list[str], frame: Frame, state: Frame) -> Reservation | None:
    """The reservation a thread weighs, its rates carried across turns ("$2.1 on demand, reserve at $1.4?" then "what if
    we only use it half the time?" keeps both rates): the newest message's rates bound by its own frame, an earlier
    message's by the conversation's rates found again in its words (a rate restated since is no longer in the
    conversation, so the newer one holds). None unless some message of the thread weighs both kinds of billing."""
    *before, message = messages or [""]
    said = [reservation(text, _rates_in(text, state)) for text in before]
    if not any(said) and reservation(message, frame) is None:
        return None
    said.append(reservation(message, frame, either=True))
    kept = [s for s in said if s is not None]
    return Reservation(reserved=next((s.reserved for s in reversed(kept) if s.reserved), None),
                       on_demand=next((s.on_demand for s in reversed(kept) if s.on_demand), None))  # fmt: skip


def _rates_in(text: str, state: Frame) -> Frame:
    """The conversation's rents found in the words of one earlier message, each at the place it is written there."""
    folded = text.casefold()
    found = [replace(v, start=folded.find(v.surface)) for v in state.slots.get("cloud_price", []) if v.surface and v.surface in folded]
    return Frame({"cloud_price": found} if found else {})


class LoadShape(BaseModel):
    """The load a reservation covers, as said: the GPUs busy all the time (base), the most at once (peak) and the hours
    a day the peak lasts."""

    model_config = ConfigDict(frozen=True)

    base_gpus: int | None = None
    peak_gpus: int | None = None
    burst_hours_per_day: float | None = None


COUNT_KINDS = ("count_gpu", "number")


def load_shape(message: str, tagged: list, used: GpuHours | None = None) -> LoadShape | None:
    """Base and peak GPU counts and the burst's hours a day, each count bound to the nearest base or peak word before
    it in its clause, or a base word right after it ("8 GPUs around the clock"); words in ``data/tco_words.yaml``. A
    number of the GPU-hours ``used`` counts hours, not GPUs. None when the message says neither."""
    words = _words()["load_shape"]
    text = message.casefold()
    cues = sorted([(at + len(w), "base") for w in words["base"] for at in _positions(text, w)]
                  + [(at + len(w), "peak") for w in words["peak"] for at in _positions(text, w)])  # fmt: skip
    if not cues:
        return None
    counts: dict[str, int] = {}
    burst = None
    for item in sorted((t.value for t in tagged if used is None or not used.start <= t.value.start < used.end), key=lambda v: v.start):
        clause = max(text.rfind(mark, 0, item.start) for mark in CLAUSE_MARKS) + 1
        near = [(at, kind) for at, kind in cues if max(clause, item.start - words["reach_chars"]) <= at <= item.start]
        after = [(at, kind) for at, kind in cues if kind == "base" and item.end < at <= item.end + words["after_chars"]
                 and not _clause_between(text, item.end, at)]  # fmt: skip
        if not near and not after:
            continue
        kind = near[-1][1] if near else after[0][1]  # "8 GPUs around the clock": the word may follow the count
        if item.kind in COUNT_KINDS and isinstance(item.value, float) and item.value.is_integer() and 1 <= item.value <= 100_000:
            counts.setdefault(kind, int(item.value))
        elif kind == "peak" and (item.kind == "daily" or (item.kind == "duration" and item.unit == "hour" and item.value <= 24)):
            burst = float(item.value)
    if burst is None and "peak" in counts:  # "burst to 24 for about 6 hours a day": the hours come after the count
        burst = next((float(t.value.value) for t in tagged if t.value.kind == "daily" or (t.value.kind == "duration" and t.value.unit == "hour" and t.value.value <= 24)), None)  # fmt: skip
    if not counts:
        return None
    return LoadShape(base_gpus=counts.get("base"), peak_gpus=counts.get("peak"), burst_hours_per_day=burst)


def _clause_between(text: str, start: int, end: int) -> bool:
    return any(mark in text[start:end] for mark in CLAUSE_MARKS)


CLAUSE_MARKS = (",", "，", ";", "；", "。", "\n", ". ")


class ApiUsage(BaseModel):
    """What a message says about the API traffic it weighs against self-hosting: the API is named, and tokens a day
    (said a day, a month, or as requests a day × tokens each) when given."""

    model_config = ConfigDict(frozen=True)

    tokens_per_day: float | None = None
    tokens_no_period: float | None = None  # "200M tokens in all", "50M requests of 800 tokens": a volume said with no period
    requests_per_day: float | None = None
    tokens_per_request: float | None = None
    api_named: str | None = None  # the id in knowledge/api_prices.yaml of the API named ("GPT-4o", "DeepSeek API")


DAYS_PER_MONTH = 30.4
SECONDS_PER_DAY = 86_400


def api_usage(text: str, tagged: list) -> ApiUsage | None:
    """The API traffic of a message that names an API; None when it names none. ``tagged`` are the message's values
    with their roles (a token count has kind 'tokens', a daily request count kind 'request_rate')."""
    words = _words()["api_usage"]
    folded = normalize_text(text)
    if not any(_has_cue(folded, cue) for cue in words["api"]):
        return None
    requests = next((t.value.value * SECONDS_PER_DAY for t in tagged if t.value.kind == "request_rate"), None)
    per_day, per_request = _daily_tokens(folded, tagged, requests)
    total = None if per_day is not None else _tokens_no_period(folded, tagged)
    named = api_prices().named_in(folded)
    return ApiUsage(tokens_per_day=per_day, tokens_no_period=total, requests_per_day=requests, tokens_per_request=per_request,
                    api_named=named.id if named else None)  # fmt: skip


class RequestCount(BaseModel):
    """A count of requests said with no period ("10,000 requests", a Chinese count of 50k requests): the answers that
    size a load read it as a month's and say so (``advisor/offline/slots.py`` ``traffic``)."""

    model_config = ConfigDict(frozen=True)

    count: float
    said: str  # the count and its request word, as written


def requests_no_period(text: str, tagged: list) -> RequestCount | None:
    """The count of requests a message says with no period (a rate such as "3M requests a month" is read elsewhere)."""
    if any(t.value.kind == "request_rate" for t in tagged):  # a rate said beside it: the period is the rate's
        return None
    counted = _request_count(normalize_text(text), tagged)
    return counted if counted is not None and counted.count >= REQUEST_VOLUME else None  # "30 requests": a load, not a volume


def _request_count(folded: str, tagged: list) -> RequestCount | None:
    words = _words()["api_usage"]
    reach = words["reach_chars"]
    for item in (t.value for t in tagged if t.value.kind in ("requests", "number")):  # "50M API requests": a word may stand between
        after = folded[item.end : item.end + reach]
        found = [(after.find(w), w) for w in words["requests"] if _has_cue(after, w)]
        if found:
            at, word = min(found)
            end = item.end + (at if at >= 0 else 0) + len(word)
            return RequestCount(count=float(item.value), said=folded[item.start : end].strip())
    return None


def _tokens_no_period(folded: str, tagged: list) -> float | None:
    """A volume said with no period: the largest token count with no period word beside it, or a count of requests
    ("50M requests") times the tokens each; None when a period is said (that is a daily volume) or nothing is counted."""
    words = _words()["api_usage"]
    reach = words["reach_chars"]
    counted = _request_count(folded, tagged)
    requests = counted.count if counted is not None else None
    tokens = [t.value.value for t in tagged if t.value.kind == "tokens"
              and not any(w in folded[max(0, t.value.start - reach) : t.value.end + reach] for w in words["per_day"] + words["per_month"])]  # fmt: skip
    # the count of requests times the tokens each (the smaller count is the request's), else the largest token count
    total = requests * min(tokens) if requests is not None and tokens else max(tokens, default=None)
    return total if total is not None and total >= words["volume_floor"] else None


def daily_token_volume(text: str, tagged: list) -> float | None:
    """Tokens a day a message states as a volume ("100M tokens a day", "3B tokens a month"), with or without an API named."""
    return _daily_tokens(normalize_text(text), tagged, None)[0]


def _daily_tokens(folded: str, tagged: list, requests: float | None) -> tuple[float | None, float | None]:
    """Tokens a day and tokens per request among the message's token counts, by the period words around each."""
    words = _words()["api_usage"]
    reach = words["reach_chars"]
    per_day = per_request = None
    for item in (t.value for t in tagged if t.value.kind == "tokens"):
        around = folded[max(0, item.start - reach) : item.end + reach]
        after = folded[item.end : item.end + reach]
        if requests is not None and any(w in around for w in words["per_request"]):
            per_request = item.value
        elif any(w in around for w in words["per_day"]):
            per_day = item.value
        elif any(w in around for w in words["per_month"]) or any(w in after for w in ("a month",)):
            per_day = item.value / DAYS_PER_MONTH
        elif requests is not None:
            per_request = item.value
    if per_day is None and requests is not None and per_request is not None:
        per_day = requests * per_request
    return per_day, per_request


def _has_cue(folded: str, cue: str) -> bool:
    """An ASCII cue as a whole word ("api", not "capital"), a Chinese cue anywhere."""
    if not cue.isascii():
        return cue in folded
    at = folded.find(cue)
    while at >= 0:
        before = folded[at - 1] if at else " "
        after = folded[at + len(cue)] if at + len(cue) < len(folded) else " "
        if not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalnum()):
            return True
        at = folded.find(cue, at + 1)
    return False


@cache
def _tier_patterns() -> dict[str, re.Pattern[str]]:
    words = _words()
    return {name: cue_pattern(Phrases.model_validate(phrases)) for name, phrases in (*words["rent_tiers"].items(), ("asks_tier", words["asks_tier"]))}


def rent_tiers_named(messages: list[str]) -> tuple[str, ...]:
    """The rent tiers these messages name ("Vast or RunPod" → marketplace, "stay on AWS" → hyperscaler), in the order of
    ``data/tco_words.yaml``; "asks_tier" last when a word asks which tier to rent from."""
    text = normalize_text(" ".join(messages))
    return tuple(name for name, pattern in _tier_patterns().items() if pattern.search(text))
