"""Concept cards as retrieval chunks: the answer first (the snippet), the typical phrasings after it."""

from __future__ import annotations

from advisor.retrieval.documents import Chunk
from knowledge.concepts import ConceptCards

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
                tags=("concept",) + ((card.calculator,) if card.calculator else ()),
            ))  # fmt: skip
    return chunks
