"""Decide what each number in a message means from the words around it.

``tools.quantities.find_numbers`` gives every number with its span; here the text just
before and after it decides the role: "8卡" is a GPU count, "70亿参数" a model size,
"0.8元/度" a power price. Rules run from the most specific (currency, units) to the most
generic (a bare "70亿" is a model size), and the first rule that fits claims the number.
GPU and model names are already masked out, so "A100" or "Qwen2.5-7B" never show up here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal, NamedTuple

from advisor.language import default_currency
from tools.quantities import NumberMatch, find_numbers

GPU_MARK, MODEL_MARK = "\ue000", "\ue001"  # private-use characters that replace matched names

Role = Literal[
    "params", "tokens", "context", "batch", "gpu_count", "servers", "memory_gb", "money", "power_price",
    "utilisation", "hours_per_day", "hours_per_month", "gpu_hours", "duration_hours", "ignored",
]  # fmt: skip
Per = Literal["once", "hour", "gpu_hour", "month", "year", "kwh"]
HOURS_PER = {"day": 24.0, "week": 168.0, "month": 730.0, "year": 8760.0}  # month = 8760 / 12
WINDOW = 24
MAX_NUMBERS_PER_END = 60


class Reading(NamedTuple):
    role: Role
    value: float
    start: int
    currency: str | None = None
    per: Per = "once"
    currency_assumed: bool = False
    scope: Literal["", "total", "per_server"] = ""


class Context(NamedTuple):
    number: NumberMatch
    before: str
    after: str
    language: str


def _after(pattern: str) -> re.Pattern[str]:
    return re.compile(r"^\s*(?:" + pattern + ")")


def _before(pattern: str) -> re.Pattern[str]:
    return re.compile("(?:" + pattern + r")\s*$")


USD = r"美元|美金|刀|usd|us\$|dollars?|bucks"
CNY = rf"元|块(?!\s*(?:卡|显卡|gpu|[\d{GPU_MARK}]))钱?|人民币|rmb|cny|yuan"
CURRENCY_AFTER = re.compile(rf"^\s*(?:(?P<usd>{USD})|(?P<cny>{CNY}))")
CURRENCY_BEFORE = re.compile(r"(?:(?P<usd>us\$|\$|usd)|(?P<cny>¥|rmb|cny|人民币))\s*$")
PER_AFTER = _after(
    r"(?:/|每|per|an?|each)\s*(?:(?P<gpu>gpu|卡|card)\s*[-·/]?\s*)?(?:(?P<hour>hr|hour|h|小时|个小时|时)|(?P<month>月|个月|mo|month)|(?P<year>年|yr|year))(?![a-z])"
    r"(?:\s*(?:per|/|每|一)\s*(?P<gpu_after>gpu|卡|card))?"
)
PER_BEFORE = _before(
    r"(?:(?:每|per|一)\s*(?:(?P<gpu>张?卡|gpu)\s*每?\s*)?(?:(?P<hour>个?小时|hour)|(?P<month>个?月|month)|(?P<year>年|year))|(?P<rent>月租|包月))"
    r"(?:租金|费用|价格|成本|电费)?\s*(?:是|为|要|:|：)?"
)
GPU_HOUR_BEFORE = _before(r"卡时|gpu[\s-]*(?:hour|hr)")
KWH_AFTER = _after(rf"(?:{CNY}|{USD}|美分|cents?)?\s*(?:/|每|per|一)\s*(?:度|kwh|千瓦时|kw·h)")
POWER_BEFORE = re.compile(r"(?:电费|电价|电力|每度电?|electricity|power(?:\s+price|\s+cost)?)\s*(?:是|为|大概|约|:|：|at|of|is)?\s*(?:\$|¥)?\s*$")
CENTS_AFTER = _after(r"美分|cents?")
PERCENT = _after("%|percent|个百分点")
UTILISATION_WORDS = re.compile(r"利用率|使用率|负载|占用|utili[sz]ation|utili[sz]ed|util|usage|load|busy|duty")
GPU_HOURS_AFTER = _after(r"(?:个)?\s*(?:gpu[\s-]*(?:hours?|hrs?|小时)|卡时|卡·时|卡小时|张卡·?小时)")
HOURS_AFTER = _after(r"(?:个)?\s*(?:小时|钟头|hours?|hrs?|h)(?![a-z])")
DAILY = re.compile(r"(?:每天|每日|一天|天天|日均|daily)\s*(?:用|跑|运行|开|使用|工作|run)?\s*$")
DAILY_AFTER = _after(r"(?:小时|钟头|hours?|hrs?|h)\s*(?:/\s*(?:天|day|d)(?![a-z])|每天|一天|a\s+day|per\s+day|daily|each\s+day)")
MONTHLY = re.compile(r"(?:每月|每个月|一个月|月均|monthly)\s*(?:用|跑|运行|使用|run)?\s*$")
MONTHLY_AFTER = _after(r"(?:小时|hours?|hrs?|h)\s*(?:/\s*(?:月|month|mo)|每月|a\s+month|per\s+month|monthly|each\s+month)")
DURATION_UNITS = _after(
    r"(?:个)?\s*(?:(?P<day>天|日|days?)|(?P<week>周|星期|礼拜|weeks?|wks?)|(?P<month>个月|months?|mos?)|(?P<year>年|years?|yrs?))(?![a-z])"
)
RATE_FOLLOWS = re.compile(r"^\s*(?:个)?\s*(?:天|日|月|周|day|week|month)\S{0,3}?\s*[\d一二两三四五六七八九十]+\s*(?:个)?\s*(?:小时|hours?|h)")
SERVERS_AFTER = _after(r"(?:台|个|部)?\s*(?:服务器|机器|节点|主机|servers?|nodes?|machines?|boxes|hosts?)(?![a-z])|台")
GPUS_AFTER = _after(rf"(?:张|块|片|个|[x×*])?\s*(?:的)?\s*(?:卡|显卡|加速卡|gpus?|cards?|{GPU_MARK})")
GPUS_BEFORE = re.compile(rf"(?:{GPU_MARK}\s*[x×*]|(?:gpu|卡|显卡)\s*(?:数量?|count|数目)\s*(?:是|为|[:=：])?|(?:num_gpus|n_gpus|nproc_per_node)\s*[:=])\s*$")
TOTAL_WORDS = re.compile(r"共|总共|一共|合计|总计|total|in all|altogether")
PER_SERVER_WORDS = re.compile(r"每台|每个?节点|每机|each|per\s+(?:server|node|machine)")
SCOPE_WORDS = (("per_server", PER_SERVER_WORDS), ("total", TOTAL_WORDS))
BATCH_BEFORE = _before(r"(?<![a-z])(?:batch[\s_-]*size|micro[\s_-]*batch(?:[\s_-]*size)?|bs|mbs|gbs|batch|批大小|批量大小?|批次大小|批处理大小)\s*(?:[=:：]|of|是|为|设为|设置为|开到|用)?")
CONTEXT_BEFORE = _before(
    r"(?:上下文|context|ctx|序列|seq(?:uence)?|max[_-]?(?:model|seq)[_-]?len|输入|窗口)[\s_-]*(?:length|window|len|长度|窗口)?\s*(?:[=:：]|of|是|为|达到|要|到|设为|开到)?"
)
CONTEXT_AFTER = _after(r"(?:的)?\s*(?:长)?(?:上下文|context|ctx|序列|seq(?:uence)?[\s_-]*len)|(?:tokens?\s+)?(?:context|上下文|window)")
TOKENS_AFTER = _after(r"(?:个)?\s*(?:tokens?|词元|tok)(?![a-z])")
TRAINING_DATA_BEFORE = re.compile(r"(?:训练数据|数据量|语料|数据集|预训练数据|数据|trained\s+on|train\s+on|training\s+(?:data|on)|dataset|corpus|data)\D{0,8}$")
MEMORY_AFTER = _after(r"(?:g|gb|gib)(?![a-z])")
MEMORY_WORDS = re.compile(rf"显存|vram|memory|hbm|卡|card|gpu|{GPU_MARK}")
PARAM_WORDS_AFTER = _after(r"(?:个)?\s*(?:参数|params?|parameters?|的?模型|models?|规模|量级|级别)")
PARAM_SUFFIX = re.compile(r"(?:b|bn|billion|亿|億|t|tn|trillion)$")
# "50万预算" / "50万的预算": the amount comes first (only the magnitude word may sit between).
BUDGET_AFTER = _after(r"(?:的)?(?:预算|经费|资金)|" + r"(?:budget)\b")
BUDGET_BEFORE = _before(r"(?:预算|budget|经费|资金|投入|花费|总价|spend|only\s+have|can\s+spend)\s*(?:是|为|有|只有|大概|大约|约|of|is|:|：|about|around|only|up\s+to|~)?")
RATE_BEFORE = _before(r"每|per|every|for\s+each|each")
YEAR_AFTER = _after(r"年(?!内|左右|以内)")


def _currency(ctx: Context) -> str | None:
    """The currency written right before or after the number: "$1.8", "25万美元", "¥2万", "2万元"."""
    for match in (CURRENCY_BEFORE.search(ctx.before), CURRENCY_AFTER.match(ctx.after)):
        if match:
            return "USD" if match["usd"] else "CNY"
    return None


def _per(ctx: Context, after: str) -> Per:
    for match in (PER_AFTER.match(after), PER_BEFORE.search(ctx.before)):
        if match:
            groups = match.groupdict()
            if groups["hour"]:
                return "gpu_hour" if groups["gpu"] or groups.get("gpu_after") else "hour"
            return "year" if groups["year"] else "month"
    return "gpu_hour" if GPU_HOUR_BEFORE.search(ctx.before) else "once"


def _skip_currency(after: str) -> str:
    match = CURRENCY_AFTER.match(after)
    return after[match.end() :] if match else after


def power_price(ctx: Context) -> Reading | None:
    kwh = KWH_AFTER.match(ctx.after) or (POWER_BEFORE.search(ctx.before) and ctx.number.value < 10)
    if not kwh:
        return None
    currency = _currency(ctx)
    value = ctx.number.value
    if CENTS_AFTER.match(ctx.after):
        currency, value = "USD", value / 100
    assumed = currency is None
    currency = currency or default_currency(ctx.language)
    return Reading("power_price", value, ctx.number.start, currency, "kwh", assumed)


def money(ctx: Context) -> Reading | None:
    currency = _currency(ctx)
    if currency is None:
        return None
    per = _per(ctx, _skip_currency(ctx.after))
    return Reading("money", ctx.number.value, ctx.number.start, currency, per)


def percent(ctx: Context) -> Reading | None:
    if not PERCENT.match(ctx.after):
        return None
    if UTILISATION_WORDS.search(ctx.before[-12:]) or UTILISATION_WORDS.search(ctx.after[:16]):
        if 0 < ctx.number.value <= 100:
            return Reading("utilisation", ctx.number.value / 100, ctx.number.start)
    return Reading("ignored", ctx.number.value, ctx.number.start)  # a percentage of something else


def gpu_hours(ctx: Context) -> Reading | None:
    return Reading("gpu_hours", ctx.number.value, ctx.number.start) if GPU_HOURS_AFTER.match(ctx.after) else None


def hours(ctx: Context) -> Reading | None:
    if not HOURS_AFTER.match(ctx.after):
        return None
    if DAILY.search(ctx.before) or DAILY_AFTER.match(ctx.after):
        return Reading("hours_per_day", ctx.number.value, ctx.number.start)
    if MONTHLY.search(ctx.before) or MONTHLY_AFTER.match(ctx.after):
        return Reading("hours_per_month", ctx.number.value, ctx.number.start)
    return Reading("duration_hours", ctx.number.value, ctx.number.start)


def duration(ctx: Context) -> Reading | None:
    match = DURATION_UNITS.match(ctx.after)
    if not match or RATE_FOLLOWS.match(ctx.after) or ctx.before.endswith(("每", "per ", "every ")):
        return None
    unit = next(name for name in HOURS_PER if match[name])
    if unit == "year" and ctx.number.value >= 100:
        return None  # "2024年" is a date
    return Reading("duration_hours", ctx.number.value * HOURS_PER[unit], ctx.number.start)


def servers(ctx: Context) -> Reading | None:
    if not SERVERS_AFTER.match(ctx.after) or not ctx.number.value.is_integer():
        return None
    return Reading("servers", ctx.number.value, ctx.number.start)


def gpu_count(ctx: Context) -> Reading | None:
    value = ctx.number.value
    if not value.is_integer() or not 0 < value <= 100_000:
        return None
    if GPUS_AFTER.match(ctx.after) or GPUS_BEFORE.search(ctx.before):
        # Only this clause counts: in "每台8张4090，共16卡" the 共 belongs to the next number.
        before = re.split(r"[，,。;；]", ctx.before)[-1][-8:]
        after = re.split(r"[，,。;；]", ctx.after)[0][:8]
        scope = next((s for s, words in SCOPE_WORDS for part in (before, after) if words.search(part)), "")
        return Reading("gpu_count", value, ctx.number.start, scope=scope)
    return None


def batch(ctx: Context) -> Reading | None:
    if BATCH_BEFORE.search(ctx.before) and ctx.number.value.is_integer() and ctx.number.value > 0:
        return Reading("batch", ctx.number.value, ctx.number.start)
    return None


def context_length(ctx: Context) -> Reading | None:
    plain_tokens = TOKENS_AFTER.match(ctx.after) and ctx.number.value < 1e7 and not PARAM_SUFFIX.search(ctx.number.text)
    if not (CONTEXT_BEFORE.search(ctx.before) or CONTEXT_AFTER.match(ctx.after) or plain_tokens):
        return None
    if not 16 <= ctx.number.value <= 1e8:
        return None
    value = ctx.number.value
    if ctx.number.text.endswith("k") and (value / 1000) in {2**i for i in range(1, 12)}:
        value = value / 1000 * 1024  # context sizes are binary: "32k" means 32,768 tokens
    return Reading("context", value, ctx.number.start)


def memory(ctx: Context) -> Reading | None:
    if not MEMORY_AFTER.match(ctx.after) or not 1 <= ctx.number.value <= 4096:
        return None
    if MEMORY_WORDS.search(ctx.before[-10:]) or MEMORY_WORDS.search(ctx.after[:10]):
        return Reading("memory_gb", ctx.number.value, ctx.number.start)
    return None


def tokens(ctx: Context) -> Reading | None:
    counted = TOKENS_AFTER.match(ctx.after)
    data = TRAINING_DATA_BEFORE.search(ctx.before) and PARAM_SUFFIX.search(ctx.number.text)
    if (counted or data) and ctx.number.value >= 1e7:
        return Reading("tokens", ctx.number.value, ctx.number.start)
    return None


def params(ctx: Context) -> Reading | None:
    value = ctx.number.value
    if not 1e6 <= value <= 1e14:
        return None
    if RATE_BEFORE.search(ctx.before):
        return Reading("ignored", value, ctx.number.start)  # "每10亿参数需要4GB" states a rate, not the model
    if PARAM_WORDS_AFTER.match(ctx.after) or PARAM_SUFFIX.search(ctx.number.text):
        return Reading("params", value, ctx.number.start)
    return None


def budget(ctx: Context) -> Reading | None:
    named = BUDGET_BEFORE.search(ctx.before) or BUDGET_AFTER.search(ctx.after)
    if not named or ctx.number.value <= 0 or ctx.number.text.endswith(("b", "t")):
        return None
    currency = default_currency(ctx.language)
    return Reading("money", ctx.number.value, ctx.number.start, currency, "once", currency_assumed=True)


def year(ctx: Context) -> Reading | None:
    """Dates ("2024年", "in 2025") are claimed so no later rule reads them as counts."""
    value = ctx.number.value
    if value.is_integer() and 1990 <= value <= 2100 and (YEAR_AFTER.match(ctx.after) or ctx.before.endswith(("in ", "since ", "by "))):
        return Reading("ignored", value, ctx.number.start)
    return None


RULES: list[Callable[[Context], Reading | None]] = [
    year, power_price, money, percent, gpu_hours, hours, duration, servers, gpu_count,
    batch, tokens, context_length, memory, budget, params,
]  # fmt: skip


def read_numbers(masked: str, language: str) -> list[Reading]:
    """Every number in ``masked`` that a rule recognises, in text order (unusable ones dropped)."""
    readings: list[Reading] = []
    numbers = find_numbers(masked)
    if len(numbers) > 2 * MAX_NUMBERS_PER_END:  # a table of figures: its first and last rows carry the question
        numbers = numbers[:MAX_NUMBERS_PER_END] + numbers[-MAX_NUMBERS_PER_END:]
    for number in numbers:
        ctx = Context(number, masked[max(0, number.start - WINDOW) : number.start], masked[number.end : number.end + WINDOW], language)
        for rule in RULES:
            reading = rule(ctx)
            if reading is not None:
                if reading.role != "ignored":
                    readings.append(reading)
                break
    return readings
