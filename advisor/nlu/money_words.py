"""How money is written: currencies, the period or unit an amount is the price of, totals, discounts,
"1块5" and "七毛一度". Patterns only; ``values`` claims what they match."""

import re

from advisor.nlu.pattern_words import pattern

# Read so that they can be named as unusable, not mistaken for dollars or yuan
OTHER_CURRENCIES = {"EUR": pattern("currency_eur"), "GBP": pattern("currency_gbp"), "INR": pattern("currency_inr")}
# Hundredths of the currency: "12 cents", "28p/kWh"
SUBUNIT = pattern("currency_subunit")
PER_AFTER = re.compile(
    r"\s*(?:/|每|一|per|an?|each)\s*(?:(?P<gpu>gpu|卡|张|card)\s*(?:[-·/每一]|per\s)?\s*)?(?:(?P<hour>hr|hour|h|小时|个小时|时)|(?P<month>月|个月|mo|month)|(?P<year>年|yr|year))(?![a-z])"
)
# What may stand between a period and its price: "一个月就要30万", "一年大概20万"
_PERIOD_TO_PRICE = r"(?:要花|要付|就要|得花|要|得|付|花|大概|约|差不多)?"
PRICE_AFTER_PERIOD = re.compile(_PERIOD_TO_PRICE + r"\s*(?:\d|[两三四五六七八九十])[\d.两三四五六七八九十百千多]*\s*(?:万|千|k|w|元|块|刀|美元)")
# "两台一共280万", "$420k for two HGX boxes", "2.3M all in": the price of everything bought, not of one server
TOTAL_AFTER = pattern("total_after", r"\s*{}")
# "5000块一张", "$1,800 each": a price per card, whose "一张" is not a count of cards
UNIT_PRICE_AFTER = re.compile(r"\s*(?:(?:一|每|/)\s*(?:张|块|片|台|个)|(?:each|apiece|a\s+(?:card|piece|unit)|per\s+(?:card|unit|piece)|/\s*(?:card|unit))(?![a-z]))")
# (an hourly unit written before the amount, "卡时1.8元", is the phrase table rate_unit_before)
PER_BEFORE = re.compile(r"(?:每|per)\s*(?:张?卡|gpu)?\s*每?\s*(?:(?P<hour>个?小时|hour|(?<=卡)时)|(?P<month>个?月|month)|(?P<year>年|year))[^\d]{0,10}$|(?P<rent>月租|包月)[^\d]{0,4}$|一个?(?:(?P<month_a>月)|(?P<year_a>年)|(?P<hour_a>小时))" + _PERIOD_TO_PRICE + r"\s*$")
YUAN_AND_JIAO = re.compile(r"(?<![\d.])(?P<yuan>\d{1,3}|[一二两三四五六七八九]|十)块(?P<jiao>[1-9一二三四五六七八九])毛?(?![\d卡张块台个小度月年天周])")
# "六毛五一度", "一度电六毛", "电价七毛五": jiao (and fen) of a price per kWh, the kWh said after or before
JIAO_AND_FEN = re.compile(
    r"(?P<before>(?:[一每]\s*度电?|电价|电费)\s*(?:是|要|大概|约)?\s*)?(?<![\d.])(?P<jiao>[1-9一二两三四五六七八九])(?:毛|角)钱?"
    r"(?P<fen>[1-9一二三四五六七八九])?(?(before)|(?=\s*(?:/|每|一|per)\s*(?:度|kwh|千瓦时)))"
)
# "报价一台230万", "一张要2万": the unit an amount is the price of, not a count
UNIT_BEFORE_PRICE = re.compile(r"[一每]\s*(?:台|张|块|片)\s*(?:要|是|就要|大概|约|差不多)?\s*(?=[\d两三四五六七八九十]+(?:\.\d+)?\s*(?:万|千|k|w|元|块))")
# "1.3万一张", "5000块一台": an amount per unit; read whole, or "1.3万一" would be 14,000 by the colloquial rule
UNIT_PRICE = re.compile(r"(?<![\w.\-])(?P<n>\d+(?:\.\d+)?)\s*(?P<mag>万|千|k|w)?\s*(?P<currency>元|块钱|块|刀|美元)?\s*(?:一|每|/)\s*(?:张|台|片|个)")
# "六成", "七成负载": tenths of the time
TENTHS = re.compile(r"(?P<n>[一二三四五六七八九]|\d)成(?![本功员品])")
# "40% off", "a 30% discount", "便宜20%", "打6折" / "打八五折" (pay 60% / 85%): a discount on the rent, as the share taken off
DISCOUNT = re.compile(
    r"(?P<off>\d{1,2}(?:\.\d)?)\s*%\s*(?:(?:savings?\s+plans?|reserved|reservation|commit(?:ment|ted)?|volume|annual|upfront|academic|edu(?:cation)?)\s+)?"
    r"(?:off|discount|cheaper|less|reserved|committed)(?![a-z])|(?:discount|便宜|优惠|折扣|打折)\s*(?:of\s+|了)?(?P<off_after>\d{1,2}(?:\.\d)?)\s*%"
    r"|(?:打|给|享|(?<![\d一二三四五六七八九]))\s*(?P<pay>\d{1,2}(?:\.\d)?|[一二三四五六七八九]{1,2})\s*折(?![旧腾叠算合])")
# "30w预算", "8w块": Chinese writers shorten 万 (ten thousand) to w; only around money words, since
# "700W" is also a card's power.
WAN_CONTEXT_BEFORE = pattern("wan_context_before", r"{}[^\d]{0,4}$")
SPENDING_BEFORE = re.compile(r"(?:budget\b[^\d\n]{0,24}?\b(?:to|at)|(?:buy|bought|get|got|purchase[ds]?|quoted?)\b[^\n]{0,30}?\bfor|caps?\b[^\n]{0,20}?\bat|capped\s+at|ceiling|approved|grant|funding|budget|spend|under|below|up\s+to|at\s+most|max(?:imum)?|within|cost(?:s|ing)?|price[ds]?|quoted?|pay|paid|afford|capex|花|预算|不超过|最多)\s*(?:us|me|them)?\s*(?:of|is|was|at|about|around|roughly|~|:|=)?\s*(?:about|around|roughly|~)?\s*$")
ENERGY_PRICE_BEFORE = re.compile(r"(?:power|electricity|energy|电费|电价|[一每]\s*度电?)\s*(?:price|cost|rate)?\s*(?:was|is|were|at|of|=|:|按|是|为)?\s*(?:about|around|roughly|~|大概|约)?\s*(?:\$|¥|￥)?\s*$")
RENTING = pattern("renting")
RENT_BEFORE = pattern("rent_before", r"{}[^\d]{0,8}$")
