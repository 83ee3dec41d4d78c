"""Spans of time written in words: shares of the week, working-hours and night schedules, calendar deadlines,
"半年", "a year". Each is a (start, end, kind, value, unit) the value scanner claims in this order."""

from __future__ import annotations

import re
from datetime import date, timedelta

from advisor.nlu.count_words import WORD_NUMBERS
from advisor.nlu.phrases import phrase_table
from tools.quantities import CHINESE_DIGITS, parse_number

HOURS = {"hour": 1.0, "day": 24.0, "week": 168.0, "month": 730.0, "year": 8760.0}
# "half the time", "一半时间": a share of the time the hardware is busy, by the label of the time_share phrase table
TIME_SHARES = {"half": 50.0, "third": 33.3, "quarter": 25.0, "two_thirds": 66.7, "three_quarters": 75.0}
CALENDAR_DEADLINE = re.compile(
    r"(?<![a-z])(?:(?:by|before|until)\s+)?(?:the\s+)?end\s+of\s+(?:(?:this|next|the)\s+)?(?:week|month|quarter|year)(?![a-z])|(?<![a-z])(?:eoy|year[\s-]end)(?![a-z])"
    r"|(?:本周|这周|下周|本月|这个月|下个?月)(?:末|底|之内|以内|内|前)|下个?月底(?:前|之前)?|月底(?:前|之前)?"
    r"|(?:今年|年)(?:底|末)(?:前|之前)?|今?年之?内|(?:本|这个|下个?)季度(?:末|底|之内|以内|内|前)?|季度末"
)
# "deadline is friday", "by next tue", "周五前", "下周三之前": the end of that day, counted from today
_WEEKDAYS_EN = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_WEEKDAYS_ZH = "一二三四五六日"
WEEKDAY_DEADLINE = re.compile(
    r"(?<![a-z])(?:by|before|until|till|due(?:\s+on)?|deadline\s+(?:is|of)?)\s+(?:(?P<next_en>next|this)\s+)?"
    r"(?P<en>mon|tue|wed|thu|fri|sat|sun)(?:day|s|nes|sday|rs|rsday|urday)?(?![a-z])"
    r"|(?P<next_zh>这|本|下)?(?:周|星期|礼拜)(?P<zh>[一二三四五六日天])(?=[^\d\n，,。]{0,3}?(?:前|之前|以前|截止|交付|交|上线))"
)
# "over a weekend", "一个周末跑完": the two days of a weekend as the time the job has
WEEKEND_DEADLINE = re.compile(
    r"(?<![a-z])(?:over|in|within|during|across)\s+(?:a|the|one|this|next)\s+(?:long\s+)?weekend(?![a-z])"
    r"|(?:一个|这个?|下个?)?周末(?=(?:之内|以内|内|前|跑完|搞定|弄完|训完|做完|出结果))"
)
WEEKEND_HOURS = 48.0
NUMBER_BEFORE_ARTICLE = re.compile(r"\d\s*(?:h|hrs?|hours?)?\s*$")
# "two and a half years", "a year and a half", "两年半", "三个半月": a whole number of units and a half
AND_A_HALF = re.compile(
    r"(?<![a-z\d.])(?P<n>\d{1,2}|an?|one|two|three|four|five)\s+(?:and\s+a\s+half\s+(?P<unit>years?|months?|weeks?|days?)|(?P<unit_first>years?|months?|weeks?|days?)\s+and\s+a\s+half)(?![a-z])"
    r"|(?<![\d.])(?P<zh>\d{1,2}|[一二两三四五六七八九十])(?:(?P<zh_year>年)半|个半(?P<zh_month>月))"
)
# "用2-3年", "2 to 3 years", "3到5年", "两三年": a span given as a range, read as its middle (the range is kept in the
# surface: ``duration_range``), never as a bare number ("2") beside a span ("3年")
_RANGE_END = r"\d{1,2}(?:\.\d)?|[一二两三四五六七八九十]"
DURATION_RANGE = re.compile(
    rf"(?<![\d.])(?P<low>{_RANGE_END})\s*(?:-|–|~|～|到|至|to|or)\s*(?P<high>{_RANGE_END})\s*(?P<unit>个月|年|years?|yrs?|months?)(?![a-z])"
    r"|(?P<pair>[一两二三四五六七八])(?P<pair_high>[二三四五六七八九])(?P<pair_unit>个月|年)"
)
# A working-hours schedule is a utilisation: "weekdays 9-6", "工作日9点到18点", "朝九晚五".
_DAYS = r"(?P<days>weekdays?|work\s?days?|working\s+days|business\s+days|mon(?:day)?\s*(?:-|to|through)\s*fri(?:day)?|工作日|周一到周五|周一至周五)"
_HOURS = r"(?P<start>\d{1,2})(?::00)?\s*(?P<start_half>am|pm|点|時)?\s*(?:-|–|to|until|到|至|~)\s*(?P<end>\d{1,2})(?::00)?\s*(?P<end_half>am|pm|点)?"
SCHEDULES = (
    re.compile(rf"{_DAYS}[^\d\n]{{0,12}}?{_HOURS}"),
    re.compile(rf"{_HOURS}[^\d\n]{{0,12}}?{_DAYS}"),
    re.compile(r"朝九晚(?P<idiom_end>[五六七八九])"),
    # "office hours", "工作日白天": a working day, 9 to 6, five days a week
    re.compile(r"(?P<office>(?:during\s+|in\s+|only\s+)?(?:office|business|working|work)\s+hours|工作日白天|上班时间|工作时间)"),
)
# When the hardware runs part of the week: "nights and weekends", "只晚上跑", "白天跑晚上停", "weekends only", "8pm to 8am"
PART_OF_WEEK = (
    (re.compile(r"(?<![a-z])nights?\s+and\s+weekends?(?![a-z])|(?:晚上|夜里|夜间)和周末"), (12 * 5 + 48) / 168 * 100),
    (re.compile(r"(?<![a-z])(?:(?:only|just)\s+(?:[a-z']+\s+){0,3}?(?:at\s+night|during\s+the\s+night|overnight|nights)|(?:nights?|overnight)\s+only)(?![a-z])|(?:只|仅|只有|只在|就)(?:在)?(?:晚上|夜里|夜间)|(?:晚上|夜里)才"
     r"|(?<![a-z])(?:(?:only|just)\s+(?:[a-z']+\s+){0,3}?(?:during\s+the\s+day(?:time)?|in\s+the\s+daytime)|daytime\s+only)(?![a-z])|白天(?:跑|用|开)晚上(?:停|关|歇)|(?:只|仅|只有|只在)(?:在)?白天(?![^\d，。,]{0,4}\d)|白天才"), 50.0),
    # "only run it weekdays", "只工作日跑": five whole days of the week (working hours are SCHEDULES)
    (re.compile(r"(?<![a-z])(?:(?:only|just)\s+(?:[a-z']+\s+){0,3}?(?:on\s+)?(?:weekdays|work\s?days|business\s+days)|weekdays\s+only)(?![a-z])"
                r"|(?:只|仅|只有|只在)(?:在)?(?:工作日|周一到周五|周一至周五)(?!白天)|工作日才"), 120 / 168 * 100),
    (re.compile(r"(?<![a-z])(?:(?:only|just)\s+(?:[a-z']+\s+){0,3}?(?:on\s+)?weekends?|weekends?\s+only)(?![a-z])|(?:只|仅|只有|只在)(?:在)?周末|周末才"), 48 / 168 * 100),
)
OVERNIGHT_HOURS = re.compile(r"(?:晚上|夜里)?(?P<zh_start>\d{1,2})点(?:到|至|-)(?:早上|第二天|次日|凌晨)(?P<zh_end>\d{1,2})点|(?<![\d:])(?P<start>\d{1,2})\s*pm\s*(?:to|-|–|until)\s*(?P<end>\d{1,2})\s*am")
# "30 hours a week", "每周40小时": hours of use per week
WEEKLY_HOURS = re.compile(r"(?P<n>\d{1,3})\s*(?:hours?|hrs?|h|个?小时)\s*(?:a|per|each|/)\s*(?:week|wk)(?![a-z])|(?:每周|一周)[^\d\n，,。]{0,4}?(?P<zh>\d{1,3})\s*个?小时")


