"""Extractors of money written in ways the number reader alone misses: unit prices ("5000 kuai apiece"), tenths and
discounts ("80% of list"), jiao and fen ("six mao five a kWh"), yuan and jiao ("1 kuai 5")."""

from __future__ import annotations

from advisor.nlu.money_words import DISCOUNT, JIAO_AND_FEN, TENTHS, UNIT_BEFORE_PRICE, UNIT_PRICE, YUAN_AND_JIAO
from advisor.nlu.number_values import Value, money_value
from advisor.nlu.pattern_words import pattern_words
from advisor.nlu.phrases import phrase_table
from advisor.nlu.scan import Scan, extractor
from tools.quantities import CHINESE_DIGITS, parse_number

MAGNITUDE = pattern_words("money_magnitude")


@extractor("unit_prices")
def unit_prices(scan: Scan) -> None:
    for match in UNIT_PRICE.finditer(scan.text):
        if not (match.group("mag") or match.group("currency")):  # "ZeRO-3 per card" is no price
            continue
        scale = MAGNITUDE.get(match.group("mag") or "", 1.0)
        scan.claim(money_value(scan.text, match.start(), match.end(), float(match.group("n")) * scale, False))


@extractor("tenths")
def tenths(scan: Scan) -> None:
    for match in TENTHS.finditer(scan.text):
        digit = match.group("n")
        scan.claim(
            Value(
                match.start(), match.end(), "percent", 10.0 * (int(digit) if digit.isdigit() else CHINESE_DIGITS[digit]), "%", match.group()
            )
        )


@extractor("discounts")
def discounts(scan: Scan) -> None:
    """ "60% of list", "85% of list" (written as tenths) are tenths paid; "20% off" a share taken off. Kept as the share off."""
    for match in DISCOUNT.finditer(scan.text):
        pay = match.group("pay")
        paid = parse_number(pay) if pay else None
        off = 100 - (paid * 10 if paid < 10 else paid) if paid else float(match.group("off") or match.group("off_after"))
        scan.claim(Value(match.start(), match.end(), "discount", off, "%", match.group()))


@extractor("unit_before_price")
def unit_before_price(scan: Scan) -> None:
    for match in UNIT_BEFORE_PRICE.finditer(scan.text):
        scan.block(match.start(), match.end())


@extractor("jiao_and_fen")
def jiao_and_fen(scan: Scan) -> None:
    """ "six mao five a kWh", "power at seven mao five": a price per kWh in jiao and fen."""
    for match in JIAO_AND_FEN.finditer(scan.text):
        amount = parse_number(match.group("jiao")) / 10 + parse_number(match.group("fen") or "0") / 100
        per_kwh = phrase_table("per_kwh_after").at(scan.text, match.end())
        scan.claim(money_value(scan.text, match.start(), per_kwh.end if per_kwh else match.end(), amount, True))


@extractor("yuan_and_jiao")
def yuan_and_jiao(scan: Scan) -> None:
    """ "1 kuai 5", "one kuai eight mao" are ¥1.5 and ¥1.8, not one card and a five; "3 kuai 2 a kWh" a price per kWh."""
    for match in YUAN_AND_JIAO.finditer(scan.text):
        amount = parse_number(match.group("yuan")) + parse_number(match.group("jiao")) / 10
        per_kwh = phrase_table("per_kwh_after").at(scan.text, match.end())
        scan.claim(money_value(scan.text, match.start(), per_kwh.end if per_kwh else match.end(), amount, bool(per_kwh)))
