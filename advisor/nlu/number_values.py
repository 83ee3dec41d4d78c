"""What a number in a message is, from its unit or the words around it: a price (and what it is the price
of), a memory size, a token count, a model size, a duration, users, a speed. ``values`` finds the numbers and
claims what these functions make of them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from advisor.nlu.money_words import (
    ENERGY_PRICE_BEFORE,
    OTHER_CURRENCIES,
    PER_AFTER,
    PER_BEFORE,
    PRICE_AFTER_PERIOD,
    RENT_BEFORE,
    RENTING,
    SPENDING_BEFORE,
    SUBUNIT,
    TOTAL_AFTER,
    UNIT_PRICE_AFTER,
    WAN_CONTEXT_BEFORE,
)
from advisor.nlu.phrases import phrase_table, word_at, words_in
from advisor.nlu.time_words import HOURS, duration_unit


@dataclass(frozen=True)
class Value:
    """One mention: its span in the normalised text, what kind of thing it is, and its value."""

    start: int
    end: int
    kind: str  # model, gpu, other_gpu (a card the catalog lacks), params, memory, tokens, money, thousands (an amount
    #            or a length: "up to 8k"), percent, duration,
    #            date (a calendar deadline, in hours from today), daily, rate, latency, count_gpu, count_server,
    #            number, always_on, tp/pp/dp, batch, epochs, context_setting ("max-model-len 32768"), link_speed (a network
    #            link's line rate in Gb/s: "400G IB"), link_count (the links of that rate: "8 x 400G NICs"), or a keyword
    #            table name (precision, method, ...)
    value: object
    unit: str = ""
    surface: str = ""


# Units written right after a number (the number's end is where matching starts).
_SPACE = r"[\s]*"
REQUEST_VOLUME = 1000  # a count of requests from here up, said with no period, is traffic over time, never requests at once
UNIT_AFTER = [
    ("rate", phrase_table("token_rate_unit").pattern),
    ("latency", phrase_table("latency_unit").pattern),
    ("latency_seconds", phrase_table("latency_seconds_unit").pattern),
    ("power_kw", phrase_table("power_kw_unit").pattern),  # "20 kW rack", "单柜8kW" (not kWh, a price)
    ("power_mw", phrase_table("power_mw_unit").pattern),
    ("money_kwh", re.compile(_SPACE + r"(?:元|块钱|块|美分|cents?|\$|usd|dollars?|yuan|rmb|eur(?:os?)?|€|欧元|£|gbp|p|pence)?\s*(?:/|每|per|一)\s*(?:度|kwh|千瓦时)")),
    ("money", re.compile(_SPACE + r"(?:万元|万|千元|k)?\s*(?:元|块钱|块(?!\s*(?:卡|显卡|gpu|\d))|人民币|rmb|cny|yuan|美元|美金|刀|usd|dollars?|bucks|cents?|美分|eur(?:os?)?|€|欧元|gbp|pounds?|quid|英镑|rupees?|inr)(?![a-z])")),
    ("percent", phrase_table("percent_unit").pattern),
    ("link_speed", phrase_table("link_speed_unit").pattern),  # "400G IB", "200Gb/s RoCE", "NDR 400G": a line rate, never memory
    ("memory", re.compile(_SPACE + r"(?:gb|gib|g(?![a-z])|gigs?|吉|个g)(?:\s*(?P<memory_word>显存|内存|vram|memory|hbm|ram|unified))?", re.IGNORECASE)),
    # "3B tokens/day" is a volume over a period; "tokens/s" a speed (the rate unit above)
    ("tokens", re.compile(_SPACE + r"(?:个)?\s*(?:tokens?|toks?|词元|字(?![节符]))(?![a-z])(?!\s*/\s*(?!(?:day|d|month|mo|week|wk|year|yr|天|日|月|周|年)(?![a-z])))")),
    ("count_gpu", re.compile(_SPACE + r"(?:x|×|\*)(?=\s*[a-z\u4e00-\u9fff\ue000])|" + r"[\s-]*(?:张|块|片)?\s*(?:卡|显卡|(?:gpus?|cards?|accelerators?|npus?)(?![a-z]))|" + _SPACE + r"(?:张|块|片)")),
    # a request RATE, not requests in flight ("50 QPS", "200请求/秒"); a count of requests is one only after a period
    ("request_rate", phrase_table("request_rate_unit").pattern),
    ("requests", phrase_table("request_count_unit").pattern),
    ("users", phrase_table("role_users_unit").pattern),  # "200 support agents": people named by their job (the Chinese ones too)
    ("users", re.compile(r"-(?:person|member|strong)(?![a-z])|" + _SPACE + r"(?:个|位|名)?\s*(?:(?:concurrent|simultaneous|active|daily|monthly)\s+){0,2}(?:(?:concurrent|simultaneous|parallel)\s+requests?|dau|mau|requests?\s+(?:in\s+flight|at\s+once|in\s+parallel)|in\s+flight|个?请求同时|个?同时(?:的)?请求|个?并发请求|users?|people|ppl|folks|persons|clients|chats|sessions|agents|employees|staff|seats|colleagues|coworkers|co-workers|teammates|team\s+members|engineers|devs|developers|researchers|students|analysts|scientists|at\s+once|at\s+a\s+time|用户|人同时|人在线|路并发|路|并发|号?人(?!工)|研究生|学生|同学|研发|员工|工程师|同事)(?![a-z])")),
    ("count_server", re.compile(_SPACE + r"(?:台|机(?!器学|柜|房|架)|节点|个节点|(?:(?:hgx|dgx)\s*)?(?:nodes?|servers?|machines?|box(?:es)?|hosts?|workstations?|rigs?)(?![a-z]))")),
    ("daily", phrase_table("daily_unit").pattern),
    ("duration", re.compile(r"[\s-]*(?:个|more|extra|additional)?\s*(?P<unit>小时|钟头|钟(?=[^头])|钟$|hours?|hrs?|h(?![a-z0-9])|天|days?|d(?![a-z0-9])|周|星期|weeks?|wks?|个月|月|months?|mos?|年|years?|yrs?)(?![a-z])")),
]
SECONDS_PER = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86_400.0, "month": 30 * 86_400.0}
DAILY_BEFORE = re.compile(r"(?:每天|每日|一天|天天|日均|(?:只|就|只在)白天|daily|a day)\s*(?:就|也就|大概|大约|约|只|只会|差不多)?\s*(?:用|跑|运行|开|使用|工作|run|use)?\s*(?:大概|约)?\s*$")
K_SUFFIX = re.compile(r"\d\s*k$")
DATA_BEFORE = re.compile(r"(?:数据|语料)(?:量|集)?[^\d，。,;；]{0,6}$|(?<![a-z])(?:data(?:set)?|corpus)\s*(?:of|is|at|to|:)?\s*$")
MODEL_WORD_AFTER = re.compile(r"\s*(?:[a-z][\w.\-]*[\s-]*(?:style|like|class|arch(?:itecture)?)\s+)?(?:model|llm|transformer|模型)(?![a-z])")


def number_value(text: str, start: int, end: int, raw: str, value: float, words_only: bool = False) -> Value | None:
    """A number with what follows or precedes it; ``None`` when it is part of a name or a log line."""
    before = text[max(0, start - 12) : start]
    if raw in ("一", "二") and word_at(text, end, "one_in_a_word", after_spaces=False) is not None:  # 一样, 一直, 二手: words, not quantities
        return None
    if phrase_table("denominator_before").ending_at(text, start):  # "每10亿参数约4GB", "per 1k tokens": a unit of a rate, not a quantity
        return None
    context = None if words_only else phrase_table("context_after").at(text, end)
    if context and (K_SUFFIX.search(raw) or value >= 512):  # "4k context", "8192 ctx": a context length, in any task
        return Value(start, context.end, "context_setting", token_count(raw, value), "tokens", text[start : context.end])
    symbol_match = None if words_only else phrase_table("currency_before").ending_at(text, start)
    symbol = text[symbol_match.start : symbol_match.end] if symbol_match else ""
    if raw.endswith("w"):  # read as 万 by the number parser
        if symbol or WAN_CONTEXT_BEFORE.search(before) or phrase_table("wan_money_after").at(text, end):
            return money_value(text, start - len(symbol), end, value, False, symbol=symbol)
        if not phrase_table("wan_items_after").at(text, end):  # "20w条" counts items in ten thousands; read on as 万
            return Value(start, end, "number", value / 1e4, "W", raw)  # "450w": watts
        raw = raw[:-1] + "万"
    counted = None  # a count of requests with no period, if no other unit claims the number
    for kind, pattern in UNIT_AFTER:
        match = pattern.match(text, end)
        if not match:
            continue
        if kind in ("count_gpu", "count_server") and not value.is_integer():  # "1.2x": a multiple, never a count of cards
            continue
        stop = match.end()
        surface = text[start:stop]
        if kind in ("money", "money_kwh"):  # "每度0.85元": per kWh when the kWh came first
            per_kwh = kind == "money_kwh" or (value < 5 and _energy_price_before(text, start))
            return money_value(text, start - len(symbol), stop, value, per_kwh, symbol=symbol)
        if kind == "link_speed" or (kind == "memory" and not match.group("memory_word") and phrase_table("link_speed_before").ending_at(text, start)):
            return Value(start, stop, "link_speed", value, "Gb/s", surface)  # "NDR 400G": the network word before it says so
        if kind == "memory":
            return Value(start, stop, "memory", value, "GB", surface)
        if kind == "tokens":
            if phrase_table("per_second_before").ending_at(text, start):  # "每人每秒20个token": a speed, not a length
                return Value(start, stop, "rate", value, "tokens/s", surface)
            return Value(start, stop, "tokens", token_count(raw, value), "tokens", surface)
        if kind == "duration":
            unit = duration_unit(match.group("unit"))
            if value == 1 and PRICE_AFTER_PERIOD.match(text, stop):  # "一个月三十多万": the period of a price, not a span of time
                return None
            if DAILY_BEFORE.search(before) and unit == "hour":
                return Value(start, stop, "daily", value, "hours/day", surface)
            return Value(start, stop, "duration", value * HOURS[unit], unit, surface)
        if kind == "daily":
            return Value(start, stop, "daily", value, "hours/day", surface)
        if kind == "power_mw":  # "a 2 MW hall": kept in kW like "20 kW"
            return Value(start, stop, "power_kw", value * 1000, "kW", surface)
        if kind == "power_kw":
            return Value(start, stop, "power_kw", value, "kW", surface)
        if kind == "request_rate":
            return request_rate(start, stop, value, next(p for p in SECONDS_PER if match.group(p)), surface)
        if kind == "requests":
            period = phrase_table("request_rate_period").ending_at(text, start)
            if period is None and match.group("conversations"):  # conversations with no period: a data set's samples
                continue
            if period is None:  # "200个请求" with no period: not a rate ("200个请求同时" is requests in flight, below)
                counted = counted or Value(start, end, "requests", value, "", text[start:end])  # a volume, no count of cards or users
                continue
            return request_rate(start, stop, value, period.label, surface)
        if kind == "latency_seconds":  # "首token 1秒以内", "ttft under 2s": kept in milliseconds like "300ms"
            return Value(start, stop, "latency", value * 1000, "", surface)
        return Value(start, stop, kind, value, "", surface)
    if counted is not None:  # "一共5千万次请求": a count of requests, never money however large
        return counted
    if words_only:
        return None
    rate = PER_AFTER.match(text, end)
    if rate and (rate.group("gpu") or RENT_BEFORE.search(before) or rate.group().startswith("/")):  # "2.99 per gpu hour", "at 0.79/hr": a price
        return money_value(text, start - len(symbol), end, value, False, symbol=symbol)
    period = phrase_table("period_right_before").ending_at(text, start)
    if period and (RENTING.search(text, 0, start) or period.label == "card"):  # "租的话每小时2.5", "每张卡每小时1.8": a rent
        return money_value(text, start - len(symbol), end, value, False, symbol=symbol)
    if value >= 100 and RENT_BEFORE.search(before) and _period_before(text, start):  # "每月租金8000": a rent for that period
        return money_value(text, start - len(symbol), end, value, False, symbol=symbol)
    if _energy_price_before(text, start) and value < 5:  # "power was 0.08", "电费0.6": a price per kWh
        return money_value(text, start - len(symbol), end, value, True, symbol=symbol)
    if symbol or (phrase_table("budget_before").ending_at(text, start) and value >= 100):  # "预算5000", "budget 5000": an amount
        return money_value(text, start - len(symbol), end, value, False, symbol=symbol)
    named_rate = phrase_table("request_rate_name").ending_at(text, start)
    if named_rate:  # "QPS 20", "rpm大概3000"
        return request_rate(start, end, value, named_rate.label, raw)
    traffic = phrase_table("traffic_users_before").ending_at(text, start)
    if traffic:  # "日活5万", "DAU of 20k": an audience over a period, said before the number (its words kept in the surface)
        return Value(start, end, "users", value, "", text[traffic.start : end])
    if re.search(r"[kmb]$|万|亿|千|billion|trillion|million|thousand|lakh|crore|\dt$", raw):
        return magnitude_value(text, start, end, raw, value)
    if phrase_table("users_before").ending_at(text, start):  # "用户数大概五十个", "concurrency is 40"
        return Value(start, end, "users", value, "", raw)
    if value.is_integer() and 1 < value <= 1024 and phrase_table("buy_before").ending_at(text, start):  # "when would buying 8 pay off"
        return Value(start, end, "count_gpu", value, "", raw)
    return Value(start, end, "number", value, "", raw)


def request_rate(start: int, end: int, value: float, period: str, surface: str) -> Value:
    """Requests arriving per second/minute/hour, kept per second; the unit says how the user wrote it."""
    return Value(start, end, "request_rate", value / SECONDS_PER[period], f"requests/{period}", surface)


def _energy_price_before(text: str, start: int) -> bool:
    """An electricity word right before the amount ("电费0.6", "power was", "一度电"): the amount is per kWh."""
    return bool(ENERGY_PRICE_BEFORE.search(text[max(0, start - 24) : start]))


def magnitude_value(text: str, start: int, end: int, raw: str, value: float) -> Value:
    """'70b' / '70亿' (参数) is a model size; '16k' / '1.5T' (tokens) a token count; '30万' an amount."""
    params_end = word_at(text, end, "params_word")
    if params_end is None and DATA_BEFORE.search(text, max(0, start - 12), start):  # "数据加到500亿": an amount of data is tokens
        return Value(start, end, "tokens", value, "tokens", raw)
    model_after = value >= 1e7 and MODEL_WORD_AFTER.match(text, end)  # "a 125M gpt-2 style model"
    if params_end is not None or model_after or re.search(r"\d\s*b$|billion|\d\s*b\s", raw + " ") and value >= 1e8:
        stop = params_end if params_end is not None else end
        return Value(start, stop, "params", value, "params", text[start:stop])
    if "亿" in raw and value >= 1e8:
        return Value(start, end, "params", value, "params", raw)
    spending = SPENDING_BEFORE.search(text[max(0, start - 40) : start]) or phrase_table("budget_after").at(text, end)  # "on a 5k budget"
    if K_SUFFIX.search(raw) and spending and word_at(text, end, "length_word") is None:
        money = money_value(text, start, end, value, False)  # "under 15k", "budget is 80k": an amount, not tokens
        if money.value[1] or money.unit != "once":
            return money
        # "cap it at 8k", "up to 32k": a limit with no currency may be spent or a length; the tagger decides
        return Value(start, end, "thousands", value, "", raw)
    if K_SUFFIX.search(raw):
        return Value(start, end, "tokens", token_count(raw, value), "tokens", raw)
    if re.search(r"\dt$|trillion", raw):
        return Value(start, end, "tokens", value, "tokens", raw)
    if "万" in raw and phrase_table("wan_items_after").at(text, end):  # "3万条样本": ten thousands of counted items, no amount
        return Value(start, end, "number", value, "", raw)
    if re.search(r"万|lakh|crore", raw):  # "30万", "25 lakh" are amounts; a bare "两千" may as well be a length ("输入一般两千左右")
        return money_value(text, start, end, value, False)
    return Value(start, end, "number", value, "", raw)


def token_count(raw: str, value: float) -> float:
    """'32k' of tokens means 32 × 1024, as context windows are sized."""
    return value / 1000 * 1024 if K_SUFFIX.search(raw) else value


def _period_before(text: str, start: int) -> str | None:
    """The period (or per-GPU-hour unit) an amount is the price of, written before it: "每月租金8000", "卡时1.8元"."""
    unit = phrase_table("rate_unit_before").ending_at(text, start)
    if unit:
        return unit.label
    before = PER_BEFORE.search(text[max(0, start - 16) : start])
    if not before:
        return None
    per = "month" if before.group("rent") or before.group("month_a") else "year" if before.group("year_a") else "hour" if before.group("hour_a") else next(k for k in ("hour", "month", "year") if before.group(k))
    return "gpu_hour" if per == "hour" and re.search(r"卡|gpu", before.group()) else per


def money_value(text: str, start: int, end: int, value: float, per_kwh: bool, symbol: str = "") -> Value:
    surface = text[start:end]
    other = next((code for code, written in OTHER_CURRENCIES.items() if written.search(surface)), None)
    currency = other or ("USD" if words_in(surface, "usd_written") else "CNY")
    if not symbol and not other and not re.search(r"[元块钱币]|rmb|cny|yuan|usd|美|刀|dollar|bucks|\$|cent", surface):
        currency = ""  # "30万": an amount with no currency written; the language decides later
    if SUBUNIT.search(surface):
        value /= 100
        per_kwh = per_kwh or _energy_price_before(text, start)  # "electricity is about 12 cents"
    if per_kwh:
        return Value(start, end, "money", (value, currency, "kwh"), "kwh", surface)
    per_tokens = phrase_table("per_million_tokens_after").at(text, end)
    if per_tokens or phrase_table("per_million_tokens_before").ending_at(text, start):  # "$0.5 per million tokens": an API's price
        end = per_tokens.end if per_tokens else end
        return Value(start, end, "money", (value, currency, "mtok"), "mtok", text[start:end])
    per_match = PER_AFTER.match(text, end)
    per = "once"
    if per_match:
        per = "gpu_hour" if per_match.group("gpu") and per_match.group("hour") else next(k for k in ("hour", "month", "year") if per_match.group(k))
        end = per_match.end()
    else:
        if UNIT_PRICE_AFTER.match(text, end):  # "月租5万一台": the price of each, for the period said before it
            end = UNIT_PRICE_AFTER.match(text, end).end()
        per = _period_before(text, start) or per
    if per == "hour" and re.search(r"gpu|卡", text[end : end + 12]):
        per = "gpu_hour"
    if per == "once" and (phrase_table("total_before").ending_at(text, start) or TOTAL_AFTER.match(text, end)):
        per = "all"
    return Value(start, end, "money", (value, currency, per), per, text[start:end])
