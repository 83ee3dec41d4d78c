"""Concept and strategy answers as a user meets them: a multi-part question gets every part answered under one
opening line, and a question resting on a capability the named card lacks opens with that trap. Both languages,
worded for this file."""

from __future__ import annotations

import pytest

from advisor.contract import ChatTurn
from advisor.offline.tasks.dialogue.render import verdict_of
from knowledge.concepts import load_concepts


def first_paragraph(response) -> str:
    return response.summary.strip().split("\n\n")[0]


@pytest.mark.parametrize(
    ("message", "opening", "parts"),
    [
        ("Would the 910B cope with our serving load, how long would a port take, and can we fine-tune there too?", "In short:", 3),
        ("是否该把线上推理换成昇腾？移植大概要多少人力？训练能不能也放上去？", "简要回答：", 3),
        ("Gaudi 3 versus H100 for our next cluster: tooling, cost and lead time?", "In short:", 3),
    ],
)
def test_every_part_of_a_multi_part_question_is_answered_under_one_opening_line(offline_advisor, message, opening, parts):
    response = offline_advisor.answer(message, [])
    assert response.summary.startswith(opening), response.summary[:300]
    for index in range(1, parts + 1):
        assert f"**{index}.**" in response.summary
    assert first_paragraph(response).count("(") + first_paragraph(response).count("（") >= parts  # a verdict per part


@pytest.mark.parametrize(
    ("message", "trap"),
    [
        ("Plan: four GeForce 4090s joined over NVLink for tensor-parallel fine-tuning of a 30B. Sensible?", "NVLink"),
        ("准备买四张4090，用NVLink桥连起来做张量并行，靠谱吗？", "NVLink"),
        ("We'd like to carve a 4090 into MIG slices for our interns, how?", "MIG"),
        ("想把L40S切成几个MIG实例给不同团队用", "MIG"),
        ("How much does FP8 training speed up our A100 runs?", "FP8"),
        ("V100集群上用BF16训练能快多少？", "BF16"),
    ],
)
def test_a_premise_the_named_card_breaks_is_the_first_sentence(offline_advisor, message, trap):
    response = offline_advisor.answer(message, [])
    opening = verdict_of(response.summary)  # past a card's title: its first sentence, or the premise line before it
    assert trap in opening, response.summary[:400]
    assert any(word in opening for word in ("no ", "没有", "不支持", "不能")), opening


@pytest.mark.parametrize(
    "message",
    ["Does the H100 SXM support MIG, and how many instances?", "H100能切几个MIG实例？"],
)
def test_a_card_that_has_the_capability_gets_the_figure_not_a_trap(offline_advisor, message):
    response = offline_advisor.answer(message, [])
    opening = first_paragraph(response)
    assert "7" in opening and "premise" not in opening and "前提" not in opening, opening


@pytest.mark.parametrize(
    ("message", "unit"),
    [("What's the dense INT8 rate of an L40S?", "TOPS"), ("A100的INT8算力有多少？", "TOPS")],
)
def test_an_int8_question_gets_the_dense_figure_first(offline_advisor, message, unit):
    opening = first_paragraph(offline_advisor.answer(message, []))
    assert unit in opening and any(figure in opening for figure in ("733", "624")), opening


@pytest.mark.parametrize(
    ("message", "title_word"),
    [
        ("How often should we write checkpoints if a node dies every few hours?", "checkpoint"),
        ("Porting our own CUDA kernels to MI300X: how much work?", "ROCm"),
        ("我们的推理想从英伟达迁到910B，工程量怎么估？", "昇腾"),
    ],
)
def test_new_card_families_answer_questions_worded_apart_from_their_cards(offline_advisor, message, title_word):
    response = offline_advisor.answer(message, [])
    # cards answer verdict first (no title line since cards11): the word is in the answer read first, or in the title
    # of the card that answer is (found by its answer text)
    language, opening = response.language, response.summary[:600]
    shown = [card.title.pick(language) for card in load_concepts().cards if card.answer.pick(language)[:60] in opening]
    assert any(title_word.lower() in text.lower() for text in [opening, *shown]), opening
    assert response.sources, "a card answer cites its dated sources"


def test_a_follow_up_after_a_split_answer_continues_the_thread(offline_advisor):
    first = "Is the 910B ready for serving, and what would moving cost us?"
    history = [ChatTurn(role="user", content=first), ChatTurn(role="assistant", content=offline_advisor.answer(first, []).answer)]
    response = offline_advisor.answer("and for training?", history)
    assert "910" in response.summary[:600] or "Ascend" in response.summary[:600], response.summary[:600]
