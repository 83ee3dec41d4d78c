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


@pytest.mark.parametrize(
    "question, no_fit, days",
    [
        ("We plan to pre-train a 70B model on a trillion tokens using eight RTX 4090s. How many days will that take?", "Does not fit", "days"),
        ("拿 8 块 4090 从头预训练 70B 模型，跑 1 万亿 token 需要几天？", "放不下", "天"),
    ],
)
def test_a_training_run_that_cannot_fit_leads_with_the_memory_verdict(offline_advisor, question, no_fit, days):
    summary = _summary(offline_advisor, question)
    first = summary.split("\n\n")[0]
    assert no_fit in first and "GB" in first  # the memory per GPU against the card, before any time
    assert re.search(r"\*\*(\d+)(×| 张)", first)  # the card count that would hold it
    assert summary.index(no_fit) < summary.index(days)


def test_a_run_that_fits_still_leads_with_its_time(offline_advisor):
    summary = _summary(offline_advisor, "How long does a LoRA fine-tune of Llama 3 8B on 50M tokens take on one H100?")
    assert "Does not fit" not in summary and summary.startswith("**≈")


@pytest.mark.parametrize(
    "question, four_bit",
    [
        ("Could a quantized Llama 3.1 70B be served from a pair of 24 GB GPUs?", "4-bit"),
        ("Llama 3.1 70B 做量化之后，用两块 24G 显卡能部署起来吗？", "4 位"),
    ],
)
def test_quantised_serving_is_sized_with_four_bit_weights(offline_advisor, question, four_bit):
    response = offline_advisor.answer(question, [])
    sized = [c for c in response.tool_calls if c.name == "estimate_memory"]
    assert sized and sized[0].args.get("precision") == "awq-int4"
    assert sized[0].args.get("mode") == "inference"  # serving a quantised model, not QLoRA training
    assert four_bit in response.answer  # the format chosen is said


def test_an_oom_with_its_setup_names_the_largest_parts(offline_advisor):
    response = offline_advisor.answer("My Llama 3 8B full fine-tune with 8k sequence length and micro-batch 4 OOMs on an 80GB A100. Why?", [])
    why = next(p for p in response.summary.split("\n\n") if p.startswith("**Why it runs out of memory"))  # the cause above the fold
    assert "Optimizer states" in why and "Logits" in why  # Adam states and the long-sequence × large-vocab logits
    assert re.search(r"≈ \d+(\.\d+)? GB", why)
    # the 12-line fold may put the fixes below it; in the whole answer the cause still comes before them
    assert response.answer.index("Why it runs out") < response.answer.index("routes that fit")


@pytest.mark.parametrize(("question", "stated", "row"), [
    ("I have an M4 Max laptop with 48GB, what is the largest model it can run?", "48 GB", "128 GB in all"),
    ("我的M4 Max笔记本是48GB内存的，最大能跑多大的模型？", "48 GB", "128 GB"),
])  # fmt: skip
def test_a_stated_memory_size_wins_over_the_catalog_row_of_the_chip(offline_advisor, question, stated, row):
    first = _summary(offline_advisor, question).strip().split("\n")[0]
    assert stated in first and row not in first, first


@pytest.mark.parametrize(("question", "total", "per_gpu"), [
    ("How big is the KV cache of Llama 3.1 70B for 8 users at 16k context on 2 H100s?", "KV cache: 42.95 GB", "21.47 GB on each of the 2 GPUs"),
    ("Llama 3.1 70B 在两张H100上，8个用户16k上下文，KV cache要多大？", "KV 缓存：42.95 GB", "每卡 21.47 GB"),
])  # fmt: skip
def test_a_kv_cache_split_over_cards_leads_with_the_whole_cache_and_each_cards_share(offline_advisor, question, total, per_gpu):
    first = _summary(offline_advisor, question).strip().split("\n")[0]
    assert total in first and per_gpu in first, first
