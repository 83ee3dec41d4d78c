"""Sizing answers that give the verdict asked: every fine-tuning method a question compares, each turned into a
card count (ZeRO-3/FSDP for a full fine-tune); a training run that cannot fit its cards says so before any time;
'quantised' serving means INT4 weights; an OOM with a stated setup names its largest term. Wording of our own."""

from __future__ import annotations

import re

import pytest

CARDS = re.compile(r"(\d+) (cards|张卡)")


def _summary(advisor, question: str) -> str:
    return advisor.answer(question, []).summary


@pytest.mark.parametrize(
    "question, methods",
    [
        ("Qwen2.5 72B: what does a full fine-tune cost in GPU memory compared with LoRA and with QLoRA?", ("full fine-tuning", "LoRA", "QLoRA")),
        ("给 Qwen2.5-72B 做全参微调和 QLoRA，各自要多少显存、几张卡？", ("全参微调", "QLoRA")),
    ],
)
def test_every_method_asked_is_sized_with_a_card_count(offline_advisor, question, methods):
    response = offline_advisor.answer(question, [])
    lead = response.summary.split("\n")[0]
    positions = [lead.find(m) for m in methods]
    assert all(p >= 0 for p in positions), lead  # each method in the first paragraph
    counts = [int(m.group(1)) for m in CARDS.finditer(lead)]
    assert counts and max(counts) >= 16  # the full fine-tune spread over many 80 GB cards, not one impossible GPU
    assert "ZeRO-3/FSDP" in lead
    assert sum(c.name == "estimate_memory" for c in response.tool_calls) == len(methods)


def test_the_methods_that_fit_the_stated_cards_are_named(offline_advisor):
    summary = _summary(offline_advisor, "With eight A100 80GB GPUs in house, can we do a full fine-tune of Llama 3 70B, or only QLoRA?")
    line = next(l for l in summary.split("\n\n") if l.startswith("On your 8×"))
    assert "QLoRA" in line and "full fine-tuning" not in line
