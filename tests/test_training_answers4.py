"""Training answers whose numbers agree and whose comparisons are stated (issue 35): one cost source between the
headline and the table, the ratio to the previous run in a follow-up, the speed ratio between two named cards with
a verdict on a quoted cut, and the defaults (goodput, sharding, memory variant, China status) said. Our own wording."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from tests.test_planner_policy import ask, calls
from tools.cost.mfu import DEFAULT_GOODPUT
from tools.cost.training_time import TrainingTimeRequest, estimate_training_time
from knowledge.bilingual import AdvisorError

MONEY = re.compile(r"[$¥][\d,.]+(?:–[$¥][\d,.]+)?")


def test_goodput_stretches_hours_and_days_by_its_inverse():
    catalog = load_catalog()
    base = dict(params_b=13, tokens=3e11, gpu="h100-sxm", num_gpus=32)
    pure = estimate_training_time(TrainingTimeRequest(**base), catalog)
    planned = estimate_training_time(TrainingTimeRequest(**base, goodput=DEFAULT_GOODPUT), catalog)
    assert planned.goodput == DEFAULT_GOODPUT and pure.goodput == 1.0
    assert planned.gpu_hours == pytest.approx(pure.gpu_hours / DEFAULT_GOODPUT)
    assert planned.wall_clock_days == pytest.approx(pure.wall_clock_days / DEFAULT_GOODPUT)
    assert "goodput 0.9" in next(i for i in planned.items if i.key == "gpu_hours").formula


def test_a_goodput_near_zero_is_refused_in_both_languages():
    with pytest.raises(AdvisorError) as err:
        estimate_training_time(TrainingTimeRequest(params_b=7, tokens=1e9, gpu="h100-sxm", num_gpus=8, goodput=0.01), load_catalog())
    assert err.value.code == "invalid_goodput" and err.value.message("zh") != err.value.message("en")


@pytest.mark.parametrize("question", [
    "we want to pretrain a 3b model from scratch on 400B tokens using 32 h100, duration and price?",
    "32张H100从头预训练3B模型，4000亿token，要多久、花多少钱？",
])
def test_the_headline_cost_is_a_row_of_the_table(offline_advisor, question):
    response = ask(offline_advisor, question)
    headline = response.answer.split("\n\n")[0]
    figures = MONEY.findall(headline)
    assert figures, headline
    rows = [line for line in response.answer.splitlines() if line.startswith("|")]
    assert any(figures[0] in row and figures[-1] in row for row in rows)  # the headline's band is a row below it
    assert not any("catalog:" in row for row in rows)  # no second, different single figure beside the tiers
    assert "on-demand list prices" not in headline and "按需标价最高" not in headline


@pytest.mark.parametrize(("first", "second", "word"), [
    ("train llama 3.1 8b on 200B tokens with 16 a100 80gb, how long?", "what if we used h100 instead?", "faster than 16× NVIDIA A100 80GB SXM"),
    ("16张H100训练llama 3.1 8b，2000亿token，多久？", "换成A100 80G呢？", "慢约"),
])
def test_a_follow_up_on_another_card_states_the_ratio_to_the_previous_run(offline_advisor, first, second, word):
    response = ask(offline_advisor, second, first)
    assert len(calls(response, "estimate_training_time")) >= 2  # the new run and the one it is compared with
    assert word in response.answer.split("\n\n")[0]


@pytest.mark.parametrize(("question", "verdict", "ratio"), [
    ("what speedup per card would we get training on b200 rather than h100? finance wants to halve the order, so half the cards", "holds on compute", "2.3× faster"),
    ("A100换成H100做训练，单卡快多少？领导想把卡减半", "在算力上成立", "3.2 倍"),
])
def test_two_cards_and_a_quoted_cut_get_the_ratio_and_a_verdict(offline_advisor, question, verdict, ratio):
    response = ask(offline_advisor, question)
    timed = calls(response, "estimate_training_time")
    assert len(timed) == 2
    assert ratio in response.summary and verdict in response.summary


def test_a_cut_the_ratio_cannot_carry_is_refused_with_the_count_needed(offline_advisor):
    response = ask(offline_advisor, "moving our training from h100 to h200, can we get by with a quarter of the cards? we run 64 h100 today")
    assert "does not hold" in response.summary and "64× NVIDIA H100 SXM take" in response.summary


def test_fp4_training_gets_a_caution_not_a_plan(offline_advisor):
    response = ask(offline_advisor, "用fp4在B200上训练，能比H100快多少？")
    assert "FP4 训练还不是成熟的做法" in response.answer


@pytest.mark.parametrize(("question", "said"), [
    ("full finetune qwen2.5 14b on 500M tokens with 8 a100, how long?", ["ZeRO-3/FSDP", "Goodput 90%", "80 GB variant", "arxiv.org/abs/2407.21783"]),
    ("8张A100全参微调qwen2.5 14b，5亿token，多久？", ["ZeRO-3/FSDP", "有效训练时间占比 90%", "按 80 GB 版本计算"]),
])
def test_defaults_are_stated(offline_advisor, question, said):
    response = ask(offline_advisor, question)
    for words in said:
        assert words in response.answer, words


def test_a_named_memory_size_is_not_restated_as_an_assumption(offline_advisor):
    response = ask(offline_advisor, "full finetune qwen2.5 7b on 100M tokens with 8 a100 40gb, how long?")
    assert "variant (no memory size named)" not in response.answer


def test_a_china_buyer_hears_that_the_card_is_not_sold_new(offline_advisor):
    response = ask(offline_advisor, "用64张H800预训练7B模型，5000亿token，要多久？")
    assert "🇨🇳" in response.answer and "直接买到新卡" in response.answer
    english = ask(offline_advisor, "pretrain a 7b model on 500B tokens with 64 h100 in the us, how long?")
    assert "🇨🇳" not in english.answer


def test_an_adapter_run_is_not_described_as_sharded_full_training(offline_advisor):
    response = ask(offline_advisor, "qlora on a 14b model over 4 a100 80gb cards, 50M tokens, how many hours?")
    assert calls(response, "estimate_training_time")
    assert "ZeRO-3/FSDP" not in response.answer


@pytest.mark.parametrize(("question", "verdict"), [
    ("for training a 70b model, is the h200 quicker than the a100, and could we get by with half as many cards?", "holds on compute"),
    ("全参微调llama 3.1 70B，H200对比A100，换H200卡能减半吗？", "在算力上成立"),
])
def test_a_comparison_that_quotes_a_cut_also_gets_the_verdict(offline_advisor, question, verdict):
    response = ask(offline_advisor, question)
    assert verdict in response.summary and response.summary.startswith("**")
