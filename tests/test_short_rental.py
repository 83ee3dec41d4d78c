"""A rental shorter than a payback is compared over the span the user needs, not the servers' default life (#35):
"we need the cards for a few months" leads with rent and says why; a payback question keeps a month as the rent's
period. Our own wording, en + zh."""

from __future__ import annotations

import pytest

from tests.threads import ask, calls


@pytest.mark.parametrize(
    ("question", "months", "lead"),
    [
        ("Our fine-tuning push needs 8 H100s for about two months. Buy the box or rent?", 2, "Rent"),
        ("项目只需要用 8 张 H100 三个月，买服务器还是租？", 3, "租更划算"),
    ],
)
def test_a_short_rental_is_compared_over_the_months_needed(offline_advisor, question, months, lead):
    response = ask(offline_advisor, question)
    tco = calls(response, "compute_tco")
    assert tco and tco[0].result["horizon_months"] == pytest.approx(months, abs=0.01)
    assert response.answer.lstrip("*").startswith(lead), response.answer[:200]


def test_a_month_beside_a_payback_question_stays_the_rents_period(offline_advisor):
    response = ask(offline_advisor, "Renting 8 H100s costs us about $16,000 a month. When would buying pay back?")
    tco = calls(response, "compute_tco")
    assert tco and tco[0].result["horizon_months"] >= 12
