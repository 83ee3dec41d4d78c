"""Built-in values: every mention of a name, number-with-unit or known keyword, resolved.

This is the deterministic half of understanding (as in Snips' built-in entities): it finds
*what* was written — "8卡" is a count of cards, "0.8元/度" money per kWh, "A100 80GB" a
catalog GPU — and resolves it to a value. *Which role* a value plays (a GPU count or a TP
degree, a budget or a server price, a context or an output length) is left to the trained
role tagger. Nothing here raises; odd input gives fewer values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from advisor.name_matcher import matcher_for, normalize_text
from advisor.understanding.count_words import (
    BATCH,
    BUY_BEFORE,
    CONTEXT_SETTING,
    GPUS_PER_NODE,
    MFU,
    NODES_OF_GPUS,
    OF_THEM,
    OTHER_SETTING,
    PARALLEL,
    SERVERS_OF_NAMED_CARDS,
    TIMES_AFTER_NAME,
    TIMES_COUNT,
    WORD_NUMBERS,
)
from advisor.understanding.entity_words import OTHER_GPU, keyword_tables, model_name_pattern, model_version_pattern, names_written_apart
from advisor.understanding.money_words import (
    CURRENCY_USD,
    DISCOUNT,
    JIAO_AND_FEN,
    MONEY_BEFORE,
    OTHER_CURRENCIES,
    PER_AFTER,
    PER_BEFORE,
    PER_KWH_AFTER,
    PRICE_AFTER_PERIOD,
    SUBUNIT,
    TENTHS,
    TOTAL_AFTER,
    TOTAL_BEFORE,
    UNIT_BEFORE_PRICE,
    UNIT_PRICE,
    UNIT_PRICE_AFTER,
    YUAN_AND_JIAO,
)
from advisor.understanding.time_words import HOURS, duration_unit, time_values
from knowledge.catalog import Catalog
from tools.quantities import CHINESE_DIGITS, find_numbers, parse_number

PCI_ADDRESS = re.compile(r"(?<![0-9a-f])(?:pci:)?[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}(?:\.[0-9a-f])?(?![0-9a-f])")
MAX_TEXT = 4000  # values are read from the start and the end of long pastes, where the question sits
# Offsets must stay those of the text, so collapsed spaces are filled with a character no pattern
# matches: a long run of spaces would make the unit patterns' optional spaces backtrack quadratically.
INERT = "\x00"
LONG_SPACE = re.compile(r"\s{4,}")
SPACES = re.compile(r"\s*")
ENDS_MESSAGE = re.compile(r"[\s?？!！.。呢吗]*$")
GLUED_DIGITS = re.compile(r"\d{1,4}")
NUMBER_NAME_AND_COUNT = re.compile(r"(?<![\d.a-z])(?P<name>\d{4})(?P<n>\d{1,2})\s*(?:张|块)?\s*(?:卡|显卡)")


@dataclass(frozen=True)
class Value:
    """One mention: its span in the normalised text, what kind of thing it is, and its value."""

    start: int
    end: int
    kind: str  # model, gpu, other_gpu (a card the catalog lacks), params, memory, tokens, money, percent, duration,
    #            date (a calendar deadline, in hours from today), daily, rate, latency, count_gpu, count_server,
    #            number, always_on, tp/pp/dp, batch, context_setting ("max-model-len 32768"), or a keyword
    #            table name (precision, method, ...)
    value: object
    unit: str = ""
    surface: str = ""


# Units written right after a number (the number's end is where matching starts).
_SPACE = r"[\s]*"
UNIT_AFTER = [
    ("rate", re.compile(_SPACE + r"\+?\s*(?:tok(?:en)?s?\s*/\s*s(?:ec)?|t/s|tps|tokens?\s+(?:per|a)\s+sec\w*)(?![a-z])")),
    ("latency", re.compile(_SPACE + r"(?:ms|毫秒)(?![a-z])")),
    ("latency_seconds", re.compile(_SPACE + r"(?:秒钟|秒|s|secs?|seconds?)(?![a-z0-9/])")),
    ("money_kwh", re.compile(_SPACE + r"(?:元|块钱|块|美分|cents?|\$|usd|dollars?|yuan|rmb|eur(?:os?)?|€|欧元|£|gbp|p|pence)?\s*(?:/|每|per|一)\s*(?:度|kwh|千瓦时)")),
    ("money", re.compile(_SPACE + r"(?:万元|万|千元|k)?\s*(?:元|块钱|块(?!\s*(?:卡|显卡|gpu|\d))|人民币|rmb|cny|yuan|美元|美金|刀|usd|dollars?|bucks|cents?|美分|eur(?:os?)?|€|欧元|gbp|pounds?|quid|英镑|rupees?|inr)(?![a-z])")),
    ("percent", re.compile(_SPACE + r"(?:%|％|percent|个百分点)")),
    ("memory", re.compile(_SPACE + r"(?:gb|gib|g(?![a-z])|gigs?|吉|个g)(?:\s*(?:显存|内存|vram|memory|hbm|ram|unified))?", re.I)),
    ("tokens", re.compile(_SPACE + r"(?:个)?\s*(?:tokens?|toks?|词元|字(?![节符]))(?![a-z/])")),
    ("count_gpu", re.compile(_SPACE + r"(?:x|×|\*)(?=\s*[a-z\u4e00-\u9fff\ue000])|" + r"[\s-]*(?:张|块|片)?\s*(?:卡|显卡|(?:gpus?|cards?|accelerators?|npus?)(?![a-z]))|" + _SPACE + r"(?:张|块|片)")),
    ("users", re.compile(_SPACE + r"(?:个|位|名)?\s*(?:(?:concurrent|simultaneous|active|daily)\s+)?(?:(?:concurrent|simultaneous|parallel)\s+requests?|requests?\s+(?:in\s+flight|at\s+once|in\s+parallel)|in\s+flight|个?请求同时|个?同时(?:的)?请求|个?并发请求|users?|people|ppl|folks|persons|clients|chats|sessions|agents|employees|staff|seats|engineers|devs|developers|researchers|students|analysts|scientists|at\s+once|用户|人同时|人在线|路并发|路|并发|号?人(?!工)|研究生|学生|同学|研发|员工|工程师|同事|qps|rps|req(?:uest)?s?\s*/\s*s(?:ec)?|requests?\s+(?:per|a)\s+sec\w*)(?![a-z])")),
    ("count_server", re.compile(_SPACE + r"(?:台|机(?!器学)|节点|个节点|(?:(?:hgx|dgx)\s*)?(?:nodes?|servers?|machines?|box(?:es)?|hosts?|workstations?|rigs?)(?![a-z]))")),
    ("daily", re.compile(_SPACE + r"(?:个)?\s*(?:小时|hours?|hrs?|h)\s*(?:/\s*(?:天|day|d)(?![a-z])|每天|一天|a\s+day|per\s+day|daily|each\s+day)")),
    ("duration", re.compile(r"[\s-]*(?:个|more|extra|additional)?\s*(?P<unit>小时|钟头|钟(?=[^头])|钟$|hours?|hrs?|h(?![a-z0-9])|天|days?|d(?![a-z0-9])|周|星期|weeks?|wks?|个月|月|months?|mos?|年|years?|yrs?)(?![a-z])")),
]
# "30w预算", "8w块": Chinese writers shorten 万 (ten thousand) to w; only around money words, since
# "700W" is also a card's power.
WAN_CONTEXT_BEFORE = re.compile(r"(?:预算|花|报价|价格|价钱|售价|成本|买|租金|月租|总共|一共|每月|每个月|一个月|每年|一年|budget)[^\d]{0,4}$")
WAN_CONTEXT_AFTER = re.compile(r"\s*(?:的?预算|以内|以下|左右|块|元|rmb|cny|人民币|一台|一张|买|的机器|的服务器)")
PER_SECOND_BEFORE = re.compile(r"(?:每秒钟?|一秒钟?|per\s+second)\s*(?:至少|最少|能|要|大概|约)?\s*$")
DENOMINATOR_BEFORE = re.compile(r"(?:每|(?<![a-z])per)\s*$")
SPENDING_BEFORE = re.compile(r"(?:budget\b[^\d\n]{0,24}?\b(?:to|at)|(?:buy|bought|get|got|purchase[ds]?|quoted?)\b[^\n]{0,30}?\bfor|caps?\b[^\n]{0,20}?\bat|capped\s+at|ceiling|approved|grant|funding|budget|spend|under|below|up\s+to|at\s+most|max(?:imum)?|within|cost(?:s|ing)?|price[ds]?|quoted?|pay|paid|afford|capex|花|预算|不超过|最多)\s*(?:us|me|them)?\s*(?:of|is|was|at|about|around|roughly|~|:|=)?\s*(?:about|around|roughly|~)?\s*$")
NEGATED = re.compile(r"(?:不|不做|不搞|不用|不需要|没有|无需|(?<![a-z])(?:not|no|without|never|don'?t|won'?t|isn'?t)\s+(?:do(?:ing)?\s+|any\s+)?)$")
BUDGET_BEFORE = re.compile(r"(?:budget|预算)\s*(?:of|is|was|:|=|是|有|大概|约|在)?\s*(?:about|around|~)?\s*$")
BUDGET_AFTER = re.compile(r"\s*(?:budget|(?:的)?预算)")
USERS_BEFORE = re.compile(r"(?:用户数|用户量|人数|并发数|并发量|并发|同时在线|(?<![a-z])concurrency)\s*(?:也就|就|大概|大约|约|有|是|在|差不多|最多|顶多|撑死|能到|要|is|of|=|:)*\s*(?:about|around|~)?\s*$")
ENERGY_PRICE_BEFORE = re.compile(r"(?:power|electricity|energy|电费|电价)\s*(?:price|cost|rate)?\s*(?:was|is|were|at|of|=|:|按|是|为)?\s*(?:about|around|roughly|~|大概|约)?\s*(?:\$|¥|￥)?\s*$")
RENTING = re.compile(r"租|\brent|\blease|\bcloud")
PERIOD_RIGHT_BEFORE = re.compile(r"(?:每|一)\s*(?P<card>张?卡\s*每?\s*)?个?(?:小时|月)\s*(?:大概|约|是|要|差不多|就|才)?\s*$")
RENT_BEFORE = re.compile(r"(?:rent(?:ed|ing|s)?|rental|lease|cloud|price|cost|租金?|租用|单价|价格)[^\d]{0,8}$")
DAILY_BEFORE = re.compile(r"(?:每天|每日|一天|天天|日均|(?:只|就|只在)白天|daily|a day)\s*(?:就|也就|大概|大约|约|只|只会|差不多)?\s*(?:用|跑|运行|开|使用|工作|run|use)?\s*(?:大概|约)?\s*$")
IN_A_WORD = re.compile(r"对|手|样|直|定|般|起|些|旦|切|致|向|律|边|共|下子|会儿|点儿")
K_SUFFIX = re.compile(r"\d\s*k$")
CONTEXT_WORD_AFTER = re.compile(r"\s*(?:of\s+)?(?:context|ctx|上下文)(?:\s*(?:window|length|len))?(?![a-z])")
TOKEN_WORD_AFTER = re.compile(r"\s*(?:context|ctx|tokens?|seq|sequence|上下文|长度)")
ALWAYS_ON = re.compile(r"24\s*/\s*7|7\s*[x×*]\s*24|全天候|全天(?:运行|跑)|不间断|不关机|24\s*小时\s*(?:满载|不停|运行|开着|在线|跑|开机|工作|都在跑)|满载运行|全年无休|全年不停|常年开着|一直开着|不停机|around\s+the\s+clock|non[\s-]?stop")
DATA_BEFORE = re.compile(r"(?:数据|语料)(?:量|集)?[^\d，。,;；]{0,6}$|(?<![a-z])(?:data(?:set)?|corpus)\s*(?:of|is|at|to|:)?\s*$")
PARAMS_WORD = re.compile(r"\s*(?:个)?(?:参数|params?|parameters?)")





def find_values(text: str, catalog: Catalog) -> list[Value]:
    """Every value in ``text`` (normalised with ``normalize_text``), non-overlapping, in order."""
    text = normalize_text(text if isinstance(text, str) else "")
    if len(text) <= MAX_TEXT:
        return _scan(text, catalog)
    # Only the head and the tail are read; tail offsets are moved back to where they are in ``text``.
    head, tail = text[: MAX_TEXT // 2], text[-MAX_TEXT // 2 :]
    shift = len(text) - len(head) - len(tail) - 1
    values = _scan(head + INERT + tail, catalog)
    return [v if v.start < len(head) else replace(v, start=v.start + shift, end=v.end + shift) for v in values]


def _scan(text: str, catalog: Catalog) -> list[Value]:
    text = LONG_SPACE.sub(lambda run: " " + INERT * (len(run.group()) - 2) + " ", text)
    taken = [False] * len(text)
    found: list[Value] = []
    for address in PCI_ADDRESS.finditer(text):  # "00000000:3b:00.0" in an nvidia-smi row holds no quantity ("3b" is no model size)
        taken[address.start() : address.end()] = [True] * (address.end() - address.start())

    def claim(value: Value) -> None:
        # "2000 dollars a month", "一天大概开10个钟": a span of time read earlier is the period of the amount
        if value.kind == "money":
            periods = [v for v in found if v.kind == "duration" and value.start <= v.start and v.end <= value.end]
        elif value.kind == "daily":
            periods = [v for v in found if v.kind == "duration" and DAILY_BEFORE.match(text, v.start, value.start)]
        else:
            periods = []
        for period in periods:
            found.remove(period)
            taken[period.start : period.end] = [False] * (period.end - period.start)
        if value.end > value.start and not any(taken[value.start : value.end]):
            for i in range(value.start, value.end):
                taken[i] = True
            found.append(value)

    for start, end, kind, identity in names_written_apart(text, catalog):
        claim(Value(start, end, kind, identity, surface=text[start:end]))
    for name in matcher_for(catalog).scan(text):
        end = _name_end(text, name.end) if name.kind == "gpu" else name.end
        claim(Value(name.start, end, name.kind, name.id, surface=text[name.start : end]))
        times = TIMES_AFTER_NAME.match(text, end) if name.kind == "gpu" else None
        if times:  # "4090x2": the count of that card
            claim(Value(times.start("x"), times.end(), "count_gpu", float(times.group("n")), "", times.group("x")))
        glued = GLUED_DIGITS.match(text, end) if name.kind == "gpu" and text[end - 1 : end].isalpha() else None
        if glued:  # "910B8卡": the digits after a name that ends in a letter are a count
            count = _number_value(text, end, glued.end(), glued.group(), float(glued.group()))
            if count is not None and count.kind in ("count_gpu", "count_server"):
                claim(count)
    for match in NUMBER_NAME_AND_COUNT.finditer(text):  # "40908卡": a 4090, then 8 cards
        named = matcher_for(catalog).scan(match.group("name"))
        if named and named[0].kind == "gpu" and named[0].end == len(match.group("name")):
            claim(Value(match.start(), match.end("name"), "gpu", named[0].id, surface=match.group("name")))
            claim(Value(match.start("n"), match.end(), "count_gpu", float(match.group("n")), "", text[match.start("n") : match.end()]))
    for match in model_name_pattern().finditer(text):  # a model the catalog does not know keeps its name
        claim(Value(match.start(), match.end(), "model", match.group().strip(), surface=match.group().strip()))
    for match in model_version_pattern().finditer(text):
        claim(Value(match.start(), match.end(), "model", match.group().strip(), surface=match.group().strip()))
    for match in OTHER_GPU.finditer(text):
        claim(Value(match.start(), match.end(), "other_gpu", match.group().strip(), surface=match.group().strip()))
    gpu_starts = {v.start for v in found if v.kind in ("gpu", "other_gpu")}
    for match in PARALLEL.finditer(text):
        kind = match.group("kind") or {"t": "tp", "p": "pp", "d": "dp", "张": "tp", "流": "pp", "数": "dp"}[match.group("word")[0]]
        claim(Value(match.start(), match.end(), kind, float(match.group("n") or match.group("wn")), kind, match.group()))
    for match in CONTEXT_SETTING.finditer(text):  # "max-model-len is set to 32768": a length, whatever its size
        scale = 1024 if match.group("k") else 1
        claim(Value(match.start("n"), match.end(), "context_setting", float(match.group("n")) * scale, "tokens", text[match.start("n") : match.end()]))
    for match in BATCH.finditer(text):
        claim(Value(match.start(), match.end(), "batch", float(match.group("n")), "", match.group()))
    for match in MFU.finditer(text):
        share = float(match.group("fraction")) * 100 if match.group("fraction") else float(match.group("pct") or match.group("pct_after"))
        claim(Value(match.start(), match.end(), "mfu", share, "%", match.group()))
    for match in GPUS_PER_NODE.finditer(text):  # "8 per node": the cards in each server
        claim(Value(match.start(), match.end(), "count_gpu", float(match.group("n")), "", match.group()))
    for match in NODES_OF_GPUS.finditer(text):  # "two 8-GPU nodes", "4 x 8-card servers": the cards of all the servers
        servers = WORD_NUMBERS.get(match.group("servers")) or float(match.group("servers"))
        claim(Value(match.start(), match.end(), "count_gpu", float(servers) * float(match.group("per")), "", match.group()))
    for match in SERVERS_OF_NAMED_CARDS.finditer(text):  # "two 8-GPU L40S servers": two servers
        servers = match.group("servers")
        claim(Value(match.start(), match.end(), "count_server", float(WORD_NUMBERS.get(servers) or servers), "", servers))
    for match in OTHER_SETTING.finditer(text):
        taken[match.start() : match.end()] = [True] * (match.end() - match.start())
    for match in UNIT_PRICE.finditer(text):
        if not (match.group("mag") or match.group("currency")):  # "ZeRO-3每张卡" is no price
            continue
        scale = {"万": 1e4, "w": 1e4, "千": 1e3, "k": 1e3}.get(match.group("mag") or "", 1.0)
        claim(_money(text, match.start(), match.end(), float(match.group("n")) * scale, False))
    for match in TENTHS.finditer(text):
        digit = match.group("n")
        claim(Value(match.start(), match.end(), "percent", 10.0 * (int(digit) if digit.isdigit() else CHINESE_DIGITS[digit]), "%", match.group()))
    for match in DISCOUNT.finditer(text):
        pay = match.group("pay")  # "6折", "8.5折", "八五折": tenths paid
        paid = parse_number(pay) if pay else None
        off = 100 - (paid * 10 if paid < 10 else paid) if paid else float(match.group("off") or match.group("off_after"))
        claim(Value(match.start(), match.end(), "discount", off, "%", match.group()))
    for match in TIMES_COUNT.finditer(text):
        claim(Value(match.start(), match.end(), "count_gpu", float(match.group(1)), "", match.group()))
    for table, canonical, pattern in keyword_tables():
        for match in pattern.finditer(text):
            if table == "method" and NEGATED.search(text, max(0, match.start() - 12), match.start()):
                taken[match.start() : match.end()] = [True] * (match.end() - match.start())  # "不训练", "not training": no method
                continue
            claim(Value(match.start(), match.end(), table, canonical, surface=match.group()))
    for match in ALWAYS_ON.finditer(text):
        claim(Value(match.start(), match.end(), "always_on", 1.0, surface=match.group()))
    for match in UNIT_BEFORE_PRICE.finditer(text):
        taken[match.start() : match.end()] = [True] * (match.end() - match.start())
    for match in JIAO_AND_FEN.finditer(text):
        amount = parse_number(match.group("jiao")) / 10 + parse_number(match.group("fen") or "0") / 100
        per_kwh = PER_KWH_AFTER.match(text, match.end())
        claim(_money(text, match.start(), per_kwh.end(), amount, True))
    for match in YUAN_AND_JIAO.finditer(text):  # "1块5", "一块八毛" are ¥1.5 and ¥1.8, not one card and a five
        yuan, jiao = match.group("yuan"), match.group("jiao")
        amount = parse_number(yuan) + parse_number(jiao) / 10
        per_kwh = PER_KWH_AFTER.match(text, match.end())  # "3块2一度"
        claim(_money(text, match.start(), per_kwh.end() if per_kwh else match.end(), amount, bool(per_kwh)))
    for start, end, kind, value, unit in time_values(text):
        claim(Value(start, end, kind, value, unit, text[start:end]))
    for number in find_numbers(text):
        value = _number_value(text, number.start, number.end, number.text, number.value)
        if value is not None and value.kind == "number" and value.value.is_integer() and 1 <= value.value <= 1024 and SPACES.match(text, value.end).end() in gpu_starts:
            value = replace(value, kind="count_gpu")  # "16 H100s total": a count of the card named right after it
        if value is not None:
            claim(value)
    for word, count in WORD_NUMBERS.items():
        for match in re.finditer(rf"(?<![a-z]){re.escape(word)}(?![a-z])" if word.isascii() else re.escape(word), text):
            value = _number_value(text, match.start(), match.end(), word, float(count), words_only=True)
            gap = SPACES.match(text, match.end()).end()
            cards = gap in gpu_starts or (count > 1 and (BUY_BEFORE.search(text, 0, match.start()) or OF_THEM.match(text, match.end())))
            if value is None and cards:  # "two l40s", "buy two", "two of them"
                value = Value(match.start(), match.end(), "count_gpu", float(count), "", word)
            elif value is None and count > 1 and word.isalpha() and ENDS_MESSAGE.match(text, match.end()):  # "and with four?"
                value = Value(match.start(), match.end(), "number", float(count), "", word)
            if value is not None:
                claim(value)
    return sorted(found, key=lambda v: v.start)


def _name_end(text: str, end: int) -> int:
    """A name runs on over a memory variant or form factor the matcher left out: 'A100 80GB', '4090 laptop'."""
    tail = re.match(r"[\s\-]*(?:\d+\s*(?:gb|g)\b|laptop|mobile|笔记本|移动版|pcie|sxm\d?|nvl)", text[end:])
    return end + tail.end() if tail else end


def _number_value(text: str, start: int, end: int, raw: str, value: float, words_only: bool = False) -> Value | None:
    """A number with what follows or precedes it; ``None`` when it is part of a name or a log line."""
    before = text[max(0, start - 12) : start]
    if raw in ("一", "二") and IN_A_WORD.match(text, end):  # 一样, 一直, 二手: words, not quantities
        return None
    if raw.endswith("千") and text.startswith("瓦", end):  # "15千瓦" is power, not an amount
        return Value(start, end + 1, "number", value, "W", text[start : end + 1])
    if DENOMINATOR_BEFORE.search(before):  # "每10亿参数约4GB", "per 1k tokens": a unit of a rate, not a quantity
        return None
    context = None if words_only else CONTEXT_WORD_AFTER.match(text, end)
    if context and (K_SUFFIX.search(raw) or value >= 512):  # "4k context", "8192 ctx": a context length, in any task
        return Value(start, context.end(), "context_setting", _tokens(raw, value), "tokens", text[start : context.end()])
    symbol_match = None if words_only else MONEY_BEFORE.search(before)
    symbol = symbol_match.group() if symbol_match else ""
    if raw.endswith("w"):  # read as 万 by the number parser
        if symbol or WAN_CONTEXT_BEFORE.search(before) or WAN_CONTEXT_AFTER.match(text, end):
            return _money(text, start - len(symbol), end, value, False, symbol=symbol)
        return Value(start, end, "number", value / 1e4, "W", raw)  # "450w": watts
    for kind, pattern in UNIT_AFTER:
        match = pattern.match(text, end)
        if not match:
            continue
        stop = match.end()
        surface = text[start:stop]
        if kind in ("money", "money_kwh"):
            return _money(text, start - len(symbol), stop, value, kind == "money_kwh", symbol=symbol)
        if kind == "memory":
            return Value(start, stop, "memory", value, "GB", surface)
        if kind == "tokens":
            if PER_SECOND_BEFORE.search(before):  # "每人每秒20个token": a speed, not a length
                return Value(start, stop, "rate", value, "tokens/s", surface)
            return Value(start, stop, "tokens", _tokens(raw, value), "tokens", surface)
        if kind == "duration":
            unit = duration_unit(match.group("unit"))
            if value == 1 and PRICE_AFTER_PERIOD.match(text, stop):  # "一个月三十多万": the period of a price, not a span of time
                return None
            if DAILY_BEFORE.search(before) and unit == "hour":
                return Value(start, stop, "daily", value, "hours/day", surface)
            return Value(start, stop, "duration", value * HOURS[unit], unit, surface)
        if kind == "daily":
            return Value(start, stop, "daily", value, "hours/day", surface)
        if kind == "latency_seconds":  # "首token 1秒以内", "ttft under 2s": kept in milliseconds like "300ms"
            return Value(start, stop, "latency", value * 1000, "", surface)
        return Value(start, stop, kind, value, "", surface)
    if words_only:
        return None
    rate = PER_AFTER.match(text, end)
    if rate and (rate.group("gpu") or RENT_BEFORE.search(before) or rate.group().startswith("/")):  # "2.99 per gpu hour", "at 0.79/hr": a price
        return _money(text, start - len(symbol), end, value, False, symbol=symbol)
    period = PERIOD_RIGHT_BEFORE.search(text, max(0, start - 16), start)
    if period and (RENTING.search(text, 0, start) or period.group("card")):  # "租的话每小时2.5", "每张卡每小时1.8": a rent
        return _money(text, start - len(symbol), end, value, False, symbol=symbol)
    if ENERGY_PRICE_BEFORE.search(text[max(0, start - 24) : start]) and value < 5:  # "power was 0.08", "电费0.6": a price per kWh
        return _money(text, start - len(symbol), end, value, True, symbol=symbol)
    if symbol or (BUDGET_BEFORE.search(before) and value >= 100):  # "预算5000", "budget 5000": an amount
        return _money(text, start - len(symbol), end, value, False, symbol=symbol)
    if re.search(r"[kmb]$|万|亿|千|billion|trillion|million|thousand|lakh|crore|\dt$", raw):
        return _magnitude(text, start, end, raw, value)
    if USERS_BEFORE.search(text, max(0, start - 24), start):  # "用户数大概五十个", "concurrency is 40"
        return Value(start, end, "users", value, "", raw)
    if value.is_integer() and 1 < value <= 1024 and BUY_BEFORE.search(text, 0, start):  # "when would buying 8 pay off"
        return Value(start, end, "count_gpu", value, "", raw)
    return Value(start, end, "number", value, "", raw)


def _magnitude(text: str, start: int, end: int, raw: str, value: float) -> Value:
    """'70b' / '70亿' (参数) is a model size; '16k' / '1.5T' (tokens) a token count; '30万' an amount."""
    params = PARAMS_WORD.match(text, end)
    if not params and DATA_BEFORE.search(text, max(0, start - 12), start):  # "数据加到500亿": an amount of data is tokens
        return Value(start, end, "tokens", value, "tokens", raw)
    if params or re.search(r"\d\s*b$|billion|\d\s*b\s", raw + " ") and value >= 1e8:
        stop = params.end() if params else end
        return Value(start, stop, "params", value, "params", text[start:stop])
    if "亿" in raw and value >= 1e8:
        return Value(start, end, "params", value, "params", raw)
    spending = SPENDING_BEFORE.search(text[max(0, start - 40) : start]) or BUDGET_AFTER.match(text, end)  # "on a 5k budget"
    if K_SUFFIX.search(raw) and spending and not TOKEN_WORD_AFTER.match(text, end):
        return _money(text, start, end, value, False)  # "under 15k", "budget is 80k": an amount, not tokens
    if K_SUFFIX.search(raw):
        return Value(start, end, "tokens", _tokens(raw, value), "tokens", raw)
    if re.search(r"\dt$|trillion", raw):
        return Value(start, end, "tokens", value, "tokens", raw)
    if re.search(r"万|lakh|crore", raw):  # "30万", "25 lakh" are amounts; a bare "两千" may as well be a length ("输入一般两千左右")
        return _money(text, start, end, value, False)
    return Value(start, end, "number", value, "", raw)


def _tokens(raw: str, value: float) -> float:
    """'32k' of tokens means 32 × 1024, as context windows are sized."""
    return value / 1000 * 1024 if K_SUFFIX.search(raw) else value


def _money(text: str, start: int, end: int, value: float, per_kwh: bool, symbol: str = "") -> Value:
    surface = text[start:end]
    other = next((code for code, written in OTHER_CURRENCIES.items() if written.search(surface)), None)
    currency = other or ("USD" if CURRENCY_USD.search(surface) else "CNY")
    if not symbol and not other and not re.search(r"[元块钱币]|rmb|cny|yuan|usd|美|刀|dollar|bucks|\$|cent", surface):
        currency = ""  # "30万": an amount with no currency written; the language decides later
    if SUBUNIT.search(surface):
        value /= 100
        per_kwh = per_kwh or bool(ENERGY_PRICE_BEFORE.search(text[max(0, start - 24) : start]))  # "electricity is about 12 cents"
    if per_kwh:
        return Value(start, end, "money", (value, currency, "kwh"), "kwh", surface)
    per_match = PER_AFTER.match(text, end)
    per = "once"
    if per_match:
        per = "gpu_hour" if per_match.group("gpu") and per_match.group("hour") else next(k for k in ("hour", "month", "year") if per_match.group(k))
        end = per_match.end()
    else:
        if UNIT_PRICE_AFTER.match(text, end):  # "月租5万一台": the price of each, for the period said before it
            end = UNIT_PRICE_AFTER.match(text, end).end()
        before = PER_BEFORE.search(text[max(0, start - 16) : start])
        if before:
            per = "month" if before.group("rent") or before.group("month_a") else "year" if before.group("year_a") else "hour" if before.group("hour_a") or before.group("hourly") else next(k for k in ("hour", "month", "year") if before.group(k))
            if per == "hour" and re.search(r"卡|gpu", before.group()):
                per = "gpu_hour"
    if per == "hour" and re.search(r"gpu|卡", text[end : end + 12]):
        per = "gpu_hour"
    if per == "once" and (TOTAL_BEFORE.search(text, max(0, start - 16), start) or TOTAL_AFTER.match(text, end)):
        per = "all"
    return Value(start, end, "money", (value, currency, per), per, text[start:end])
