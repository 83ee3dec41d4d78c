"""Follow-ups on any answer (#36 item 4): a follow-up naming another card, model or count re-targets the last question to it;
a message of several questions leaves the thread its parts left; the electricity after a run's time is that run's; "is it
fragmentation?" after an OOM is decided by the message's own figures; a shortfall of cards re-runs the run's time; a KV-cache
question with no model asks for it; the rent-or-buy verdict is one sentence before its reasons. Our own wording, en and zh."""

from __future__ import annotations

import pytest

from tests.threads import calls, first_line, lead, thread

NOTHING_NEW = ("could not find anything in that follow-up", "没有找到")


# ---- 1. another card, model or count after any answer: the last question asked of the new value ----
@pytest.mark.parametrize(
    ("messages", "new", "old"),
    [
        (["rent or buy 8 H100 over 3 years?", "what about with A100s?"], "A100", "instead of"),
        (["8张H100用3年，租还是买？", "换成A100呢？"], "A100", "原为"),
        (["What are the specs of the L20?", "and the H20?"], "H20", "instead of"),
        (["two H100s serving Llama 3.1 70B to 80 concurrent users: what speed per user?", "and on L40S?"], "L40S", "instead of"),
        (["how long would 8 A100s take to fine-tune Llama 3.1 8B on 2B tokens?", "what about on H100s?"], "H100", "instead of"),
        (["How fast is Qwen2.5-32B on two L40S for 16 users?", "and for Llama 3.1 8B?"], "Llama 3.1 8B", "instead of Qwen2.5-32B"),
        (["两张L40S跑Qwen2.5-32B，16个并发每人多少token/s？", "换成Llama 3.1 8B呢？"], "Llama 3.1 8B", "原为 Qwen2.5-32B"),
    ],
)
def test_another_value_retargets_the_last_question(offline_advisor, messages, new, old):
    _, follow = thread(offline_advisor, *messages)
    line = first_line(follow)
    assert new in line and old in line, line
    assert not any(words in follow.summary for words in NOTHING_NEW)


@pytest.mark.parametrize(
    ("messages", "new"),
    [(["What is NVLink?", "and for the H100?"], "H100"), (["什么是NVLink？", "那H100呢？"], "H100")],
)
def test_another_card_after_a_concept_answer_is_answered_for_that_card(offline_advisor, messages, new):
    _, follow = thread(offline_advisor, *messages)
    assert new in first_line(follow)
    assert not any(words in follow.summary for words in NOTHING_NEW)


# ---- 2. a message of several questions: the thread after it is what its parts left ----
def test_a_follow_up_after_a_split_answer_keeps_the_first_parts_card(offline_advisor):
    _, follow = thread(offline_advisor, "Is the 910B ready for serving, and what would moving cost us?", "and for training?")
    assert not calls(follow, "compute_tco")  # the first answer priced no move: nothing to re-run
    assert "910B" in lead(follow)


# ---- 3. the electricity after a run's time: that run's energy at the tariff ----
@pytest.mark.parametrize(
    ("messages", "opening"),
    [
        (["how long would 8 A100s take to fine-tune Llama 3.1 8B on 2B tokens?", "what would the electricity cost be?"], "**Electricity for this run ≈"),
        (["how long to pretrain a 3B model on 500B tokens with 32 H100?", "how much would the power cost for that?"], "**Electricity for this run ≈"),
        (["8张A100微调Llama 3.1 8B，2B token要多久？", "那电费要多少？"], "**这次训练的电费约"),
    ],
)
def test_the_electricity_after_a_run_is_that_runs(offline_advisor, messages, opening):
    _, bill = thread(offline_advisor, *messages)
    assert first_line(bill).startswith(opening), first_line(bill)
    assert not calls(bill, "plan_facility")  # not a server's yearly bill


