"""An answer card is served only for a question it covers: a card about one GPU never answers a question about
another, a card about training on a chip never answers whether it serves, and a question naming something no card
covers gets what can be answered about it and one precise question, never a neighbouring card or a snippet list.
(Questions worded for this test.)"""

from __future__ import annotations

import pytest

from advisor.nlu.subjects import card_subjects, covers, subjects_of
from knowledge.catalog import load_catalog, variant_family
from knowledge.concepts import load_concepts
from knowledge.subjects import load_subjects
from tests.retrieval_support import served_cards
from tests.threads import ask as _ask

CATALOG = load_catalog()
CARDS = load_concepts()


def test_a_card_about_one_gpu_does_not_cover_another():
    h20_card = card_subjects(CARDS.card("export-h20-timeline"), CATALOG)
    assert not covers(h20_card, subjects_of("can we still buy the H100", CATALOG))
    assert covers(h20_card, subjects_of("can we still buy the H20", CATALOG))


def test_a_general_card_covers_any_gpu_but_not_another_activity():
    general = card_subjects(CARDS.card("nvlink-vs-pcie"), CATALOG)
    assert "gpu" not in general and covers(general, subjects_of("does an L20 need nvlink", CATALOG))
    training = card_subjects(CARDS.card("ascend-910b-cann"), CATALOG)
    assert not covers(training, subjects_of("can the 910B serve with vLLM", CATALOG))


def test_a_card_narrowed_to_a_capability_does_not_answer_a_question_about_another_side():
    l40s_link = card_subjects(CARDS.card("l40s-nvlink"), CATALOG)
    asked = subjects_of("is the L40S still worth buying this year", CATALOG)
    assert covers(l40s_link, asked) and not covers(l40s_link, asked, asks_figures=False)


def test_what_a_card_is_about_is_read_from_its_title_in_both_languages():
    assert card_subjects(CARDS.card("h20-vs-h100"), CATALOG)["gpu"] == {"h20", "h100"}
    assert card_subjects(CARDS.card("ascend-vllm-ascend"), CATALOG)["engine"] == {"vllm"}
    assert subjects_of("昇腾910B能用vLLM推理吗", CATALOG) == subjects_of("can the ascend 910b serve with vllm", CATALOG)


def test_every_stated_about_names_known_subjects():
    known = {subject.id for subject in load_subjects().subjects}
    families = {variant_family(gpu.id) for gpu in CATALOG.gpus}
    stated = [card for card in CARDS.cards if card.about]
    assert len(stated) >= 15
    for card in stated:
        for kind, ids in card.about.items():
            if kind != "gpu":
                assert set(ids) <= known, card.id
            elif card.id not in ("rubin-timeline", "amd-china-mi308", "ascend-950-roadmap", "rtx-pro-6000d-china"):
                # hardware is named by its catalog family, or by a vendor the subject table names (no catalog row yet)
                assert set(ids) <= families | known, card.id


# questions about one GPU, in both languages; whatever card answers must be about that GPU or about no GPU in particular
ONE_GPU_QUESTIONS = [
    "Is the L20 still worth buying in 2026?",
    "L20现在还值得买吗",
    "Is the A800 still sold to Chinese buyers?",
    "A800现在国内还能买到吗",
    "How mature is the software for the Radeon AI PRO R9700?",
    "Should we wait for the next generation before buying L40S?",
    "T4现在还值得买吗",
    "Is the MI250X a sensible buy for serving today?",
]


@pytest.mark.parametrize("message", ONE_GPU_QUESTIONS)
def test_a_question_about_one_gpu_is_never_answered_with_a_card_about_another(offline_advisor, message):
    response = _ask(offline_advisor, message)
    asked = subjects_of(message, CATALOG)["gpu"]
    for card_id in set(served_cards(response)):
        about = card_subjects(CARDS.card(card_id), CATALOG).get("gpu")
        assert about is None or about & asked, (card_id, response.summary[:200])


@pytest.mark.parametrize("message", ["Can the 910B serve a chatbot with vLLM?", "910B能用vLLM做推理吗"])
def test_a_serving_question_about_a_chip_gets_the_serving_card_not_the_training_one(offline_advisor, message):
    served = set(served_cards(_ask(offline_advisor, message)))
    assert "ascend-910b-cann" not in served


@pytest.mark.parametrize(("message", "question_mark"), [
    ("Is the L20 still worth buying in 2026?", "?"),
    ("L20现在还值得买吗", "？"),
])  # fmt: skip
def test_a_subject_no_card_covers_gets_what_can_be_answered_and_one_question(offline_advisor, message, question_mark):
    response = _ask(offline_advisor, message)
    assert not set(served_cards(response))
    assert "L20" in response.summary.split("\n")[0]
    assert response.summary.rstrip().endswith(question_mark) and response.summary.count(question_mark) == 1
    assert "knowledge base" not in response.summary and "知识库" not in response.summary  # no snippet list
