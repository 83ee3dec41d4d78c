"""The model a sizing answer sizes is the one the question is about, and the job is what they want to do now: a
model, cards and a count named beside the question (an earlier setup, "instead of ...", "相比 ...") are left out and
said to be; a method word that describes the model ("微调过的模型") is not the job. Wording of our own."""

from __future__ import annotations

import pytest

from advisor.name_matcher import normalize_text
from advisor.nlu.aside import set_aside
from advisor.nlu.values import find_values
from knowledge.catalog import load_catalog

CATALOG = load_catalog()


def _split(message: str, intent: str = "memory") -> tuple[set, set]:
    text = normalize_text(message)
    values = find_values(text, CATALOG)
    aside = set_aside(text, values, intent)
    return ({(v.kind, v.value) for i, v in enumerate(values) if i in aside},
            {(v.kind, v.value) for i, v in enumerate(values) if i not in aside})  # fmt: skip


@pytest.mark.parametrize("message", [
    "Last year we had Mistral 7B on two L4s; these days we'd like Qwen2.5 14B on a single L40S, enough memory?",
    "去年我们在两张L4上跑Mistral 7B，现在想在一张L40S上跑Qwen2.5 14B，显存够不够？",
])  # fmt: skip
def test_an_earlier_setup_is_set_aside_with_its_cards_and_count(message):
    aside, kept = _split(message)
    assert {kind for kind, _ in aside} == {"model", "gpu", "count_gpu"}
    assert ("model", "qwen2.5-14b") in kept and ("gpu", "l40s") in kept


@pytest.mark.parametrize("message", [
    "Would Qwen2.5 14B fit on one L40S rather than Llama 3 70B on 4 A100s?",
    "想在一张L40S上跑Qwen2.5 14B，而不是在4张A100上跑Llama 3 70B，显存够吗？",
    "Is Qwen2.5 14B similar to Llama 3 70B in memory, and does it fit one L40S?",
    "Qwen2.5 14B的显存需求类似Llama 3 70B吗？一张L40S放得下吗？",
])  # fmt: skip
def test_a_model_named_for_comparison_is_set_aside(message):
    aside, kept = _split(message)
    assert ("model", "llama-3-70b") in aside
    assert ("model", "qwen2.5-14b") in kept


@pytest.mark.parametrize("message", [
    "We ran Llama 3 70B on A100s for a year; which card should we buy for it now?",
    "我们以前在A100上跑Llama 3 70B，现在该买什么卡？",
    "Compare Llama 3 70B and Qwen2.5 72B memory on two H100s",
])  # fmt: skip
def test_the_only_model_named_stays_the_subject(message):
    aside, _ = _split(message)
    assert not any(kind == "model" for kind, _ in aside)


@pytest.mark.parametrize(("message", "intent", "set_aside_method"), [
    ("把微调好的Qwen2.5 14B部署给30个同事用，一张L40S够吗？", "memory", True),
    ("Last week we trained a LoRA on Qwen2.5 14B; now we want to deploy it for 30 colleagues on one L40S", "memory", True),
    ("我们用LoRA训练了一个Qwen2.5 14B，现在想部署给100个人用，要几张L40S？", "memory", True),
    ("微调Qwen2.5 14B时一张L40S爆显存了", "troubleshoot", False),
])  # fmt: skip
def test_a_method_that_describes_the_model_is_not_the_job(message, intent, set_aside_method):
    aside, kept = _split(message, intent)
    assert any(kind == "method" for kind, _ in aside) is set_aside_method
    if set_aside_method:
        assert ("method", "inference") in kept


@pytest.mark.parametrize(("question", "sized", "left_out", "not_said"), [
    ("Last year we had Mistral 7B on two L4s; these days we'd like Qwen2.5 14B on a single L40S, enough memory?",
     "Qwen2.5-14B", "Mistral", "L4 "),
    ("去年我们在两张L4上跑Mistral 7B，现在想在一张L40S上跑Qwen2.5 14B，显存够不够？", "Qwen2.5-14B", "Mistral", "L4 "),
])  # fmt: skip
def test_the_answer_sizes_the_model_asked_about_and_says_which_was_left_out(offline_advisor, question, sized, left_out, not_said):
    response = offline_advisor.answer(question, [])
    first = response.summary.strip().split("\n")[0]
    assert sized in first and left_out not in first and not_said not in first, first
    assert left_out in response.details  # the note that it was not sized


@pytest.mark.parametrize(("question", "serving"), [
    ("把微调好的Qwen2.5 14B部署给30个同事用，一张L40S够吗？", "推理"),
    ("Last week we trained a LoRA on Qwen2.5 14B; now we want to deploy it for 30 colleagues on one L40S, does it fit?", "serving"),
])  # fmt: skip
def test_serving_a_fine_tuned_model_is_sized_as_serving(offline_advisor, question, serving):
    first = offline_advisor.answer(question, []).summary.strip().split("\n")[0]
    assert serving in first and "LoRA" not in first, first
