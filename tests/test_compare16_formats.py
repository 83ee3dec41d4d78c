"""A two-card comparison sizes each side down the same precision ladder as a one-card answer (16-bit, then INT8/FP8,
then 4-bit) and its verdict names each side's format (#35). Own wording, en and zh."""

from __future__ import annotations

import pytest

from tests.threads import ask, calls


@pytest.mark.parametrize("question, each, lossy", [
    ("Serving Qwen2.5-32B for a dozen staff: one RTX 4090 or one A100 80GB, which one?", "Each is sized in the format it would be served in", "only in 4-bit AWQ weights"),
    ("给5个同事部署Qwen2.5-32B，用一张4090还是一张A100 80G？", "各方案按实际部署的格式计算", "只能用4 位 AWQ 权重"),
])  # fmt: skip
def test_each_side_is_sized_down_its_own_ladder_and_the_verdict_says_which(offline_advisor, question, each, lossy):
    response = ask(offline_advisor, question)
    pick = response.answer.split("\n\n")[0]
    assert each in pick and "AWQ" in pick and "BF16" in pick  # both sides' formats, in the verdict
    assert lossy in response.answer  # the 4-bit side's quality cost is its trade-off
    speeds = {call.args["gpu"]: call.args.get("precision") for call in calls(response, "estimate_throughput")}
    assert speeds == {"rtx-4090": "awq-int4", "a100-80gb-sxm": None}  # timed as sized, not both in BF16


def test_options_sized_alike_say_no_format_line(offline_advisor):
    response = ask(offline_advisor, "H100 or H200 to serve Llama 3.1 70B for 20 users?")
    assert "Each is sized in the format" not in response.answer


# ---- wording that agrees with its figures (#35) ----
def test_one_card_meets_a_target_in_the_singular(offline_advisor):
    response = ask(offline_advisor, "Will a single H100 give 6 concurrent users of Llama 3.1 8B a first token within 400 ms?")
    assert "1× NVIDIA H100 SXM meets" in response.answer and "1× NVIDIA H100 SXM meet " not in response.answer


@pytest.mark.parametrize("question, lever", [
    ("Full fine-tuning Llama 3.1 8B on one H100 OOMs at batch 16 with 8192-token sequences", "at micro-batch 1, gradient accumulation × 16"),
    ("Llama 3.1 8B 全参微调，一张H100，batch 8、序列长度4096，爆显存了怎么办？", "micro-batch 降到 1、梯度累积 8 步"),
])  # fmt: skip
def test_a_sharded_full_fine_tune_is_fitted_by_the_micro_batch_not_by_hundreds_of_cards(offline_advisor, question, lever):
    """ZeRO-3 shards model states, not activations: the micro-batch is the lever, never 'even ZeRO-3 across 512 cards'."""
    answer = ask(offline_advisor, question).answer
    assert lever in answer and "across 512" not in answer and "512 张" not in answer
