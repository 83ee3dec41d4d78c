"""The site readers (nlu/site.py) read feeds, ratings, racks and nodes through phrase tables kept in site_words.yaml,
and the matcher tokens those tables need (<start>, <word>, !{list}, ~, #N.D, *N): each table, input → values."""

from __future__ import annotations

import time

import pytest

from advisor.nlu.phrases import PhraseTable, PhraseTableEntry
from advisor.nlu.site import read_circuit, read_node_count, read_rack_count


def table(phrases: dict[str, list[str]], words: dict[str, list[str]]) -> PhraseTable:
    return PhraseTable("t", PhraseTableEntry(place="anywhere", phrases=phrases), words)


@pytest.mark.parametrize(
    ("said", "circuit"),
    [
        ("our cage has three 32 A 415 V three-phase whips", {"amps": 32.0, "volts": 415.0, "three_phase": True, "feeds": 3}),
        ("one 16.5A 230V single-phase feed", {"amps": 16.5, "volts": 230.0, "three_phase": False, "feeds": 1}),
        ("25A 240V x3 per cage", {"amps": 25.0, "volts": 240.0, "feeds": 3}),
        ("25A 240V × 6 卡 in the cage", {"amps": 25.0, "volts": 240.0}),  # the 6 after the sign counts cards
        ("机房给了6路32安 380伏 三相电", {"amps": 32.0, "volts": 380.0, "three_phase": True, "feeds": 6}),
        ("双 25A 220v，主备", {"amps": 25.0, "volts": 220.0, "redundant": True, "feeds": 2}),
        ("两条线路，每条63A 400V", {"amps": 63.0, "volts": 400.0, "feeds": 2}),
    ],
)
def test_feeds_and_ratings_are_read_from_the_tables_in_both_languages(said, circuit):
    assert read_circuit([said]) == circuit


def test_a_card_name_glued_to_a_times_sign_is_no_feed_count():
    assert "feeds" not in read_circuit(["rtx4090x2 boxes on a 20A 120V line"])
    assert read_circuit(["20A 120V x2"])["feeds"] == 2


@pytest.mark.parametrize(
    ("said", "racks"),
    [
        ("pricing four GB300 NVL72 racks for next year", 4),
        ("we want 3 nvl72 racks", 3),
        ("打算部署3套GB200 NVL72机柜", 3),
        ("两个整柜的电费", 2),
        ("a GB200 NVL72 in 120 kW cabinets", None),  # a rating, not a count
        ("the rackmount chassis holds 2 cards", None),
    ],
)
def test_whole_racks_are_counted_but_a_rack_rating_is_not(said, racks):
    assert read_rack_count(said) == racks


@pytest.mark.parametrize(
    ("said", "nodes"),
    [("an 8-node training cluster", 8), ("大概32个节点", 32), ("h200 nodes only", None), ("what about 48 nodes?", 48)],
)
def test_nodes_are_counted_only_where_a_number_starts(said, nodes):
    assert read_node_count(said) == nodes


def test_start_word_and_not_before_tokens():
    count = table({"n": ["<start> #3 !{unit} <word>*2 boxes"]}, {"unit": ["kw"]})
    assert [m.number for m in count.find_all("ship 2 dgx h100 boxes")] == ["2"]
    assert count.find_all("a100 boxes") == []  # the number is part of a name
    assert count.find_all("2 kw boxes") == []  # a rating follows the number
    assert count.find_all("2 a b c boxes") == []  # at most two words between


def test_glued_and_decimal_tokens():
    times = table({"x": ["x ~ #2"]}, {})
    assert [m.number for m in times.find_all("x4")] == ["4"] and [m.number for m in times.find_all("x 4")] == ["4"]
    assert table({"x": ["x #2"]}, {}).find_all("x4") == []  # without ~ letters and digits need a space
    rating = table({"a": ["#3.1 amp"]}, {})
    assert [m.number for m in rating.find_all("7.5 amp")] == ["7.5"]


@pytest.mark.parametrize("hostile", ["1-" * 20000 + "node", "2" + " " * 40000 + "racks", "gb200 " * 8000, "两个" * 15000 + "机柜"])
def test_long_hostile_text_is_read_in_linear_time(hostile):
    started = time.perf_counter()
    read_circuit([hostile]), read_rack_count(hostile), read_node_count(hostile)
    assert time.perf_counter() - started < 2.0
