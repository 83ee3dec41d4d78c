"""Users, context-length and reference words kept as data in value_phrases.yaml: each table or list, input → result."""

from __future__ import annotations

import pytest

from advisor.nlu.phrases import phrase_table, words_in
from advisor.nlu.values import find_values
from knowledge.catalog import load_catalog


@pytest.mark.parametrize(
    ("surface", "headcount"),
    [
        ("60 researchers", True),
        ("a 12-person lab", True),
        ("300号人", True),
        ("研发同事40个", True),
        ("25 users", True),  # users and people are who may use it, not all at once (#35): a peak share of them is the load
        ("几百人", True),
        ("12 GPUs", False),
    ],
)
def test_people_of_an_organisation_are_a_headcount(surface, headcount):
    assert words_in(surface, "headcount_word") is headcount


@pytest.mark.parametrize(("said", "at_once"), [("30 people at  the same   time", True), ("峰值并发80", True), ("200 staff", False)])
def test_a_load_at_once_is_told_from_a_headcount(said, at_once):
    assert words_in(said, "at_once_word") is at_once


@pytest.mark.parametrize(
    ("said", "tokens"),
    [("we need 64k context", 65536.0), ("上下文 16k 够吗? 不, 是 16k上下文长度", 16384.0), ("4096 ctx window please", 4096.0)],
)
def test_a_number_before_a_context_word_is_a_context_length(said, tokens):
    assert [v.value for v in find_values(said, load_catalog()) if v.kind == "context_setting"][-1] == tokens


def test_a_longer_word_starting_like_context_is_not_one():
    assert phrase_table("context_after").at("4k contextual", 2) is None
    assert phrase_table("context_after").at("4k of context length", 2).end == len("4k of context length")


@pytest.mark.parametrize(
    ("before", "reference"), [("slower than the ", True), ("比起", True), ("compared  with ", True), ("more of the ", False)]
)
def test_what_follows_than_or_bi_is_a_reference(before, reference):
    assert bool(phrase_table("reference_before").ending_at(before + "8", len(before))) is reference
