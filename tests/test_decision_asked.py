"""Issue #35, class 2: a decision asked gets the decision, not a calculation. Whether a precision can be trusted for a use
leads with the verdict for that use and card (Ask.decision), with its sourced evidence and the calculation after it;
"buy now or wait?" is answered by the card on waiting however retrieval ranks it; a training time says the data it is for,
and a data set said in samples is a count of samples. Our own wording, in both languages."""

from __future__ import annotations

import pytest

from advisor.nlu.reader import shared_understanding
from advisor.nlu.ask import Ask
from knowledge.catalog import load_catalog
from tests.threads import ask, calls, first_line


def read_ask(message: str) -> Ask:
    return Ask.read(shared_understanding().read(message, []), load_catalog())


@pytest.mark.parametrize(
    ("message", "lead"),
    [
        ("We want to fine-tune a 34B model in FP8 on our H100 cluster. Is that safe?", "**Yes, with care**"),
        ("Would serving Mixtral in FP8 on V100s be reliable?", "**No**"),
        ("Is 4-bit AWQ going to hurt quality for a 3B model in production?", "**Risky for a model this small**"),
        ("我们打算用 FP8 部署 Llama 3.1 70B 到 H200 上，靠谱吗？", "**可以**"),
        ("RTX 3090 上用 FP8 微调 7B 模型安全吗？", "**不建议**"),
        ("用 QLoRA 在 4bit 底座上微调 70B，效果会不会掉很多？", "**QLoRA 可以，全参训练不行**"),
    ],
)
def test_a_precision_trusted_for_a_use_leads_with_the_verdict(offline_advisor, message, lead):
    response = ask(offline_advisor, message)
    assert first_line(response).startswith(lead), response.answer[:400]
    assert response.sources, "the verdict's evidence names its sources"


@pytest.mark.parametrize(
    "message",
    ["Is FP8 safe for full fine-tuning of Qwen2.5-14B on 8 H100s?", "用 8 张 H100 全参微调 Qwen2.5-14B，开 FP8 安全吗？"],
)
def test_the_calculation_follows_the_precision_verdict(offline_advisor, message):
    response = ask(offline_advisor, message)
    assert calls(response, "estimate_memory") or calls(response, "estimate_training_time")
    verdict_at = response.answer.find("**Yes, with care**" if message.isascii() else "**可以，但要谨慎**")
    assert 0 <= verdict_at < response.answer.find("GB"), "the verdict comes before the figures"


@pytest.mark.parametrize(("message", "said"), [("is FP8 safe for serving?", True), ("how much memory does FP8 serving of a 70B need?", False),
                                               ("FP8 推理会不会掉精度？", True), ("FP8 的 KV 缓存安全吗？", False)])
def test_the_decision_is_read_from_cue_words_and_a_precision(message, said):
    assert (read_ask(message).decision == "precision_safe") is said


@pytest.mark.parametrize("message", ["现在就买，还是等明年的新一代卡？", "Buy GPUs now or wait for the next generation?"])
def test_buy_now_or_wait_is_answered_by_the_card_on_waiting(offline_advisor, message):
    response = ask(offline_advisor, message)
    head = response.answer[:300]
    assert ("就别等" in head) if not message.isascii() else ("Do not wait" in head or "wait" in head.lower()), head
    assert "没有现成的答案" not in response.answer and "no worked answer" not in response.answer


@pytest.mark.parametrize(
    ("message", "data"),
    [
        ("How long would a LoRA fine-tune of Llama 3.1 8B on 30k samples take on 2 H100s?", "30,000 samples × 1,024 tokens each"),
        ("用 4 张 A100 微调 Qwen2.5-7B，3 万条样本，每条大约 800 token，要训多久？", "30,000 条样本 × 每条 800 token"),
    ],
)
def test_a_data_set_in_samples_is_a_sample_count_said_in_the_lead(offline_advisor, message, data):
    response = ask(offline_advisor, message)
    assert data in first_line(response), first_line(response)
    (timed,) = calls(response, "estimate_training_time")[:1]
    assert timed.args["tokens"] >= 2e7, "the samples are not read as a token total nor a context length"


@pytest.mark.parametrize(("message", "said"), [("How long does a full fine-tune of Qwen2.5-7B take on 8 A100s?", "100M training tokens (assumed"),
                                               ("用 8 张 A100 全参微调 Qwen2.5-7B，训练时间大概多长？", "按 100M token 计（未给出数据量")])
def test_the_lead_says_the_data_it_assumed(offline_advisor, message, said):
    assert said in first_line(ask(offline_advisor, message))
