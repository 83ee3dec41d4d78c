"""A training purchase with a token count is answered with compute (FLOPs, days on the configuration, rent against
buying for a one-off run) for every model size asked, not with a memory fit alone. Both languages, own wording."""

from __future__ import annotations

import pytest

from tests.threads import ask, calls


@pytest.mark.parametrize(
    ("message", "rent_words"),
    [
        ("We plan continued pre-training of a 7B and a 14B model on 100B tokens with 2 million yuan. What hardware should we get?", ("rent", "Buying")),
        ("想在1000亿token上继续预训练7B和14B两个模型，预算200万元，该买什么硬件？", ("租", "买")),
    ],
)
def test_each_model_size_gets_its_flops_and_days(offline_advisor, message, rent_words):
    response = ask(offline_advisor, message)
    timed = calls(response, "estimate_training_time")
    sizes = {round(call.result["params_b"]) for call in timed if call.result}
    assert {7, 14} <= sizes
    assert "FLOPs" in response.answer
    assert any(word in response.answer for word in rent_words)


def test_a_serving_question_gets_no_compute_block(offline_advisor):
    response = ask(offline_advisor, "Which GPU should we buy to serve a 14B model to 20 people?")
    assert "6 × parameters × tokens" not in response.answer
