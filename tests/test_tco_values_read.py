"""The figures a rent-or-buy question states, as the value scanner reads them: money with its period, a stated
purchase, year ranges, and the words that make a rent reserved. English and Chinese, wording of our own."""

from __future__ import annotations

import pytest

from advisor.nlu.time_words import HOURS, duration_range
from advisor.nlu.values import find_values
from knowledge.answer_text import word_positions
from knowledge.catalog import load_catalog

CATALOG = load_catalog()


def values(text, kind):
    return [(v.value, v.surface) for v in find_values(text, CATALOG) if v.kind == kind]


@pytest.mark.parametrize(
    ("text", "amount", "currency", "per"),
    [
        ("our cloud invoice is $48k/mo for the box", 48_000, "USD", "month"),
        ("the lease runs us $52k per month", 52_000, "USD", "month"),
        ("about $1.1M a year goes to the cloud", 1_100_000, "USD", "year"),
        ("we'd rent at 2.4 usd per gpu hour", 2.4, "USD", "gpu_hour"),
        ("现在租金8万/月", 80_000, "", "month"),
        ("月租九万左右", 90_000, "", "month"),
        ("每个月租金要6万块", 60_000, "CNY", "month"),
        ("云上每卡时12块", 12, "CNY", "gpu_hour"),
        ("租金每卡时11块钱", 11, "CNY", "gpu_hour"),
        ("每张卡每月租金7500", 7_500, "", "month"),
        ("租这些卡一年要花280万", 2_800_000, "", "year"),
    ],
)
def test_money_with_a_period_is_a_bill_or_a_rate(text, amount, currency, per):
    (found,) = values(text, "money")
    assert found[0] == pytest.approx((amount, currency, per))


@pytest.mark.parametrize(
    ("text", "amount", "per"),
    [
        ("a quote of $290k for one server", 290_000, "once"),
        ("整机报价大约210万", 2_100_000, "once"),
        ("three boxes cost $900k in total", 900_000, "all"),
        ("两台一共买下来400万", 4_000_000, "all"),
        ("two servers would run $580k together", 580_000, "all"),
    ],
)
def test_a_stated_purchase_is_read_whole(text, amount, per):
    (found,) = values(text, "money")
    assert found[0][0] == pytest.approx(amount) and found[0][2] == per


@pytest.mark.parametrize(
    ("text", "years", "low", "high"),
    [
        ("plan to run them 2-3 years", 2.5, 2, 3),
        ("we'd keep it for 3 to 5 years", 4, 3, 5),
        ("打算用2-3年", 2.5, 2, 3),
        ("大概用3到4年", 3.5, 3, 4),
        ("估计用个两三年", 2.5, 2, 3),
    ],
)
def test_a_year_range_is_one_span_not_a_percentage_and_a_span(text, years, low, high):
    (span,) = values(text, "duration")
    assert span[0] == pytest.approx(years * HOURS["year"])
    assert duration_range(span[1]) == pytest.approx((low * HOURS["year"], high * HOURS["year"]))
    assert values(text, "number") == [] and values(text, "percent") == []


def test_a_range_in_the_wrong_order_or_a_single_span_is_no_range():
    assert duration_range("5-3 years") is None
    assert duration_range("3年") is None


@pytest.mark.parametrize(
    ("text", "committed"),
    [
        ("we hold a 3-year reservation on them", True),
        ("1yr commit at $2.3/GPU-hr", True),
        ("包年租的，每月结算", True),
        ("买了预留实例", True),
        ("we rent on demand by the hour", False),
        ("按小时租的", False),
    ],
)
def test_commitment_words_mark_a_rent_billed_every_hour(text, committed):
    assert bool(word_positions("tco_billing", text)) is committed
