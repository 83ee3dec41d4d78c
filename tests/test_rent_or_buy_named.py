"""Named cards a question weighs buying against renting ("buy or lease 8 H100s for our 70B service?") are not cards
the user owns: the answer is the rent-or-buy verdict on them, never "use the cards you have". Cards the user says
they have still are theirs. Wording is our own; both languages."""

from __future__ import annotations

import pytest

from tests.threads import ask, calls


@pytest.mark.parametrize(
    ("message", "verdict_words"),
    [
        ("For serving Qwen2.5-72B to our users, is it better to buy 8 H200s or rent them?", ("Buy", "Rent")),
        ("打算部署Llama 3.1 70B，8张H100自己买还是租云上的？", ("买", "租")),
    ],
)
def test_a_purchase_weighed_against_renting_gets_the_rent_or_buy_verdict(offline_advisor, message, verdict_words):
    reply = ask(offline_advisor, message)
    first = reply.summary.split("\n")[0]
    assert calls(reply, "compute_tco"), reply.answer[:300]
    assert any(word in first for word in verdict_words), first
    assert "cards you have" not in reply.answer and "现有的卡" not in reply.answer


def test_cards_the_user_says_they_own_are_still_used_first(offline_advisor):
    reply = ask(offline_advisor, "We already own 8 A100 80GB; what else do we need to serve Llama 3.1 70B?")
    assert "cards you have" in reply.summary.split("\n")[0], reply.summary[:300]
