"""Judgement questions reach the card that answers them, in English and in Chinese: which variant of one GPU to take,
buy or wait with a go-live date, how big a UPS for N servers (the card, then the plan of those servers), a card with
no fan, a daily token volume as a rate. Also: at least 200 family cards, each with a dated source. (Questions written
for this test; not the cards' own questions nor the held-out retrieval set.)"""

from __future__ import annotations

import pytest

from advisor.nlu.subjects import card_subjects, covers, subjects_of
from knowledge.catalog import load_catalog
from knowledge.concepts import load_concepts
from knowledge.subjects import load_subjects
from tests.retrieval_support import served_cards

CATALOG = load_catalog()
CARDS = load_concepts()


def test_at_least_200_family_cards_each_with_a_dated_source():
    family_cards = [card for card in CARDS.cards if card.family]
    assert len(family_cards) >= 200
    assert all(card.sources and all(source.date and source.date[:4].isdigit() for source in card.sources) for card in family_cards)


def test_two_variants_of_one_gpu_are_a_choice_between_them_not_two_gpus():
    assert "variant_choice" in subjects_of("would the H100 NVL do instead of the H100 SXM for us", CATALOG)["ask"]
    assert "variant_choice" in subjects_of("A100 40GB vs 80GB for a 13B chatbot", CATALOG)["ask"]
    assert "variant_choice" in subjects_of("A100要40G的还是80G的", CATALOG)["ask"]
    assert "ask" not in subjects_of("H100 80GB vs A100 40GB", CATALOG)  # two GPUs, each with its size
    assert "ask" not in subjects_of("is the A100 80GB fast enough", CATALOG)


def test_a_card_on_one_gpus_variants_does_not_answer_for_another_gpu():
    h200 = card_subjects(CARDS.card("h200-nvl-vs-h200-sxm"), CATALOG)
    assert covers(h200, subjects_of("H200 NVL or SXM, which one", CATALOG), asks_figures=False)
    assert not covers(h200, subjects_of("H100 PCIe or SXM, which one", CATALOG), asks_figures=False)


def test_every_ask_a_card_answers_first_is_named_by_some_card():
    named = {ask for card in CARDS.cards for ask in card_subjects(card, CATALOG).get("ask", ())}
    assert set(load_subjects().card_first) <= named


# (question, the cards that answer it, a tool the answer must also run or None)
ASKED = [
    ("We were offered H200 NVL cards instead of the H200 SXM board. Good enough for serving?", {"h200-nvl-vs-h200-sxm"}, None),
    ("供应商说可以用H200 NVL代替SXM版，做推理够不够？", {"h200-nvl-vs-h200-sxm"}, None),
    ("Do we need the 80GB A100 or will the 40GB one do?", {"a100-40gb-vs-80gb"}, None),
    ("A100选40G的还是80G的，差价值得吗？", {"a100-40gb-vs-80gb"}, None),
    ("Launch is fixed for next spring: order H200 servers now or hold out for B300?", {"b300-or-h200-with-deadline", "buy-now-or-wait-with-deadline"}, None),
    ("明年春天必须上线，现在订H200还是等B300？", {"b300-or-h200-with-deadline", "buy-now-or-wait-with-deadline"}, None),
    ("What size UPS should we buy for three 8x H100 servers?", {"ups-sizing-for-gpu-servers"}, "plan_facility"),
    ("三台8卡H100服务器，UPS要买多大的？", {"ups-sizing-for-gpu-servers"}, "plan_facility"),
    ("The L40S I got has no fan at all. Will it cope in a normal workstation case?", {"passive-cooled-cards"}, None),
    ("L40S没有风扇，放普通工作站机箱里行不行？", {"passive-cooled-cards"}, None),
    ("Our traffic is about 300 million tokens a day. What is that per second?", {"tokens-per-day-to-per-second"}, None),
    ("我们每天大约3亿token，换算成每秒是多少？", {"tokens-per-day-to-per-second"}, None),
]  # fmt: skip


@pytest.mark.parametrize(("question", "cards", "tool"), ASKED, ids=[f"{i}" for i in range(len(ASKED))])
def test_a_judgement_question_gets_its_card_first(offline_advisor, question, cards, tool):
    response = offline_advisor.answer(question, [])
    served = served_cards(response)
    assert served and served[0] in cards, (served, response.answer[:300])
    assert response.answer.startswith(CARDS.card(served[0]).answer.pick(response.language)[:40])  # verdict first, no title above it
    if tool is not None:
        assert tool in [call.name for call in response.tool_calls]


@pytest.mark.parametrize("question", ["Compare the specs of the H100 PCIe and the H100 SXM", "H100 PCIe和H100 SXM参数对比"])
def test_a_spec_sheet_asked_of_two_variants_stays_a_spec_sheet(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    assert "compare_gpus" in [call.name for call in response.tool_calls]


# A judgement asked of the parts named (can it, should we, which for a job) that a card surely answers: the card answers,
# with no spec sheet under it (a card for a facet is no spec table: test_question_facets, test_concept_answers); the parts'
# figures follow only when the question asks for figures too (Ask.asks_judgement + concept plan.judging_card; route judgement_card).
JUDGED = [
    ("Will the Ascend 910B run our models under vLLM?", {"ascend-vllm-ascend", "h20-vs-910b-inference"}),
    ("昇腾910B上能不能跑vLLM？", {"ascend-vllm-ascend", "h20-vs-910b-inference"}),
    ("For an inference service, is the H20 or the 910B the better pick?", {"h20-vs-910b-inference"}),
    ("H20和910B，做推理服务用哪个更好？", {"h20-vs-910b-inference"}),
]  # fmt: skip


@pytest.mark.parametrize(("question", "cards"), JUDGED, ids=[f"{i}" for i in range(len(JUDGED))])
def test_a_judgement_of_named_parts_leads_with_the_card_and_adds_no_spec_sheet(offline_advisor, question, cards):
    response = offline_advisor.answer(question, [])
    served = served_cards(response)
    assert served and served[0] in cards, (served, response.answer[:300])
    assert response.answer.startswith(CARDS.card(served[0]).answer.pick(response.language)[:40])
    assert "compare_gpus" not in [call.name for call in response.tool_calls]  # the judgement asked, not a spec table


FIGURES_ASKED = [
    "For an inference service, is the H20 or the 910B the better pick, and what memory bandwidth does each have?",
    "做推理服务的话，H20和910B哪个更好，显存带宽各是多少？",  # one question: two sentences are answered part by part
]


@pytest.mark.parametrize("question", FIGURES_ASKED, ids=["en", "zh"])
def test_a_judgement_that_also_asks_for_figures_gets_them_below_the_card(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    served = served_cards(response)
    assert served and served[0] == "h20-vs-910b-inference", (served, response.answer[:300])
    assert "compare_gpus" in [call.name for call in response.tool_calls]  # the figures asked, below the card


def test_a_judgement_card_needs_the_side_asked_not_only_the_part():
    from advisor.offline.tasks.concept.plan import judging_card

    class _Turn:  # the plan reads only what the message names and the catalog
        def __init__(self, text):
            self.catalog = CATALOG
            self.ask = type("A", (), {"named": subjects_of(text, CATALOG)})()

    assert judging_card(_Turn("910B能跑vLLM吗")) is not None
    assert judging_card(_Turn("how many tokens per second can an H100 do")) is None  # the part alone: its figures answer
    assert judging_card(_Turn("can two 4090s run Qwen2.5-32B")) is None  # a model named: a sizing
