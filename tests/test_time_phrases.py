"""Time words kept as phrase tables in value_phrases.yaml (shares of the time, half a span, "a year" with no
number): each table, input → (kind, value, unit) from time_words.time_values, in both languages."""

from __future__ import annotations

import pytest

from advisor.nlu.time_words import time_values


def read(text: str) -> list[tuple[str, float, str]]:
    return [(kind, value, unit) for _, _, kind, value, unit in time_values(text)]


@pytest.mark.parametrize(
    ("said", "values"),
    [
        ("the boxes sit busy a quarter of the time", [("percent", 25.0, "%")]),
        ("训练机三分之二的时间都在跑", [("percent", 66.7, "%")]),
        ("GPU大概一半时间空着", [("percent", 50.0, "%")]),
        ("we plan to keep it for a month", [("duration", 730.0, "month")]),
        ("先租半年看看", [("duration", 4380.0, "year")]),
        ("只用半个月", [("duration", 365.0, "month")]),
        ("trial for half a month", [("duration", 365.0, "month"), ("duration", 730.0, "month")]),
    ],
)
def test_time_tables_give_shares_and_spans(said, values):
    assert read(said) == values


def test_an_article_after_a_number_is_a_schedule_not_a_span():
    assert read("it runs 10 hours a day") == []
    assert read("a weekday job") == []  # "a week" inside a longer word is no span
