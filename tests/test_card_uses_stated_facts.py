"""A card whose verdict turns on a fact the user states declares it (``verdict_by``: an Ask field → its value → the
opening sentence), and the answer's first sentence uses that fact: buy now or wait with a go-live next month → what
ships now; with no rush → waiting weighed. Without the fact the card's own first sentence opens. (Questions written for
this test, in English and Chinese; not the cards' own questions nor a held-out set.)"""

from __future__ import annotations

import pytest

from advisor.nlu.ask import Ask
from knowledge.concepts import load_concepts
from tests.retrieval_support import served_cards

CARDS = load_concepts()


def test_every_fact_a_card_turns_on_is_an_ask_field_with_both_languages():
    declared = [(card.id, field, value) for card in CARDS.cards for field, by_value in card.verdict_by.items() for value in by_value]
    assert declared, "no card declares the facts its verdict turns on"
    for card_id, field, value in declared:
        assert field in Ask.model_fields, (card_id, field)
        text = CARDS.card(card_id).verdict_by[field][value]
        assert text.en.strip() and text.zh.strip()


TIMING_CARDS = {card.id for card in CARDS.cards if "timeline" in card.verdict_by}

# (question, the timeline it states, words the first sentence must carry)
STATED = [
    ("Should we order H200s now or wait for the next generation? We need them running by March.", "near", "ships now"),
    ("B200 now or hold off for Rubin? Our service has to be live next month.", "near", "ships now"),
    ("现在买H200还是等下一代？下个月就要上线。", "near", "现在能交货"),
    ("要不要等Rubin出来再买？我们尽快要用。", "near", "现在能交货"),
    ("Buy H100s now or wait for the next generation? No rush on our side.", "open", "weigh waiting"),
    ("现在买还是等下一代？我们不着急。", "open", "考虑等待"),
]


@pytest.mark.parametrize(("question", "timeline", "words"), STATED)
def test_a_stated_go_live_opens_the_buy_or_wait_answer(offline_advisor, question, timeline, words):
    response = offline_advisor.answer(question, [])
    served = served_cards(response)
    assert served and served[0] in TIMING_CARDS, (served, response.answer[:300])
    first = response.summary.split("\n")[0]
    assert words in first.split(". ")[0].split("。")[0], first[:200]


@pytest.mark.parametrize("question", ["Should we wait for the next GPU generation before buying?", "要不要等下一代GPU再买？"])
def test_without_a_stated_date_the_card_opens_with_its_own_verdict(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    served = served_cards(response)
    assert served and served[0] in TIMING_CARDS, (served, response.answer[:300])
    card = CARDS.card(served[0])
    assert response.summary.startswith(card.answer.pick(response.language)[:30])