def time_values(text: str) -> list[tuple[int, int, str, float, str]]:
    """Shares of the time, schedules and deadlines in ``text``, in the order they should be claimed."""
    found: list[tuple[int, int, str, float, str]] = []
    for said in phrase_table("time_share").find_all(text):
        found.append((said.start, said.end, "percent", TIME_SHARES[said.label], "%"))
    for match in (match for pattern in SCHEDULES for match in pattern.finditer(text)):
        share = _schedule_share(match)
        if share is not None:
            found.append((match.start(), match.end(), "percent", share, "%"))
    for pattern, share in PART_OF_WEEK:
        found += [(match.start(), match.end(), "percent", round(share, 1), "%") for match in pattern.finditer(text)]
    for match in OVERNIGHT_HOURS.finditer(text):
        start, end = int(match.group("zh_start") or match.group("start")), int(match.group("zh_end") or match.group("end"))
        hours = (end - (start % 12 + 12)) % 24
        if 0 < hours <= 16:
            found.append((match.start(), match.end(), "percent", round(hours / 24 * 100, 1), "%"))
    for match in WEEKLY_HOURS.finditer(text):
        hours = float(match.group("n") or match.group("zh"))
        if 0 < hours <= 168:
            found.append((match.start(), match.end(), "percent", round(hours / 168 * 100, 1), "%"))
    for match in CALENDAR_DEADLINE.finditer(text):
        found.append((match.start(), match.end(), "date", _hours_until(match), "day"))
    for match in WEEKDAY_DEADLINE.finditer(text):
        found.append((match.start(), match.end(), "date", _hours_until_weekday(match), "day"))
    for match in WEEKEND_DEADLINE.finditer(text):
        found.append((match.start(), match.end(), "date", WEEKEND_HOURS, "day"))
    for match in DURATION_RANGE.finditer(text):
        bounds = duration_range(match.group())
        if bounds is not None:
            unit = duration_unit(match.group("unit") or match.group("pair_unit"))
            found.append((match.start(), match.end(), "duration", sum(bounds) / 2, unit))
    for match in AND_A_HALF.finditer(text):
        whole = match.group("n") or match.group("zh")
        unit = duration_unit(match.group("unit") or match.group("unit_first") or match.group("zh_year") or "月")
        count = 1 if whole in ("a", "an") else WORD_NUMBERS.get(whole) or parse_number(whole)
        found.append((match.start(), match.end(), "duration", HOURS[unit] * (count + 0.5), unit))
    for said in phrase_table("half_duration").find_all(text):  # "半年", "half a year"
        found.append((said.start, said.end, "duration", HOURS[said.label] / 2, said.label))
    for said in phrase_table("article_duration").find_all(text):
        if NUMBER_BEFORE_ARTICLE.search(text, 0, said.start):  # "8h a day" is a schedule, read with its number
            continue
        found.append((said.start, said.end, "duration", HOURS[said.label], said.label))
    return found


