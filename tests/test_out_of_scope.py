"""Out of scope, in English and Chinese: an unrelated request, or a GPU-adjacent one the advisor does not answer (mining
income, gaming frame rates, a gaming laptop), gets a short reply that says what the advisor does with example questions,
never a card matched by one of its words; in-scope questions that read close to them (ex-mining cards for AI work, a
rack's power) keep their answers. The floor is declared in nlu/pipeline.yaml (classify.out_of_scope_floor) and calibrated
on these examples. (Questions written for this test; not the training utterances, a held-out split or a review's.)"""

from __future__ import annotations

import pytest

from advisor.nlu.pipeline import PIPELINE
from tests.retrieval_support import served_cards

# A GPU named beside a frame rate, a mining payback or trivia is off topic by its use words (data/ask_cues.yaml off_topic_use,
# route off_topic_use), however the classifier reads it; the former known misses (cards12) are answered so now.

OUT_OF_SCOPE = [
    "Compose a short poem about the ocean at night",
    "book me a train ticket from Berlin to Munich",
    "what is the capital city of Chile",
    "is it still profitable to mine crypto with five RTX 3080s at home",
    "which laptop should I buy for gaming, around 1300 dollars",
    "how many frames per second does a 4080 get in Starfield",
    "给我写一首关于大海的诗",
    "帮我订一张明天去上海的机票",
    "秘鲁的首都是哪里",
    "用五张3080在家挖矿现在还能回本吗",
    "推荐一款六千元左右的游戏笔记本",
    "4080玩赛博朋克能跑多少帧",
]

IN_SCOPE = [
    ("Are second-hand cards from a mining farm OK for serving a 7B model?", "en"),
    ("How much power does a rack of four 8x H100 servers draw?", "en"),
    ("Should we wait for Rubin before buying?", "en"),
    ("挖矿退下来的3090能拿来做大模型推理吗", "zh"),
    ("一个机柜放四台8卡H100服务器要多少电", "zh"),
    ("国产卡能跑大模型吗", "zh"),
]


def test_the_floor_is_declared_and_between_the_calibration_readings():
    assert 0 < PIPELINE.classify.out_of_scope_floor < PIPELINE.classify.guard_confidence


@pytest.mark.parametrize("question", OUT_OF_SCOPE)
def test_an_out_of_scope_request_gets_what_the_advisor_does_not_a_card(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    assert not served_cards(response), response.answer[:300]
    assert not [call.name for call in response.tool_calls if call.name != "search_knowledge"]
    lead = response.summary.split("\n")[0]
    assert ("GPU" in lead) and (("advisor" in lead) if response.language == "en" else ("顾问" in lead)), lead
    assert response.answer.count("“") + response.answer.count("「") >= 2  # example questions to ask instead
    assert len(response.summary.splitlines()) <= 12


@pytest.mark.parametrize(("question", "language"), IN_SCOPE)
def test_in_scope_questions_near_them_keep_their_answers(offline_advisor, question, language):
    response = offline_advisor.answer(question, [])
    assert response.language == language
    lead = response.summary.split("\n")[0]
    assert "outside what I can help with" not in lead and "超出了我的范围" not in lead, lead
