"""Claims and substitutions between parts ("N consumer cards beat a data-centre box", "can X stand in for Y"):
the tool's like-for-like verdict, the Ask flag that sends a message there, and the answer's first sentence, in both
languages. Wording of our own."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from tests.threads import ask, calls
from tools.recommend.claim import ClaimRequest, ClaimSideRequest, check_gpu_claim


def _check(proposed: str, proposed_count: int | None, incumbent: str, incumbent_count: int | None = None, server: bool = False):
    request = ClaimRequest(proposed=ClaimSideRequest(gpu=proposed, count=proposed_count),
                           incumbent=ClaimSideRequest(gpu=incumbent, count=incumbent_count, whole_server=server))
    return check_gpu_claim(request, load_catalog())


def test_consumer_cards_against_a_whole_hopper_server_lose_on_compute_and_memory():
    result = _check("RTX 4090", 8, "H100", server=True)
    assert result.incumbent.count == 8  # an SXM part named as a server is its 8-GPU board
    assert result.verdict == "false"
    assert result.compute_ratio < 0.25 and result.memory_ratio < 0.5
    assert {"no_scale_up_link", "consumer_licence"} <= set(result.drawbacks)


def test_a_pcie_card_named_as_a_server_is_not_multiplied():
    assert _check("RTX 4090", 2, "L40S", server=True).incumbent.count == 1  # not sold on a board: one card


def test_more_memory_but_less_compute_is_only_partly_true():
    result = _check("RTX 5090", 4, "H100")
    assert result.verdict == "partly"
    assert result.memory_ratio > 1 and result.compute_ratio < 1


def test_the_headline_figure_counts_sparsity_and_the_lowest_precision():
    side = _check("RTX 5090", 1, "H100").proposed
    assert side.headline_precision == "fp4" and side.headline_sparse
    assert side.headline_tflops_card == pytest.approx(2 * load_catalog().gpu("RTX 5090").fp4_tflops)
    assert side.headline_tflops_card > 10 * side.bf16_tflops_card  # the gap a pitch can hide


def test_a_stronger_part_with_the_same_link_is_true():
    result = _check("H200", 8, "H100", 8)
    assert result.verdict == "true" and result.drawbacks == []


def test_an_unknown_part_is_a_clear_error():
    from knowledge.bilingual import AdvisorError

    with pytest.raises(AdvisorError):
        _check("GTX 9999 Ultra", 2, "H100")


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Our reseller insists six 4090s will outrun a single H100 node for us. Correct?", True),
        ("Can the L20 stand in for the A800 when we serve our 14B model?", True),
        ("代理商说4张5090顶得上一张H100，属实吗？", True),
        ("国产化要求下，L20能平替A800吗？", True),
        ("What are the specs of the H100 and the A100?", False),  # two parts, no claim
        ("H100和A100的显存分别多少？", False),
        ("The vendor says this box is great. True?", False),  # a claim, but no two parts to set side by side
        ("销售说这台机器很好，是真的吗？", False),
    ],
)
def test_a_claim_between_two_named_parts_is_read_as_one(message, expected):
    from advisor.nlu.ask import Ask
    from advisor.nlu.reader import shared_understanding

    assert Ask.read(shared_understanding().read(message, []), load_catalog()).weighs_claim is expected


@pytest.mark.parametrize(
    ("message", "first_words"),
    [
        ("A salesman told us eight 4090 cards outperform one DGX H100. Is this true?", "**No"),
        ("有销售说8张4090抵得上一台H100服务器，是真的吗？", "**不属实"),
        ("Would two RTX 4090s match one A100 80GB, as our integrator says?", "**Partly"),
        ("集成商说两张4090等于一张A100 80G，对吗？", "**部分属实"),
    ],
)
def test_the_answer_opens_with_the_verdict_and_the_dense_figures(offline_advisor, message, first_words):
    response = ask(offline_advisor, message)
    assert response.answer.startswith(first_words)
    (claim,) = calls(response, "check_gpu_claim")
    assert "BF16" in response.summary  # the like-for-like figure is on the first screen
    assert not calls(response, "compare_gpus")  # no price-per-TFLOPS ranking stands in for the verdict
    assert claim.args["proposed"]["gpu"].casefold().endswith("4090")


def test_a_rack_scale_multiple_claimed_for_one_part_is_not_upheld(offline_advisor):
    # the card on such multiples answers the Chinese wording, which the classifier reads as a concept question
    response = ask(offline_advisor, "NVIDIA claims the GB200 NVL72 does 30x an H100; is that real?")
    assert response.answer.startswith("**No"), response.answer[:200]


def test_a_named_job_is_sized_on_both_sides(offline_advisor):
    response = ask(offline_advisor, "Could an L40S take the place of an A100 80GB to serve Qwen2.5-14B?")
    assert calls(response, "check_gpu_claim") and calls(response, "estimate_memory")
