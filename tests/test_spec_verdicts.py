"""Issues #35/#36 (specs): a spec comparison leads with a verdict for the user's job, variants of one GPU are the pair
asked about, a modified card is not answered as the stock card, a quoted multiple is placed against what each printed
number is, and a missing capability leads with no. Our own wording, both languages."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from tests.chinese_text import english_words
from tests import threads
from tests.threads import ask, calls
from tools.gpu_specs import CompareRequest, compare_gpus
from tools.recommend.claim import ClaimRequest, check_gpu_claim


# --- the tool: which card for which job, and why -----------------------------------------------------


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def verdict(catalog, gpus, job=None):
    return compare_gpus(CompareRequest(gpus=gpus, job=job), catalog).verdict


def test_serving_is_decided_by_bandwidth_and_training_by_dense_compute(catalog):
    serving = verdict(catalog, ["Ascend 910B", "H20"], "inference")
    assert (serving.pick, serving.decided_by) == ("h20", "bandwidth")
    training = verdict(catalog, ["Ascend 910B", "H20"], "training")
    assert (training.pick, training.decided_by) == ("ascend-910b", "bf16")
    assert training.edges[0].figure == "bf16" and training.edges[0].ratio == pytest.approx(376 / 148, abs=0.01)
    assert any(e.figure == "fp8" and e.leader == "h20" and e.other_value is None for e in training.edges)  # only the H20 has FP8


def test_without_a_job_each_job_gets_its_card(catalog):
    v = verdict(catalog, ["H20", "H800"])
    assert v.job is None and v.pick is None
    assert (v.best_for_serving, v.best_for_training) == ("h20", "h800-sxm")


def test_a_figure_within_five_percent_decides_nothing(catalog):
    v = verdict(catalog, ["H800", "H100"])  # the same die: only the link differs
    assert [e.figure for e in v.edges] == ["link"]
    assert v.best_for_serving is None and v.best_for_training == "h100-sxm"


# --- the answers: verdict first ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "lead", "decided"),
    [
        ("Which is better for training, Ascend 910B or H20?", "For training, the Huawei Ascend 910B is the better card", "dense BF16"),
        ("L20 和 A100 80GB 哪个适合做推理？", "推理部署选 NVIDIA A100 80GB SXM", "显存带宽"),
    ],
)
def test_a_comparison_for_a_job_leads_with_the_card_and_the_figure(offline_advisor, question, lead, decided):
    response = ask(offline_advisor, question)
    (compare,) = calls(response, "compare_gpus")
    assert compare.args["job"] in ("training", "inference")
    line = threads.lead(response)
    assert line.startswith("**" + lead) and decided in line
    if response.language == "zh":
        assert not english_words(response.summary), english_words(response.summary)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("what's the real difference between the H100 PCIe and the SXM one?", ["NVIDIA H100 SXM", "memory bandwidth", "3,350 vs 2,000 GB/s"]),
        ("H20 和 H800 区别在哪", ["推理部署选 NVIDIA H20", "训练选 NVIDIA H800 SXM"]),
    ],
)
def test_without_a_job_the_difference_that_matters_leads_and_nothing_is_asked(offline_advisor, question, expected):
    response = ask(offline_advisor, question)
    line = threads.lead(response)
    assert all(part in line for part in expected), line
    assert "?" not in line and "？" not in line


def test_the_pcie_cards_strength_is_said_too(offline_advisor):
    response = ask(offline_advisor, "H100 PCIe or H100 SXM?")
    assert "The NVIDIA H100 PCIe is ahead on lower board power (350 vs 700 W)" in response.summary


# --- variants of one GPU ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "ids"),
    [
        ("A100 40GB or 80GB, is the difference big?", {"a100-40gb-sxm", "a100-80gb-sxm"}),
        ("A100 80GB 和 40GB 哪个好", {"a100-40gb-sxm", "a100-80gb-sxm"}),
        ("H100 NVL 和 SXM 选哪个", {"h100-nvl", "h100-sxm"}),
    ],
)
def test_variants_of_one_gpu_are_the_pair_asked_about(offline_advisor, question, ids):
    response = ask(offline_advisor, question)
    (compare,) = calls(response, "compare_gpus")
    assert {load_catalog().gpu(name).id for name in compare.args["gpus"]} == ids


def test_a_choice_between_named_cards_is_the_comparison_not_a_strategy_card(offline_advisor):
    response = ask(offline_advisor, "RTX 4090 D or the full 4090, which one should I get?")
    assert [call.name for call in response.tool_calls] == ["compare_gpus"]
    assert threads.lead(response).startswith("**The NVIDIA GeForce RTX 4090 is the stronger card")


def test_waiting_for_a_new_generation_is_still_a_strategy_question(offline_advisor):
    response = ask(offline_advisor, "should we buy H200s now or wait for the B300?")
    assert "compare_gpus" not in [call.name for call in response.tool_calls]


@pytest.mark.parametrize(
    "question", ["are those 48GB memory-modded 4090s ok for serving a 70B model?", "魔改的 4090 48G 拿来跑 32B 靠谱吗"]
)
def test_a_modified_card_is_answered_as_what_it_is_not_as_the_stock_card(offline_advisor, question):
    response = ask(offline_advisor, question)
    assert not calls(response, "estimate_memory")  # never sized on the stock 24 GB card
    assert any(word in response.summary for word in ("warranty", "保修"))


# --- quoted multiples -------------------------------------------------------------------------------


def test_the_claim_tool_gives_every_printed_figure_and_the_card_for_card_range(catalog):
    r = check_gpu_claim(ClaimRequest(proposed={"gpu": "H100"}, incumbent={"gpu": "A100 80GB"}), catalog)
    assert r.proposed.bf16_sparse_card == 2 * r.proposed.bf16_tflops_card == r.proposed.fp8_tflops_card
    assert r.incumbent.fp8_tflops_card is None and r.fp8_side == "proposed"
    assert r.decode_ratio == pytest.approx(3350 / 2039, abs=0.01) and r.compute_card_ratio == pytest.approx(989.5 / 312, abs=0.01)
    assert r.fp8_high == pytest.approx(r.compute_card_ratio * r.fp8_gain[1], abs=0.1)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("they told me the H100 does 1979 TFLOPS and the A100 only 312, so 6 times faster?", ["No", "1,979 BF16 with 2:4 sparsity", "End to end"]),
        ("H100 是 A100 的 6 倍快？H100 1979T，A100 才 312T", ["按同口径不属实", "含2:4稀疏的BF16 1,979", "端到端"]),
    ],
)
def test_a_quoted_multiple_gets_no_the_printed_figures_and_the_real_range(offline_advisor, question, expected):
    response = ask(offline_advisor, question)
    assert calls(response, "check_gpu_claim")
    assert threads.lead(response).startswith("**" + expected[0])
    assert all(part in response.summary for part in expected), response.summary
    assert "github.com/pytorch/ao" in response.answer  # the FP8 training gain is cited


# --- a capability the card lacks -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "lead"), [("can a T4 train in bf16?", "No"), ("V100 能跑 BF16 吗", "不支持")]
)
def test_a_missing_capability_leads_with_no_and_what_to_use(offline_advisor, question, lead):
    response = ask(offline_advisor, question)
    assert response.answer.startswith(lead)