def duration_range(surface: str) -> tuple[float, float] | None:
    """The shortest and longest of a span written as a range, in hours ("2-3年" → (17520, 26280)); None when the
    surface is no range or its ends are in the wrong order ("5-3 years" is more likely a typo than a span)."""
    match = DURATION_RANGE.fullmatch(surface.strip())
    if match is None:
        return None
    low, high = (parse_number(match.group(name)) for name in (("low", "high") if match.group("low") else ("pair", "pair_high")))
    hours = HOURS[duration_unit(match.group("unit") or match.group("pair_unit"))]
    return (low * hours, high * hours) if 0 < low < high else None


def duration_unit(word: str) -> str:
    for unit, prefixes in (("hour", ("小时", "钟", "h")), ("day", ("天", "d")), ("week", ("周", "星期", "w")), ("month", ("个月", "月", "mo")), ("year", ("年", "y"))):
        if word.startswith(prefixes):
            return unit
    return "hour"


def _month_end(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1) - timedelta(days=1)


def _hours_until(match: re.Match[str]) -> float:
    """Hours from today to the end of the week, month, quarter or year named: 'by end of next week', '月底前', '年底'."""
    today = date.today()
    words = match.group()
    after_next = bool(re.search(r"next|下", words))
    if re.search(r"year|eoy|年", words):
        last = date(today.year + after_next, 12, 31)
    elif re.search(r"quarter|季度", words):
        month = (today.month - 1) // 3 * 3 + 3 + 3 * after_next  # the quarter's last month, counted from this January
        last = _month_end(date(today.year + (month - 1) // 12, (month - 1) % 12 + 1, 1))
    elif re.search(r"month|月", words):
        last = _month_end(today)
        if after_next:
            last = _month_end(last + timedelta(days=1))
    else:
        last = today + timedelta(days=6 - today.weekday())  # this Sunday
        if after_next:
            last += timedelta(days=7)
    return 24.0 * max((last - today).days + 1, 1)


def _hours_until_weekday(match: re.Match[str]) -> float:
    today = date.today()
    named = match.group("en") or match.group("zh")
    weekday = _WEEKDAYS_EN.index(named) if match.group("en") else min(_WEEKDAYS_ZH.index(named.replace("天", "日")), 6)
    days = (weekday - today.weekday()) % 7
    if match.group("next_en") == "next" or match.group("next_zh") == "下":  # that day of next week
        days = 7 - today.weekday() + weekday
    return 24.0 * (days + 1)


def _schedule_share(match: re.Match[str]) -> float | None:
    """Hours per week of a working-hours schedule, as a percentage of the week's 168 hours."""
    groups = match.groupdict()
    if groups.get("office"):
        start, end = 9, 18
    elif groups.get("idiom_end"):
        start, end = 9, 12 + CHINESE_DIGITS[groups["idiom_end"]]
    else:
        start, end = int(groups["start"]), int(groups["end"])
        if end <= start or groups["end_half"] == "pm":
            end += 12 if end < 12 else 0  # "9-6", "9am-6pm": the end is in the afternoon
    hours = end - start
    return round(hours * 5 / 168 * 100, 1) if 0 < hours <= 16 else None
