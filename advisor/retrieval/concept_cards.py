"""Concept cards as retrieval chunks: the answer first (the snippet), the typical phrasings after it."""

from __future__ import annotations

from advisor.retrieval.documents import Chunk
from knowledge.concepts import ConceptCard, ConceptCards
from knowledge.subjects import load_subjects

CARD_PREFIX = "concept-"


def concept_chunks(cards: ConceptCards) -> list[Chunk]:
    chunks = []
    for card in cards.cards:
        for language in ("en", "zh"):
            questions = getattr(card.questions, language)
            chunks.append(Chunk(
                doc_id=CARD_PREFIX + card.id, language=language, position=0, section=card.title.pick(language),
                text=card.answer.pick(language) + "\n\n" + "\n".join(questions),
                title_en=card.title.en, title_zh=card.title.zh, sources=tuple(s.url for s in card.sources),
                tags=("concept",) + ((card.calculator,) if card.calculator else ()) + ask_words(card, language),
            ))  # fmt: skip
    return chunks


def ask_words(card: ConceptCard, language: str) -> tuple[str, ...]:
    """The words that name the asks a card states it answers (``about: {ask: [...]}``: a UPS, a deadline, which variant):
    the lexical retriever scores a question saying them ("how many kVA of UPS") towards the card that answers that ask."""
    by_id = {subject.id: subject for subject in load_subjects().subjects}
    stated = (card.about or {}).get("ask", [])
    return tuple(cue for ask in stated if ask in by_id for cue in getattr(by_id[ask].cues, language))
