"""Everything retrieval indexes: the guidance docs, the concept cards and the generated GPU family docs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from advisor.retrieval.concept_cards import concept_chunks
from advisor.retrieval.documents import DOCS_DIR, Chunk, DocumentError, load_guidance
from advisor.retrieval.gpu_family_docs import gpu_family_chunks
from knowledge.catalog import Catalog, load_catalog
from knowledge.concepts import load_concepts


def load_corpus(docs_dir: Path | None = None, catalog: Catalog | None = None) -> list[Chunk]:
    """Guidance docs and concept cards in both languages plus one doc per GPU family, with unique chunk ids."""
    chunks = load_guidance(docs_dir or DOCS_DIR) + concept_chunks(load_concepts()) + gpu_family_chunks(catalog or load_catalog())
    duplicated = sorted(i for i, n in Counter(c.chunk_id for c in chunks).items() if n > 1)
    if duplicated:
        raise DocumentError(f"duplicate chunk ids (is a doc id used twice?): {duplicated[:5]}")
    return chunks
