"""The phrase tables (data/value_phrases.yaml) and their one matcher (nlu/phrases.py): request rates and counts read
from words, and what a template means."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from advisor.nlu.phrases import PhraseFile, PhraseTable, PhraseTableEntry, phrase_table
from advisor.nlu.values import find_values
from knowledge.catalog import load_catalog


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def rates(text: str, catalog) -> list[tuple[float, str]]:
    return [(round(v.value, 4), v.unit) for v in find_values(text, catalog) if v.kind == "request_rate"]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("peak is 40 req/s on the chat endpoint", [(40.0, "requests/second")]),
        ("we see 900 requests per minute at lunch", [(15.0, "requests/minute")]),
        ("about 7200 calls an hour overnight", [(2.0, "requests/hour")]),
        ("the arrival rate is about 12", [(12.0, "requests/second")]),
        ("RPM around 600", [(10.0, "requests/minute")]),
        ("高峰每分钟大概有1200次调用", [(20.0, "requests/minute")]),
        ("接口QPS峰值300", [(300.0, "requests/second")]),
        ("每秒能处理80个请求就行", [(80.0, "requests/second")]),
        ("接口大概120请求/秒", [(120.0, "requests/second")]),
    ],
)
def test_request_rates_are_read_in_both_languages(catalog, message, expected):
    assert rates(message, catalog) == expected


# (a volume "per day" is traffic since serve5: tests/test_serving_traffic.py reads it as requests/day)
@pytest.mark.parametrize("message", ["we queue 300 requests in one batch", "排队的有300个请求", "200 concurrent requests"])
def test_requests_without_a_period_are_no_rate(catalog, message):
    assert rates(message, catalog) == []


def test_cards_are_counted_from_the_servers_or_the_thread_before_them(catalog):
    found = [(v.kind, v.value) for v in find_values("3 servers with 4 gpus, or 12 of them in one box?", catalog)]
    assert ("count_server", 3.0) in found and ("count_gpu", 4.0) in found and ("count_gpu", 12.0) in found
    assert phrase_table("cards_after_servers").find_all("two servers with 16 gb") == []  # a memory size follows


def table(phrases: dict[str, list[str]], words: dict[str, list[str]], place: str = "anywhere") -> PhraseTable:
    return PhraseTable("t", PhraseTableEntry(place=place, phrases=phrases), words)


def test_words_in_letters_need_a_space_between_and_keep_to_whole_words():
    rate = table({"hit": ["{noun} per {unit}"]}, {"noun": ["hits"], "unit": ["day"]})
    assert [m.label for m in rate.find_all("10 hits per day")] == ["hit"]
    assert rate.find_all("10 hitsperday") == [] and rate.find_all("10 shits per days") == []


def test_other_tokens_may_be_written_together_or_apart():
    per = table({"rate": ["{noun} / 天"]}, {"noun": ["次", "hits"]})
    assert len(per.find_all("30次/天")) == 1 and len(per.find_all("30 hits / 天")) == 1


def test_optional_and_repeated_tokens():
    period = table({"second": ["每 秒 钟? {filler}*"]}, {"filler": ["大概", "有"]}, place="before")
    for text in ("每秒钟大概有50", "每秒50", "每秒 有 50"):
        assert period.ending_at(text, text.index("5")).label == "second", text
    assert period.ending_at("每天50", 2) is None
    assert period.ending_at("每秒很多50", 4) is None  # a word not in the list stands between


def test_the_number_is_captured_and_what_follows_the_marker_is_not_taken():
    count = table({"cards": ["boxes of #2 > each"]}, {})
    [match] = count.find_all("3 boxes of 8 each")
    assert (match.number, match.end) == ("8", len("3 boxes of 8"))
    assert count.find_all("3 boxes of 8 more") == []
    at_end = table({"cards": ["boxes of #2 > <end>"]}, {})
    assert len(at_end.find_all("3 boxes of 8")) == 1 and at_end.find_all("3 boxes of 8 more") == []


def test_a_table_naming_a_missing_word_list_or_a_malformed_token_is_refused():
    entry = {"place": "after", "phrases": {"x": ["{nowhere} per s"]}}
    with pytest.raises(ValidationError, match="nowhere"):
        PhraseFile.model_validate({"words": {"a": ["b"]}, "tables": {"rates": entry}})
    entry = {"place": "after", "phrases": {"x": ["{Bad-Name}"]}}
    with pytest.raises(ValidationError, match="is no token"):
        PhraseFile.model_validate({"words": {"a": ["b"]}, "tables": {"rates": entry}})
