"""A follow-up that changes the thread's hardware or a value and, in the same message, asks how the figure moved
("…instead? how much sooner?") is one re-run of the thread's calculation: it leads with what changed and how the
answer moved, never with a card on the new part. Wording is our own; both languages."""

from __future__ import annotations

import pytest

from tests.threads import ask, calls

TRAINING_SWAP = [
    # (first question, follow-up, language, words the opening must hold)
    ("We plan to pretrain an 8B model on 500B tokens using 64 A100 GPUs. How many days?",
     "Suppose we ran it on 64 H100 instead, how much sooner would it finish?", "en", ["instead of", "faster than"]),
    ("打算用64张A100预训练一个8B模型，5000亿token，需要几天？",
     "要是改成64张H100呢？能快多少？", "zh", ["原为", "快约"]),
]


@pytest.mark.parametrize(("first", "follow_up", "language", "words"), TRAINING_SWAP, ids=["en", "zh"])
def test_a_gpu_swap_with_how_much_faster_reruns_the_training_estimate(offline_advisor, first, follow_up, language, words):
    reply = ask(offline_advisor, follow_up, first)
    assert reply.language == language
    assert "**1.**" not in reply.summary  # one question told in two sentences, not two answers
    runs = calls(reply, "estimate_training_time")
    assert runs, [c.name for c in reply.tool_calls]
    assert "h100" in runs[0].args["gpu"].lower() and runs[0].args["num_gpus"] == 64  # same job, same count, new card
    assert any("a100" in run.args["gpu"].lower() for run in runs[1:])  # the old setup ran beside it for the comparison
    opening = reply.summary.split("\n\n")[0]
    for word in words:
        assert word in opening, opening


TCO_CHANGE = [
    ("Should we rent or buy 16 H100 over 4 years if they are busy 70% of the time?",
     "And if they were busy only 35% of the time? Does that change the call?", "en", "35%", "→"),
    ("16张H100用4年，忙碌时间70%，租还是买？",
     "如果只有35%的时间在用呢？结论会变吗？", "zh", "35%", "原为"),  # "改为利用率 35%（原为 70%）": old and new in words
]


@pytest.mark.parametrize(("first", "follow_up", "language", "new", "arrow"), TCO_CHANGE, ids=["en", "zh"])
def test_a_changed_tco_value_with_what_it_means_is_one_rerun_that_says_old_and_new(offline_advisor, first, follow_up, language, new, arrow):
    reply = ask(offline_advisor, follow_up, first)
    assert reply.language == language
    assert "**1.**" not in reply.summary
    runs = calls(reply, "compute_tco")
    assert runs and runs[0].args.get("utilisation_pct") == pytest.approx(35), [r.args for r in runs]
    opening = reply.summary.split("\n\n")[0]
    assert new in opening and "70%" in opening and arrow in opening, opening


TECHNIQUE = [
    # (first question, technique follow-up, language, words naming the thread's setup, a word of the technique's card)
    ("What speed do 4 H100 give for Llama 3 70B at 30 users?", "Is speculative decoding worth trying for this?", "en",
     ["Llama 3 70B", "4× NVIDIA H100"], "draft"),
    ("8张A100跑Mixtral 8x7B推理，总吞吐才300 token/s", "上专家并行能改善吗？", "zh", ["Mixtral 8x7B", "8 张 NVIDIA A100"], "专家"),
]


@pytest.mark.parametrize(("first", "follow_up", "language", "setup", "word"), TECHNIQUE, ids=["en", "zh"])
def test_a_technique_weighed_after_a_calculation_gets_its_card_for_the_thread_setup(offline_advisor, first, follow_up, language, setup, word):
    before = ask(offline_advisor, first)
    reply = ask(offline_advisor, follow_up, first)
    assert reply.language == language
    assert {c.name for c in reply.tool_calls} <= {"search_knowledge", "check_capability"}  # the first answer is not run again
    assert reply.summary.split("\n\n")[0] != before.summary.split("\n\n")[0]
    assert word in reply.summary.lower() or word in reply.summary
    for name in setup:
        assert name in reply.summary, reply.summary[-400:]


def test_a_technique_with_a_value_is_a_rerun_not_a_card(offline_advisor):
    reply = ask(offline_advisor, "并且张量并行改成2会怎样？", "4张H100跑Llama 3 70B，30个并发，速度多少？")
    assert calls(reply, "estimate_throughput")
    assert "📌" not in reply.summary.split("\n\n")[0]


SOFTWARE_PART = [
    ("Does the MI300X beat the H100 on 70B serving? And is ROCm still a hassle to work with?", "en", "ROCm"),
    ("昇腾910B跟A100比谁快？它的软件栈现在还难用吗？", "zh", "CANN"),
]


@pytest.mark.parametrize(("message", "language", "word"), SOFTWARE_PART, ids=["en", "zh"])
def test_a_software_judgement_after_a_two_card_question_gets_the_card_on_that_software(offline_advisor, message, language, word):
    reply = offline_advisor.answer(message, [])
    assert reply.language == language
    second = reply.answer.split("**2.**", 1)[1].split("**3.**", 1)[0]
    assert word in second, second[:400]
    assert "|" not in "\n\n".join(second.split("\n\n")[:4])  # a judgement, not a spec table
