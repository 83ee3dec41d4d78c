"""A two-part question whose second part finds only the card the first part already used (#36 item 3): the second part
is named and said to have no answer of its own, with what can be worked out instead — never claimed as covered."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("message", "said", "claimed"),
    [
        ("Is it legal to send B200 servers to a Shanghai office, and could our team there use them remotely through a cloud?",
         "no answer of its own", "covers this too"),
        ("B200可以运进中国大陆吗？可以远程用吗？", "没有专门的答案", "同样适用于这一问"),
    ],
)
def test_a_part_without_its_own_answer_is_named_not_claimed_covered(offline_advisor, message, said, claimed):
    response = offline_advisor.answer(message, [])
    opening = response.summary.strip().split("\n")[0]
    assert opening.count("(") + opening.count("（") >= 2  # both parts have a line in the opening
    # the remote-use card (knowledge/concept_cards) now answers the second part; before it existed the part said it
    # had no answer of its own — either way it is never claimed as covered by the first part's card
    assert said in opening or ("compliance" in opening if response.language == "en" else "合规" in opening)
    assert claimed not in response.answer
    last_part = message.rstrip("?？").split(",")[-1].split("？")[-1].strip()
    assert f"{last_part}?”" not in response.summary and f"{last_part}？”" not in response.summary  # quoted without its mark
