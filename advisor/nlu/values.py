"""Built-in values: every mention of a name, number-with-unit or known keyword, resolved.

This is the deterministic half of understanding (as in Snips' built-in entities): it finds
*what* was written — "8卡" is a count of cards, "0.8元/度" money per kWh, "A100 80GB" a
catalog GPU — and resolves it to a value. *Which role* a value plays (a GPU count or a TP
degree, a budget or a server price, a context or an output length) is left to the trained
role tagger. Nothing here raises; odd input gives fewer values.
"""

from __future__ import annotations

import re
from dataclasses import replace

from advisor.name_matcher import matcher_for, normalize_text
from advisor.nlu.count_words import (
    BATCH,
    BUY_BEFORE,
    CONTEXT_SETTING,
    EPOCHS,
    GPUS_PER_NODE,
    MFU,
    NODES_OF_GPUS,
    OTHER_SETTING,
    PARALLEL,
    PUE,
    SERVERS_OF_NAMED_CARDS,
    TIMES_AFTER_NAME,
    TIMES_COUNT,
    WORD_NUMBERS,
)
from advisor.nlu.entity_words import (
    CLAIM_RATIO,
    CLAIM_WEIGHTS_MULTIPLE,
    OTHER_GPU,
    claimed_bytes_per_parameter,
    claimed_weights_multiple,
    keyword_tables,
    model_name_pattern,
    model_version_pattern,
    names_written_apart,
)
from advisor.nlu.money_words import (
    DISCOUNT,
    JIAO_AND_FEN,
    PER_KWH_AFTER,
    TENTHS,
    UNIT_BEFORE_PRICE,
    UNIT_PRICE,
    YUAN_AND_JIAO,
)
from advisor.nlu.number_values import DAILY_BEFORE, Value, money_value, number_value
from advisor.nlu.phrases import phrase_table
from advisor.nlu.time_words import time_values
from knowledge.catalog import Catalog
from tools.quantities import CHINESE_DIGITS, find_numbers, parse_number

