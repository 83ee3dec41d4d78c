"""Each concept-card family answers a question of our own wording, in English and in Chinese, through the
real offline answer path: the card first, its verdict in the first sentence, its dated sources cited, and
the tool that can refine it offered. (Questions written for this test; not from the cards or the held-out set.)"""

from __future__ import annotations

import re

import pytest

from advisor.offline.tasks.concept.knowledge import CALCULATOR_TASK, OFFERS
from knowledge.concepts import load_concepts

# family, card, (English question, verdict), (Chinese question, verdict)
FAMILY_QUESTIONS = [
    ("interconnects", "rtx-6000-ada-nvlink",
     ("Would an NVLink bridge help our four RTX 6000 Ada workstation cards?", "No"), ("给四张RTX 6000 Ada配NVLink桥有意义吗？", "没有")),
    ("precision", "fp8-training-real-speedup",
     ("Realistically, how much faster is FP8 training than BF16 on H100s?", "1.3–1.5×"), ("H100上FP8训练比BF16实际快几倍？", "1.3–1.5 倍")),
    ("china", "ascend-vllm-ascend",
     ("Is there a vLLM build for Huawei Ascend NPUs, and does it support prefix caching?", "Yes"), ("昇腾910B可以用vLLM做推理服务吗？", "能")),
    # (a rack-fit question with numbers is worked out by the facility planner, tests/test_facility.py)
    ("datacentre", "pue-typical-values",
     ("What PUE do data centres actually reach these days?", "About 1.56"), ("行业平均PUE现在是多少，这些年有改善吗？", "平均约 1.56")),
    ("market", "wait-for-next-generation",
     ("Should we hold off on buying GPUs until the next generation ships?", "Do not wait"), ("下一代卡马上要发布了，我们现在买还是等下一代？", "别等")),
    ("amd-intel", "amd-or-nvidia-decision",
     ("Should we pick AMD or NVIDIA for our inference cluster?", "Choose AMD"), ("什么情况下该选AMD而不是英伟达？", "选 AMD")),
    ("training", "grad-accumulation-loss-bug",
     ("Does gradient accumulation give the same loss as a genuinely larger batch?", "Only if"), ("梯度累积能完全替代大batch吗？", "只有")),
    ("serving", "prefix-caching",
     ("Is prefix caching worth enabling when every request starts with the same system prompt?", "Yes"), ("系统提示都一样的话，前缀缓存值得开吗？", "该开")),
]  # fmt: skip
CASES = [(family, card, language, *asked) for family, card, en, zh in FAMILY_QUESTIONS for language, asked in (("en", en), ("zh", zh))]
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")  # "1.5" is not a sentence end


def test_every_family_has_a_question_here():
    assert {family for family, *_ in FAMILY_QUESTIONS} == {c.family for c in load_concepts().cards if c.family}


@pytest.mark.parametrize(("family", "card_id", "language", "question", "verdict"), CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_a_family_question_gets_its_card_with_the_verdict_first(offline_advisor, family, card_id, language, question, verdict):
    card = load_concepts().card(card_id)
    response = offline_advisor.answer(question, [])
    assert response.language == language and [call.name for call in response.tool_calls] == ["search_knowledge"]
    body = response.answer  # verdict first: the card's answer is the first line, no title above it
    assert not body.startswith("**" + card.title.pick(language))
    first_sentence = SENTENCE_END.split(body, maxsplit=1)[0]
    assert verdict in first_sentence, first_sentence
    assert body.startswith(card.answer.pick(language)[:40])
    cited = [source.title for source in response.sources if source.doc_id.startswith(f"concept-{card_id}:")]
    assert cited == [source.cited for source in card.sources] and all(source.date in title for source, title in zip(card.sources, cited))
    assert "still stands" not in response.answer and "仍然有效" not in response.answer  # no calculation came before
    offer = OFFERS[CALCULATOR_TASK[card.calculator]]
    assert "🧮 " + offer[0 if language == "en" else 1] in response.answer  # the tool that refines the card is offered
