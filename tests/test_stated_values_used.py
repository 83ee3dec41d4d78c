"""Issue #35 item 5: a stated value is used by the answer, or named only when it would change it (with why)."""

from __future__ import annotations

from knowledge.catalog import load_catalog

CATALOG = load_catalog()


def call(response, name):
    return next(c for c in response.tool_calls if c.name == name)


def test_a_stated_card_memory_is_the_card_the_recommendation_is_for(offline_advisor):
    zh = offline_advisor.answer("我有一张24G显存的卡，想跑70亿参数的模型，选什么方案", [])
    gpus = call(zh, "recommend_gpus").args["gpus"]
    assert gpus and all(CATALOG.gpu(g).memory_gb == 24 for g in gpus)
    assert "您还提到了" not in zh.answer and "用不到" not in zh.answer
    en = offline_advisor.answer("My GPU has 24GB of memory, which setup should I pick to serve a 7B model?", [])
    assert all(CATALOG.gpu(g).memory_gb == 24 for g in call(en, "recommend_gpus").args["gpus"])
    assert "does not need it" not in en.answer


def test_a_first_concept_question_does_not_speak_of_a_calculation_before(offline_advisor):
    for question in ("What is tensor parallelism and when do I need it?", "张量并行是什么，什么时候需要用？"):
        answer = offline_advisor.answer(question, []).answer
        assert "still stands" not in answer and "仍然有效" not in answer
