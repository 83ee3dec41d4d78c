"""A precision nobody typed separately (a pasted checkpoint's, or the one a model ships in) is said right under the
verdict: the first line answers the question, the second says which edition was sized."""

from __future__ import annotations

import pytest

from advisor.offline.planner import message_words


def _lines(offline_advisor, question: str) -> list[str]:
    return [line for line in offline_advisor.answer(question, []).summary.splitlines() if line.strip()]


def _first_line(offline_advisor, question: str) -> str:
    """The line under the verdict, after checking the verdict (a figure in GB, or a speed) comes first."""
    verdict, second, *_ = _lines(offline_advisor, question)
    assert "GB" in verdict or "token" in verdict, verdict
    return second


@pytest.mark.parametrize(
    "question, language",
    [
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8 on a 3060 12GB?", "en"),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8能在3060 12GB上跑吗？", "zh"),
    ],
)
def test_pasted_checkpoint_names_model_and_precision_first(offline_advisor, question, language):
    first = _first_line(offline_advisor, question)
    assert "Qwen2.5-7B" in first and "GPTQ-INT8" in first
    assert ("edition" in first) if language == "en" else ("版本" in first)


@pytest.mark.parametrize(
    "question, says",
    [
        ("How much memory does DeepSeek-R1 need?", "it ships in"),
        ("DeepSeek-R1 需要多少显存？", "官方发布的 FP8"),
    ],
)
def test_shipped_precision_is_the_first_line(offline_advisor, question, says):
    first = _first_line(offline_advisor, question)
    assert "DeepSeek-R1" in first and "FP8" in first and says in first


def test_the_lead_is_not_repeated_among_the_notes(offline_advisor):
    response = offline_advisor.answer("How much memory does DeepSeek-R1 need?", [])
    lead = [line for line in response.summary.splitlines() if line.strip()][1]
    assert "ships in" in lead and response.answer.count(lead) == 1


def test_a_stated_precision_gets_no_lead(offline_advisor):
    first_two = " ".join(_lines(offline_advisor, "How much memory does Qwen2.5-7B need at FP8?")[:2])
    assert "edition" not in first_two and "ships in" not in first_two


def test_message_words_split_glued_chinese():
    assert message_words("能跑Qwen/Qwen2.5-7B-AWQ吗？还有llama3.1:70b.") == ["Qwen/Qwen2.5-7B-AWQ", "llama3.1:70b"]
