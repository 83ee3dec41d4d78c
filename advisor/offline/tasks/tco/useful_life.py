""""Finance wants to depreciate the GPUs over 6 years: realistic?": the economic-versus-book-life card, whatever else
the message names (an H100, a finance team), with the rent-or-buy calculation offered for the life the user picks."""

from __future__ import annotations

from functools import lru_cache

from advisor.offline.tasks.concept import knowledge
from advisor.offline.turn import Turn
from knowledge.concepts import ConceptCard, load_concepts

LIFE_CARD = "gpu-depreciation-life"  # knowledge/concept_cards/market.yaml


@lru_cache(maxsize=1)
def _card() -> ConceptCard:
    card = load_concepts().card(LIFE_CARD)
    if card is None:
        raise LookupError(f"concept card {LIFE_CARD!r} is missing from knowledge/concept_cards")
    return card


def answer(turn: Turn) -> str:
    # the card's own first question is searched, so words beside the life (a GPU's name) cannot pull another card
    questions = _card().questions
    return knowledge.concept(turn, offer="tco", question=turn.t(questions.en[0], questions.zh[0]))
