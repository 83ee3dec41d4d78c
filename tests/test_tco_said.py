"""What a rent-or-buy question says in words no slot holds, read once by the NLU (advisor/nlu/tco_said.py)."""

from __future__ import annotations

import pytest

from advisor.nlu.frame import Frame, Money, SlotValue
from advisor.nlu.tco_said import commitment_terms, horizon_ranges, payback_word_starts, ratio_claim, running_costs


@pytest.mark.parametrize(
    ("texts", "value"),
    [
        (["our finance team claims the cloud is 4x more expensive than racking our own"], 4.0),
        (["有人说上云比自己买贵三倍，靠谱吗"], 3.0),
        (["we need 8x H100 for a year, rent or buy?"], None),  # "8x" is a count, no comparison follows
        (["and with 70% use?", "someone told me renting costs 2.5 times more than owning"], 2.5),  # found earlier in the thread
    ],
)
def test_a_quoted_multiple_of_owning_is_found_and_a_count_is_not(texts, value):
    claim = ratio_claim(texts)
    assert (claim.value if claim else None) == value


def test_running_costs_are_told_by_the_words_of_their_clause():
    message = "buy 2 servers at $300k each, colo $180 per kW-month, one SRE at $15k a month"
    price = SlotValue(Money(300_000, "USD"), "$300k", message.index("$300k"), "buy 2 servers at")
    colo = SlotValue(Money(180, "USD", per="month"), "$180", message.index("$180"), "colo")
    staff = SlotValue(Money(15_000, "USD", per="month"), "$15k a month", message.index("$15k"), "one SRE at")
    found = {c.role: c for c in running_costs(message, Frame({"server_price": [price, colo], "budget": [staff]}))}
    assert set(found) == {"colocation", "staff"}
    assert found["colocation"].per_kw and found["colocation"].start == colo.start
    assert not found["staff"].per_kw and found["staff"].surface == "$15k a month"


def test_a_colocation_bill_for_the_space_is_not_a_rate_per_kilowatt():
    message = "托管机柜每月2万元，买还是租"
    bill = SlotValue(Money(20_000, "CNY", per="month"), "每月2万元", message.index("每月"), "托管机柜")
    (found,) = running_costs(message, Frame({"budget": [bill]}))
    assert found.role == "colocation" and not found.per_kw


def test_payback_claims_are_told_from_payback_questions():
    assert payback_word_starts("the vendor says it pays back in 8 months")
    assert not payback_word_starts("多久能回本？")


def test_a_commitment_term_and_a_range_of_years_are_read_from_the_words():
    message = "1 year commit on the cloud, or buy and keep for 3 years?"
    term = SlotValue(1.0, "1 year", message.index("1 year"))
    kept = SlotValue(3.0, "3 years", message.index("3 years"))
    assert commitment_terms(message, Frame({"horizon": [term, kept]})) == (term.start,)
    (found,) = horizon_ranges(Frame({"horizon": [SlotValue(2.5, "2-3年", 3)]}))
    assert (found.low, found.high) == pytest.approx((2.0, 3.0))
