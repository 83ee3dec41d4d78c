"""A figure stated in the question is checked first, a two-part question gets both parts, and a judgement question
reaches its card with the card's verdict as the first line (session cards11, issue #36 items 2 and 3)."""

from __future__ import annotations

import pytest

from advisor.offline.tasks.specs.stated_view import sheet_figures
from knowledge.concepts import load_concepts
from tests.retrieval_support import served_cards

# (question, words the first line must start with, a figure the first line must hold)
STATED = [
    ("B200 是192G吧？", "**不对", "180 GB"),
    ("Our vendor says the B200 is 192 GB per GPU, right?", "**No", "180 GB"),
    ("The H100 has 1979 TFLOPS, right?", "**Not as dense BF16", "989.5"),
    ("H100的算力是1979 TFLOPS对吧？", "**按稠密 BF16 不对", "989.5"),
]


@pytest.mark.parametrize(("question", "opening", "figure"), STATED)
def test_a_stated_figure_is_checked_against_the_catalog_first(offline_advisor, question, opening, figure):
    response = offline_advisor.answer(question, [])
    first = response.answer.split("\n\n", 1)[0]
    assert first.startswith(opening) and figure in first, first


def test_a_card_named_with_its_memory_but_no_confirmation_asked_is_no_claim(offline_advisor):
    for question in ("A100 80GB specs", "A100 80GB的参数"):
        first = offline_advisor.answer(question, []).answer.split("\n\n", 1)[0]
        assert not first.startswith(("**Yes", "**No", "**对", "**不对")), first


def test_the_sparse_figures_come_from_the_catalog_sparsity_field():
    dense_only = {"bf16_tflops": 312.0, "fp8_tflops": None, "sparsity_2_4": False}
    assert sheet_figures(dense_only) == [("bf16", False, 312.0)]
    sparse = {"bf16_tflops": 989.5, "fp8_tflops": 1979.0, "sparsity_2_4": True}
    assert ("bf16", True, 1979.0) in sheet_figures(sparse) and ("fp8", False, 1979.0) in sheet_figures(sparse)


TWO_PARTS = [
    ("Can the 910B run vLLM? And is migrating our flash-attn and bitsandbytes code painful?", "(1) Yes", "(2)"),
    ("昇腾910B支持vLLM吗？另外我们用了flash-attn和bitsandbytes，迁过去麻烦吗？", "（1）能", "（2）"),
]


@pytest.mark.parametrize(("question", "first_part", "second_part"), TWO_PARTS)
def test_a_two_part_question_gets_an_answer_per_part_in_order(offline_advisor, question, first_part, second_part):
    summary = offline_advisor.answer(question, []).answer.split("\n\n", 1)[0]
    assert first_part in summary and second_part in summary and summary.index(first_part) < summary.index(second_part), summary


JUDGEMENTS = [
    ("The MI300X looks cheaper for the specs, what am I missing?", "mi300x-what-you-miss"),
    ("MI300X参数看着很香，有什么坑？", "mi300x-what-you-miss"),
    ("How do we keep FP8 pretraining from diverging?", "fp8-training-safety"),
]


@pytest.mark.parametrize(("question", "card_id"), JUDGEMENTS)
def test_a_judgement_question_reaches_its_card_verdict_first(offline_advisor, question, card_id):
    response = offline_advisor.answer(question, [])
    card = load_concepts().card(card_id)
    assert served_cards(response)[:1] == [card_id], (served_cards(response), response.answer[:200])
    assert response.answer.startswith(card.answer.pick(response.language)[:40])
