"""The concept-card data: counts per family, dated sources, calculators the answers can offer,
loader errors, and the retrieval rule that keeps a doc slot beside the cards. Fast: no model, no index."""

from __future__ import annotations

import re
from typing import get_args

import pytest

from advisor.offline.tasks.concept.knowledge import CALCULATOR_TASK
from advisor.retrieval.search import _keep_a_doc_slot
from knowledge.catalog import CatalogError
from knowledge.concepts import CONCEPTS_FILE, Calculator, Family, load_concepts

FAMILIES = get_args(Family)
CJK = re.compile(r"[\u3400-\u9fff]")


def test_there_are_at_least_200_cards_and_every_family_has_a_dozen():
    cards = load_concepts()
    assert len(cards.cards) >= 200
    assert {family: len(cards.family(family)) >= 12 for family in FAMILIES} == dict.fromkeys(FAMILIES, True)


@pytest.mark.parametrize("family", FAMILIES)
def test_family_cards_cite_dated_sources_and_give_numbers_in_both_languages(family):
    for card in load_concepts().family(family):
        assert all(source.date and source.date[:4].isdigit() for source in card.sources), card.id
        assert all(source.date in source.cited for source in card.sources), card.id
        assert re.search(r"\d", card.answer.en) and re.search(r"\d", card.answer.zh), f"{card.id}: no figure"
        # English answers may name a Chinese platform (晨涧云), but are written in English
        assert CJK.search(card.answer.zh) and len(CJK.findall(card.answer.en)) < 0.02 * len(card.answer.en), card.id
        assert len(card.questions.en) >= 4 and len(card.questions.zh) >= 4, card.id
        assert card.calculator is not None, f"{card.id} names no tool to refine it"


def test_every_calculator_a_card_may_name_is_one_the_answer_can_offer():
    offered = set(CALCULATOR_TASK) | {"diagnose"}  # a troubleshooting card points at the diagnosis, not a calculator offer
    assert set(get_args(Calculator)) == offered


def test_a_card_answers_first_and_does_not_repeat_its_title_as_the_answer():
    for card in load_concepts().cards:
        for language in ("en", "zh"):
            first = re.split(r"(?<=[.。:：;；])", card.answer.pick(language), maxsplit=1)[0]
            assert 2 <= len(first) <= 400, f"{card.id}/{language}: first sentence {len(first)} chars"
            assert card.answer.pick(language) != card.title.pick(language)


def _family_file(directory, name, family, cards):
    (directory / f"{name}.yaml").write_text(f"family: {family}\ncards:\n{cards}", encoding="utf-8")


CARD = """  - id: {id}
    title: {{en: "T", zh: "标题"}}
    questions: {{en: ["q"], zh: ["问"]}}
    answer: {{en: "Yes: 1 GB.", zh: "是：1 GB。"}}
    calculator: estimate_memory
    sources:
      - {{title: "A vendor page", url: "https://example.org/s"{date}}}
"""


def _load(tmp_path):
    return load_concepts.__wrapped__(CONCEPTS_FILE, tmp_path)


def test_a_family_file_loads_and_tags_its_cards(tmp_path):
    _family_file(tmp_path, "serving", "serving", CARD.format(id="extra-card", date=', date: "2026-01"'))
    cards = _load(tmp_path)
    assert cards.card("extra-card").family == "serving" and cards.card("extra-card").sources[0].cited == "A vendor page (2026-01)"
    assert cards.card("nvlink-vs-pcie").family is None  # the first cards keep their own file


@pytest.mark.parametrize(
    ("name", "family", "date", "complaint"),
    [
        ("serving", "serving", "", "date"),  # a family card must say when its figure applied
        ("serving", "serving", ', date: "last spring"', "date"),
        ("market", "serving", ', date: "2026"', "file name"),  # the family is the file's name
        ("serving", "cooking", ', date: "2026"', "family"),
    ],
)
def test_a_bad_family_file_is_refused_with_the_reason(tmp_path, name, family, date, complaint):
    _family_file(tmp_path, name, family, CARD.format(id="extra-card", date=date))
    with pytest.raises(CatalogError, match=complaint):
        _load(tmp_path)


def test_a_card_id_used_twice_is_refused(tmp_path):
    _family_file(tmp_path, "serving", "serving", CARD.format(id="nvlink-vs-pcie", date=', date: "2026"'))
    with pytest.raises(CatalogError, match="duplicate concept card ids: nvlink-vs-pcie"):
        _load(tmp_path)


def test_cards_leave_one_of_the_top_slots_to_a_doc():
    ranked = [("concept-a", 0.9), ("concept-b", 0.8), ("concept-c", 0.7), ("parallelism", 0.6), ("concept-d", 0.5)]
    assert _keep_a_doc_slot(ranked, 3) == [("concept-a", 0.9), ("concept-b", 0.8), ("parallelism", 0.6)]
    assert _keep_a_doc_slot(ranked, 1) == [("concept-a", 0.9)]
    assert _keep_a_doc_slot(ranked, 5) == ranked
    only_cards = [("concept-a", 0.9), ("concept-b", 0.8), ("concept-c", 0.7)]
    assert _keep_a_doc_slot(only_cards, 3) == only_cards  # nothing else to show: the cards fill the slots
    docs_first = [("oom", 0.9), ("concept-a", 0.8), ("concept-b", 0.7), ("thermal", 0.6)]
    assert _keep_a_doc_slot(docs_first, 3) == docs_first[:3]
