"""#35/#36 leftovers: a changed length is shown as the tokens read, with its unit; a rent-or-buy follow-up that changes only
the count gives its verdict first; a full fine-tune kept off the cards by one micro-batch's activations is sized at
micro-batch 1 with gradient accumulation before cards are added; two cards served alike get one format line. Own wording."""

from __future__ import annotations

import pytest

from tests.threads import calls, first_line, lead, thread
from tools.memory.estimator import estimate_memory
from tools.memory.schema import MemoryRequest


# ---- 1. a changed length: the value read and its unit, not the words it was said in ----
@pytest.mark.parametrize(
    ("messages", "shown", "echoed"),
    [
        (["Qwen2.5-14B serving at 4k context: how much VRAM?", "and at a 16k context?"], "16,384 tokens instead of 4,096 tokens", "16k context"),
        (["Qwen2.5-14B 推理，4k 上下文要多少显存？", "换成16k上下文呢？"], "16,384 token（原为 4,096 token）", "16k上下文"),
    ],
)
def test_a_changed_length_is_shown_as_the_tokens_read(offline_advisor, messages, shown, echoed):
    _, follow = thread(offline_advisor, *messages)
    line = first_line(follow)
    assert shown in line and echoed not in line, line


# ---- 2. rent or buy again for another count: the verdict for that count first, then what changed ----
@pytest.mark.parametrize(
    ("messages", "changed"),
    [
        (["Over four years at 60% utilisation, rent or buy 8 H100?", "what if we took 24 of them?"], "24 instead of 8"),
        (["8张H100用四年，利用率60%，租还是买？", "要是24张呢？"], "24（原为 8）"),
    ],
)
def test_a_count_only_rent_or_buy_follow_up_leads_with_its_verdict(offline_advisor, messages, changed):
    _, follow = thread(offline_advisor, *messages)
    verdict = lead(follow)
    assert verdict.startswith("**") and "\n" not in verdict and changed not in verdict, verdict
    assert changed in follow.summary.split("\n\n")[1]  # what changed, right under the verdict
    args = calls(follow, "compute_tco")[0].args
    assert args["servers"] * args["gpus_per_server"] == 24


# ---- 3. one micro-batch's activations: micro-batch 1 with accumulation before more cards ----
def test_the_fit_plan_drops_the_micro_batch_before_adding_cards():
    from knowledge.catalog import load_catalog

    catalog = load_catalog()
    asked = MemoryRequest(model="llama-3.1-8b", mode="training", method="full", batch=16, context=8192, gpu="h100-sxm")
    same = estimate_memory(asked, catalog).fit_plan.same_card
    assert (same.micro_batch, same.grad_accumulation) == (1, 16)
    assert same.count is not None and same.count <= 8  # one server, not "no count up to 512"
    already_one = estimate_memory(asked.model_copy(update={"batch": 1}), catalog).fit_plan.same_card
    assert already_one.micro_batch is None and already_one.count == same.count


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What GPU memory does a full fine-tune of Llama 3.1 8B take on one H100 with micro-batch 12 and 8k sequences?", "at micro-batch 1 with gradient accumulation × 12"),
        ("一张H100全参微调Llama 3.1 8B，micro-batch 12，序列8k，显存要多少？", "micro-batch 降到 1、梯度累积 12 步"),
    ],
)
def test_the_memory_answer_says_the_micro_batch_of_its_count(offline_advisor, question, said):
    (answer,) = thread(offline_advisor, question)
    assert said in answer.summary and "512" not in answer.summary, answer.summary


# ---- 4. two cards served in the same format: one line naming both ----
@pytest.mark.parametrize(
    ("question", "both"),
    [
        ("For 30 staff using Llama 3.1 70B, H200 or H100?", ("NVIDIA H100 SXM and NVIDIA H200 SXM", "NVIDIA H200 SXM and NVIDIA H100 SXM")),
        ("30个员工用Llama 3.1 70B，选H200还是H100？", ("NVIDIA H100 SXM 和 NVIDIA H200 SXM", "NVIDIA H200 SXM 和 NVIDIA H100 SXM")),
    ],
)
def test_cards_served_alike_get_one_format_line(offline_advisor, question, both):
    (answer,) = thread(offline_advisor, question)
    lines = [line for line in answer.answer.split("\n") if "FP8" in line and ("Sized in" in line or "按 FP8" in line)]
    assert len(lines) == 1 and any(names in lines[0] for names in both), lines
