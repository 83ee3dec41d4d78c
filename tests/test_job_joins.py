"""Ask.job_joins: where a message joins one job to the next, read once in the NLU (advisor/nlu/asked.py) so the
recommendation's several-jobs reader (recommend_lines.workloads_of) no longer scans the message itself."""

from __future__ import annotations

import pytest

from advisor.nlu.ask import Ask
from advisor.nlu.asked import job_joins
from advisor.nlu.reader import shared_understanding
from knowledge.catalog import load_catalog


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("serve a 70B and LoRA a 30B", ["and"]),
        ("70B quantised inference plus a LoRA of a 30B", ["plus"]),
        ("Llama 70B inference, Qwen 7B fine-tuning", [","]),
        ("sandbox android brand", []),  # "and" inside a word joins nothing
        ("70B推理和30B微调", ["和"]),
        ("部署一个70B，同时微调一个7B", ["，", "同时"]),
        ("一个70B模型", []),
    ],
)
def test_joining_words_are_found_where_they_stand(message, words):
    lowered = message.casefold()
    assert sorted(job_joins(message)) == sorted(lowered.find(word) for word in words)


@pytest.mark.parametrize("message", ["serve a 70B and LoRA a 30B", "70B推理和30B微调"])
def test_the_ask_carries_them(message):
    assert Ask.read(shared_understanding().read(message, []), load_catalog()).job_joins == job_joins(message)
