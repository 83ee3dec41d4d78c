"""A message asking several things is cut into its questions (data: advisor/nlu/data/question_parts.yaml), in
both languages; one question with its setup, or a choice between options, stays whole."""

from __future__ import annotations

import pytest

from advisor.nlu.question_parts import question_parts
from advisor.offline.tasks.dialogue.render import verdict_of


@pytest.mark.parametrize(
    ("message", "count"),
    [
        ("Would the 910B cope with our serving load, how long would a port take, and can we fine-tune there too?", 3),
        ("是否该把线上推理换成昇腾？移植大概要多少人力？训练能不能也放上去？", 3),
        ("Is renting H200s smarter than buying? What would eight of them cost per month?", 2),
        ("910B能不能跑Qwen3，另外迁过去要改多少代码？", 2),
    ],
)
def test_clauses_that_each_ask_are_separate_parts(message, count):
    parts = question_parts(message)
    assert len(parts) == count, parts
    assert all(part.rstrip("?？") in message for part in parts if "：" not in part and ": " not in part)


@pytest.mark.parametrize(
    ("message", "aspects", "head"),
    [
        ("Gaudi 3 versus H100 for our next cluster: tooling, cost and lead time?", ["tooling", "cost", "lead time"], "Gaudi 3 versus H100"),
        ("下一批集群用MI300X还是H200：生态、价格、交期分别如何？", ["生态", "价格", "交期"], "MI300X还是H200"),
    ],
)
def test_an_enumerated_list_after_a_subject_asks_each_aspect_with_the_subject(message, aspects, head):
    parts = question_parts(message)
    assert len(parts) == len(aspects)
    for part, aspect in zip(parts, aspects, strict=True):
        assert aspect in part and head in part


@pytest.mark.parametrize(
    "message",
    [
        "If we go with L40S boxes, how many would a 70B chatbot need?",  # a condition, then the question
        "假如买L40S，跑70B需要几台？",
        "Which engine for Qwen3 on our H100s: vLLM or SGLang?",  # a choice is one question
        "We own six A100s. How quickly would Llama 3.1 8B answer?",  # a setup, then the question
        "显存够吗？？",  # one question, asked twice over
        "现在机房的PUE一般多少，近几年降了吗？",  # one subject asked in two clauses: one answer
        "Does the H100, the A100 or the L40S support FP8?",  # one question of three cards
    ],
)
def test_one_question_stays_whole(message):
    assert question_parts(message) == []


def test_more_parts_than_the_table_allows_is_a_list_not_parts():
    assert question_parts("Price? Power? Cooling? Noise? Weight?") == []


def test_a_parts_verdict_is_its_first_sentence_past_a_title():
    body = "**Does the L4 have NVLink?**\n\nNo: it is a PCIe card. More text follows here.\n\n🧮 offer"
    assert verdict_of(body) == "No: it is a PCIe card."
    assert verdict_of("**简答**\n\n不能：910B 没有 FP8。后面是细节。") == "不能：910B 没有 FP8。"
    assert verdict_of("| a | b |\n|---|---|") == ""
