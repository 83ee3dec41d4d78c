"""Money words kept as phrase tables in value_phrases.yaml (budget said before or after an amount, a price per kWh,
"w" as 万, the period right before a rent, dollars written inside an amount): each table, input → values."""

from __future__ import annotations

import pytest

from advisor.nlu.phrases import phrase_table, words_in
from advisor.nlu.values import find_values
from knowledge.catalog import load_catalog


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def money(text: str, catalog) -> list[tuple]:
    return [v.value for v in find_values(text, catalog) if v.kind == "money"]


@pytest.mark.parametrize(
    ("said", "amounts"),
    [
        ("手头有20w预算", [(200000.0, "", "once")]),  # w is 万 before a budget word
        ("单卡功耗450w", []),  # w is watts without one
        ("预算大概9000", [(9000.0, "", "once")]),
        ("budget: 7000", [(7000.0, "", "once")]),
        ("租的话每小时3.2", [(3.2, "", "hour")]),
        ("每张卡每个月2100", [(2100.0, "", "month")]),
        ("电价七毛五一度", [(0.75, "", "kwh")]),
        ("2块3/度", [(2.3, "CNY", "kwh")]),
        ("it came to 40 bucks", [(40.0, "USD", "once")]),
        ("budget 9000 dollars", [(9000.0, "USD", "once")]),
    ],
)
def test_money_tables_give_amount_currency_and_period_in_both_languages(catalog, said, amounts):
    assert money(said, catalog) == amounts


def test_a_thousands_amount_before_a_budget_word_is_spent_not_a_length(catalog):
    [value] = find_values("we run on a 9k budget", catalog)
    assert (value.kind, value.value) == ("thousands", 9000.0)
    assert phrase_table("budget_after").at("9k budgeting", 2) is None  # another word, not the budget


def test_the_period_table_tells_a_rent_per_card_from_a_plain_period():
    assert phrase_table("period_right_before").ending_at("每卡每小时约", 6).label == "card"
    assert phrase_table("period_right_before").ending_at("一个月就", 4).label == "period"
    assert phrase_table("period_right_before").ending_at("每天", 2) is None


def test_dollar_words_are_found_inside_an_amount():
    assert words_in("12 cents", "usd_written") and words_in("3000美元", "usd_written")
    assert not words_in("3000元", "usd_written")


@pytest.mark.parametrize(
    ("said", "tokens"),
    [
        ("语料大概15w条，每条1200 token", [150000.0, 1200.0]),  # w is 万 before a measure word of counted items
        ("数据集8w条，平均每条500 token", [80000.0, 500.0]),
    ],
)
def test_a_w_count_of_items_is_ten_thousands_not_watts(catalog, said, tokens):
    values = find_values(said, catalog)
    assert [v.value for v in values if v.kind == "tokens"] == tokens
    assert not [v for v in values if v.kind == "number" and v.unit == "W"]
