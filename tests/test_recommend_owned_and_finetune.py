"""Recommendations that respect what the buyer said: cards already owned are planned around (never sold back to
them), and a bare "fine-tune" with a budget is sized for full fine-tuning as well as LoRA. Both languages, own wording."""

from __future__ import annotations

import pytest

from tests.threads import ask, calls


@pytest.mark.parametrize(
    ("message", "opening"),
    [
        ("We already have 16 A800 GPUs and want to serve Qwen2.5-72B to roughly 150 staff. What else do we need?", "**Use the cards you have"),
        ("我们已经有16张A800，要给150名员工部署Qwen2.5-72B，还缺什么？", "**用现有的卡即可"),
    ],
)
def test_owned_cards_that_hold_the_job_are_used_not_sold(offline_advisor, message, opening):
    response = ask(offline_advisor, message)
    assert response.summary.startswith(opening)
    (call,) = calls(response, "recommend_gpus")
    assert call.args["max_gpus"] == 16
    assert "Recommended**:" not in response.summary and "推荐**：" not in response.summary  # no purchase tier for what they own


@pytest.mark.parametrize(
    ("message", "full_words"),
    [
        ("We'd like to fine-tune Qwen2.5-14B on our own data; total hardware budget $60,000. Which hardware?", "Full fine-tuning"),
        ("打算用自己的数据微调Qwen2.5-14B，硬件总预算40万元，买什么？", "全参微调"),
    ],
)
def test_a_bare_fine_tune_with_a_budget_sizes_full_fine_tuning_too(offline_advisor, message, full_words):
    response = ask(offline_advisor, message)
    tasks = [call.args["task"] for call in calls(response, "recommend_gpus")]
    assert tasks[0] == "lora" and "full_finetune" in tasks
    assert full_words in response.summary
    assert "ZeRO-3" in response.summary


@pytest.mark.parametrize(
    "message",
    ["LoRA-tune Qwen2.5-14B with a $60,000 budget: what should we buy?", "预算40万元，用LoRA微调Qwen2.5-14B，买什么卡？"],
)
def test_a_named_method_is_sized_as_named(offline_advisor, message):
    response = ask(offline_advisor, message)
    assert [call.args["task"] for call in calls(response, "recommend_gpus")] == ["lora"]


@pytest.mark.parametrize(
    "message",
    [
        "Fifteen of us in Shenzhen run RAG over company docs with a 14B model plus bge embeddings and a reranker. Which server should we buy?",
        "国内十几个人的团队做内部知识库问答，用14B模型，加上bge向量模型和重排模型，该买什么服务器？",
    ],
)
def test_an_embedding_model_beside_a_sized_llm_does_not_stop_the_recommendation(offline_advisor, message):
    response = ask(offline_advisor, message)
    (call,) = calls(response, "recommend_gpus")
    assert call.args["model"] == "14B" and call.args["region"] == "cn"
    assert "bge" in response.answer  # the other model is named as left for the same card, not refused
    assert "not a language model. The memory" not in response.answer and "不是大语言模型。这里" not in response.answer
