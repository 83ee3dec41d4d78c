"""A follow-up that asks for one part of the previous answer (issue #36): after rent-or-buy, one running cost asked by
name gets that figure for the thread's setup and one line on how it moves the verdict; in a troubleshooting thread, a
step the follow-up says was already tried drops out and is named as tried, never the same answer again."""

import pytest

from tests.threads import thread


@pytest.mark.parametrize(("first", "follow", "lead", "verdict"), [
    ("Buy or rent 2 servers with 8 H100s each, 3 years, 70% busy?", "and what would the power bill be?",
     "**Electricity:", "Renting stays"),
    ("Rent or buy 4x A100 80GB for two years at about half utilisation?", "what about the colocation?",
     "**Colocation per month:", "Renting stays"),
    ("两台8卡H100服务器，三年，七成时间在跑，买还是租？", "那电费呢？", "**电费：每月", "计入这一项后租仍每月便宜"),
    ("四张A100 80G用两年，利用率一半，买划算还是租划算？", "运维人力呢？", "未计入", "租的优势更大"),
])  # fmt: skip
def test_one_running_cost_asked_after_rent_or_buy(offline_advisor, first, follow, lead, verdict):
    response = thread(offline_advisor, first, follow)[-1]
    opening = response.summary.split("\n\n")[0]
    assert lead in opening and verdict in opening, opening
    assert "0.00" not in opening, opening  # a cost not counted is said so, never a zero figure
    assert [c.name for c in response.tool_calls] == ["compute_tco"]


def test_a_cost_of_a_winning_purchase_says_how_far_it_may_rise(offline_advisor):
    response = thread(offline_advisor, "We run 8x H100 flat out for 5 years: buy or rent at $6.50 per GPU-hour?",
                      "and the electricity?")[-1]
    opening = response.summary.split("\n\n")[0]
    assert "**Electricity:" in opening and "before renting wins" in opening, opening


@pytest.mark.parametrize(("first", "follow", "tried"), [
    ("Fine-tuning a 7B model on a single RTX 4090 and I get CUDA out of memory",
     "I already set expandable_segments in PYTORCH_CUDA_ALLOC_CONF and it still runs out of memory", "Already tried"),
    ("Our training job on one A6000 hits OOM", "gradient checkpointing is already on and it still OOMs", "Already tried"),
    ("一张4090上微调7B模型，报 CUDA out of memory", "已经开了可扩展段（expandable_segments），还是显存不够", "已经试过"),
    ("用一张4090训练13B，显存爆了", "batch 已经调到 1 了，还是 OOM", "已经试过"),
])  # fmt: skip
def test_a_step_tried_in_a_follow_up_drops_out(offline_advisor, first, follow, tried):
    answers = thread(offline_advisor, first, follow)
    summary = answers[-1].summary
    assert tried in summary, summary
    assert summary != answers[0].summary
    assert "nothing in that follow-up" not in summary and "这条追问里没有" not in summary, summary
    if "expandable_segments" in follow:
        assert "expandable_segments:True" not in answers[-1].answer  # the step tried is not suggested again