PCI_ADDRESS = re.compile(r"(?<![0-9a-f])(?:pci:)?[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}(?:\.[0-9a-f])?(?![0-9a-f])")
MAX_TEXT = 4000  # values are read from the start and the end of long pastes, where the question sits
# Offsets must stay those of the text, so collapsed spaces are filled with a character no pattern
# matches: a long run of spaces would make the unit patterns' optional spaces backtrack quadratically.
INERT = "\x00"
LONG_SPACE = re.compile(r"\s{4,}")
# "two used 3090s", "3 refurbished a100s": a word on the card's condition between a count and the card
BEFORE_CARD = re.compile(r"\s*(?:(?:used|second[\s-]?hand|secondhand|refurb(?:ished)?|new|old|spare|rented)\s+)?")
ENDS_MESSAGE = re.compile(r"[\s?？!！.。呢吗]*$")
GLUED_DIGITS = re.compile(r"\d{1,4}")
NUMBER_NAME_AND_COUNT = re.compile(r"(?<![\d.a-z])(?P<name>\d{4})(?P<n>\d{1,2})\s*(?:张|块)?\s*(?:卡|显卡)")
NEGATED = re.compile(r"(?:不|不做|不搞|不用|不需要|没有|无需|(?<![a-z])(?:not|no|without|never|don'?t|won'?t|isn'?t)\s+(?:do(?:ing)?\s+|any\s+)?)$")
ALWAYS_ON = re.compile(r"24\s*/\s*7|7\s*[x×*]\s*24|全天候|全天(?:运行|跑)|不间断|不关机|24\s*小时\s*(?:满载|满跑|不停|运行|开着|在线|跑|开机|工作|都在跑)|满载运行|全年无休|全年不停|常年开着|一直开着|不停机|around\s+the\s+clock|non[\s-]?stop")







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
            count = number_value(text, end, glued.end(), glued.group(), float(glued.group()))
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
    for match in PUE.finditer(text):
        claim(Value(match.start(), match.end(), "pue", float(match.group("n")), "", match.group()))
    for match in GPUS_PER_NODE.finditer(text):  # "8 per node": the cards in each server
        claim(Value(match.start(), match.end(), "count_gpu", float(match.group("n")), "", match.group()))
    for match in (*phrase_table("cards_after_servers").find_all(text), *phrase_table("digits_of_them").find_all(text)):  # "4 nodes of 8", "8 of them"
        claim(Value(match.number_start, match.number_end, "count_gpu", float(match.number), "", match.number))
    for match in NODES_OF_GPUS.finditer(text):  # "two 8-GPU nodes", "4 x 8-card servers": the cards of all the servers
        servers = WORD_NUMBERS.get(match.group("servers")) or float(match.group("servers"))
        claim(Value(match.start(), match.end(), "count_gpu", float(servers) * float(match.group("per")), "", match.group()))
    for match in SERVERS_OF_NAMED_CARDS.finditer(text):  # "two 8-GPU L40S servers": two servers
        servers = match.group("servers")
        claim(Value(match.start(), match.end(), "count_server", float(WORD_NUMBERS.get(servers) or servers), "", servers))
    for match in EPOCHS.finditer(text):
        passes = match.group("n") or match.group("setting")
        claim(Value(match.start(), match.end(), "epochs", float(WORD_NUMBERS.get(passes) or parse_number(passes)), "", match.group()))
    for match in OTHER_SETTING.finditer(text):
        taken[match.start() : match.end()] = [True] * (match.end() - match.start())
    for match in UNIT_PRICE.finditer(text):
        if not (match.group("mag") or match.group("currency")):  # "ZeRO-3每张卡" is no price
            continue
        scale = {"万": 1e4, "w": 1e4, "千": 1e3, "k": 1e3}.get(match.group("mag") or "", 1.0)
        claim(money_value(text, match.start(), match.end(), float(match.group("n")) * scale, False))
    for match in TENTHS.finditer(text):
        digit = match.group("n")
        claim(Value(match.start(), match.end(), "percent", 10.0 * (int(digit) if digit.isdigit() else CHINESE_DIGITS[digit]), "%", match.group()))
    for match in DISCOUNT.finditer(text):
        pay = match.group("pay")  # "6折", "8.5折", "八五折": tenths paid
        paid = parse_number(pay) if pay else None
        off = 100 - (paid * 10 if paid < 10 else paid) if paid else float(match.group("off") or match.group("off_after"))
        claim(Value(match.start(), match.end(), "discount", off, "%", match.group()))
    for match in CLAIM_WEIGHTS_MULTIPLE.finditer(text):
        claim(Value(match.start(), match.end(), "claim", claimed_weights_multiple(match), "× weights", match.group()))
    for match in CLAIM_RATIO.finditer(text):
        claim(Value(match.start(), match.end(), "claim", claimed_bytes_per_parameter(match.group()) or "rule_of_thumb", "bytes/param", match.group()))
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
        claim(money_value(text, match.start(), per_kwh.end() if per_kwh else match.end(), amount, True))
    for match in YUAN_AND_JIAO.finditer(text):  # "1块5", "一块八毛" are ¥1.5 and ¥1.8, not one card and a five
        yuan, jiao = match.group("yuan"), match.group("jiao")
        amount = parse_number(yuan) + parse_number(jiao) / 10
        per_kwh = PER_KWH_AFTER.match(text, match.end())  # "3块2一度"
        claim(money_value(text, match.start(), per_kwh.end() if per_kwh else match.end(), amount, bool(per_kwh)))
    for start, end, kind, value, unit in time_values(text):
        claim(Value(start, end, kind, value, unit, text[start:end]))
    for number in find_numbers(text):
        value = number_value(text, number.start, number.end, number.text, number.value)
        if value is not None and value.kind == "number" and value.value.is_integer() and 1 <= value.value <= 1024 and BEFORE_CARD.match(text, value.end).end() in gpu_starts:
            value = replace(value, kind="count_gpu")  # "16 H100s total": a count of the card named right after it
        if value is not None:
            claim(value)
    for word, count in WORD_NUMBERS.items():
        for match in re.finditer(rf"(?<![a-z]){re.escape(word)}(?![a-z])" if word.isascii() else re.escape(word), text):
            value = number_value(text, match.start(), match.end(), word, float(count), words_only=True)
            gap = BEFORE_CARD.match(text, match.end()).end()
            cards = gap in gpu_starts or (count > 1 and (BUY_BEFORE.search(text, 0, match.start()) or phrase_table("of_them").at(text, match.end())))
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
