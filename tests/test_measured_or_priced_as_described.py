"""Questions that describe their setup loosely still get the calculation they ask for (our own wording):
a measured serving speed judged when the model is given only by its size, a single card never blamed on the link
between cards, and a rent asked "for a month" beside a payback question read as the rent's period, not a service life."""

from __future__ import annotations

import pytest

from tests.test_troubleshoot_reported_states import findings, shown


def called(response, name):
    return [call for call in response.tool_calls if call.name == name]


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("We serve a 70B AWQ model with vLLM on 2x A100 80G and get 7 tok/s per user at 25 concurrent users. Is that normal?", "**Low"),
        ("两张L40S用vLLM跑一个32B模型，20个人同时用，每人只有6 token/s，正常吗？", "**偏低"),
    ],
)
def test_a_measured_speed_is_judged_for_a_model_given_only_by_its_size(offline_advisor, question, lead):
    response = offline_advisor.answer(question)
    runs = called(response, "estimate_throughput")
    assert runs and runs[0].args["model"].endswith("B")  # the bare size, sized as a generic model
    assert not called(response, "diagnose")
    assert response.summary.startswith(lead), response.summary[:200]


def test_one_card_is_never_slowed_by_the_link_between_cards():
    text = "MFU is only 12% fine-tuning on a single L40S"
    assert "pcie-topology-slow" not in shown(text, gpus=1, interconnect="pcie")
    assert "pcie-topology-slow" in [f.rule_id for f in findings("MFU is only 12% with FSDP on four L40S", gpus=4, interconnect="pcie", sharding="fsdp")]


@pytest.mark.parametrize(
    "question",
    [
        "How much does renting one 8x A100 server cost for a month, and how long would buying take to pay back?",
        "在上海租一台8卡A100服务器一个月要多少钱？自己买的话多久能回本？",
    ],
)
def test_a_rent_asked_for_a_month_is_its_period_not_the_servers_life(offline_advisor, question):
    response = offline_advisor.answer(question)
    (tco,) = called(response, "compute_tco")[:1]
    assert tco.result is not None  # no "service life must be at least 0.25 years" error
    assert (tco.args.get("lifetime_years") or 1) >= 0.25
    assert "0.0833" not in response.answer