# ---- 4. "is it fragmentation?" after an OOM: yes or no from the message's figures, then why ----
OOM_FRAGMENTED = ("Fine-tuning a 7B model on a 24GB card: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has "
                  "a total capacity of 23.65 GiB of which 1.10 GiB is free. Of the allocated memory 17.20 GiB is allocated by PyTorch, and "
                  "4.90 GiB is reserved by PyTorch but unallocated.")
OOM_FULL = ("24G的卡微调7B报错：torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 0 has a total capacity of "
            "23.65 GiB of which 1.10 GiB is free. Of the allocated memory 21.80 GiB is allocated by PyTorch, and 0.30 GiB is reserved by "
            "PyTorch but unallocated.")


@pytest.mark.parametrize(
    ("messages", "verdict", "figures"),
    [
        ([OOM_FRAGMENTED, "is it fragmentation?"], "**Yes", ("4.90 GiB", "2.00 GiB")),
        ([OOM_FULL, "是不是碎片化？"], "**不是碎片化", ("0.30 GiB", "3.00 GiB")),
    ],
)
def test_fragmentation_is_decided_by_the_oom_figures(offline_advisor, messages, verdict, figures):
    _, answer = thread(offline_advisor, *messages)
    line = first_line(answer)
    assert line.startswith(verdict), line
    assert all(figure in line for figure in figures)
    assert "−" in line  # reserved − allocated, against the allocation that failed


# ---- 5. a shortfall of cards after a run's time: the run re-timed on the cards there are ----
@pytest.mark.parametrize(
    ("messages", "rerun"),
    [
        (["how long would 8 A100s take to fine-tune Llama 3.1 8B on 2B tokens?", "we only have 4 of them"], "instead of 8"),
        (["8张A100微调Llama 3.1 8B，2B token要多久？", "我们只有4张"], "原为 8"),
    ],
)
def test_a_shortfall_of_cards_retimes_the_run(offline_advisor, messages, rerun):
    _, follow = thread(offline_advisor, *messages)
    assert rerun in first_line(follow)
    assert 4 in [call.args.get("num_gpus") for call in calls(follow, "estimate_training_time")]


# ---- 6. a KV-cache question: the thread's model, else the one question that sizes it ----
@pytest.mark.parametrize(
    ("message", "asks"),
    [("how much KV cache do I need for 32k context?", "Which model is it"), ("KV缓存要多大？", "上下文多长")],
)
def test_a_kv_cache_question_without_a_model_asks_for_it(offline_advisor, message, asks):
    (answer,) = thread(offline_advisor, message)
    assert asks in answer.summary
    assert not calls(answer, "search_knowledge")  # no neighbouring card in its place


def test_a_kv_cache_question_uses_the_threads_model(offline_advisor):
    _, answer = thread(offline_advisor, "serving Qwen2.5-32B on 2 L40S", "how much KV cache at 32k context?")
    assert first_line(answer).startswith("**KV cache:")
    assert calls(answer, "estimate_memory") and "Qwen2.5-32B" in answer.summary


# ---- 7. rent or buy: the verdict one sentence, its reasons below ----
@pytest.mark.parametrize("message", ["16张A100用三年，利用率50%，租还是买？", "Rent or buy 16 A100 for three years at 50% utilisation?"])
def test_the_rent_or_buy_verdict_is_one_sentence_then_its_reasons(offline_advisor, message):
    (answer,) = thread(offline_advisor, message)
    verdict = lead(answer)
    assert verdict.startswith("**") and "\n" not in verdict
    assert verdict.rstrip("*").count("。") + verdict.rstrip("*").count(". ") <= 1, verdict
    assert "回本" in answer.summary or "Payback" in answer.summary  # the reasons follow


# ---- a card's model number is no figure of the report: "our A100 nodes" states no 100 nodes ----
def test_a_cards_model_number_is_no_count_of_nodes():
    from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
    from tools.troubleshoot.rulebook import load_rulebook

    for text in ("Xid 79 on one of our A100 nodes, GPU fell off the bus", "NCCL timeout across our H800 servers"):
        assert diagnose(TroubleshootRequest(text=text), load_rulebook()).stated.get("nodes") not in (100.0, 800.0)
