"""The knowledge base as a registry tool: search_knowledge(query) → cited hits."""

from __future__ import annotations

import threading

from pydantic import BaseModel, ConfigDict, Field

from advisor.contract import Language
from advisor.retrieval.search import Hit, Retriever


class KnowledgeQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=4000, description="The question or keywords, in Chinese or English.")
    k: int = Field(3, ge=1, le=10, description="How many documents to return.")
    language: Language | None = Field(None, description="Language for titles and snippets; default: the query's.")


class KnowledgeResult(BaseModel):
    hits: list[Hit] = Field(description="Most relevant guidance docs first, each with its section, snippet and sources.")


def search_knowledge(request: KnowledgeQuery, retriever: Retriever) -> KnowledgeResult:
    return KnowledgeResult(hits=retriever.search(request.query, k=request.k, language=request.language))


_lock = threading.Lock()
_shared: Retriever | None = None


def shared_retriever() -> Retriever:
    """One retriever per process, built on first use (loading the embedder and syncing the index once)."""
    global _shared
    with _lock:
        if _shared is None:
            _shared = Retriever()
        return _shared


def current_retriever() -> Retriever | None:
    """The shared retriever if it was built already; never builds one (health checks must stay cheap)."""
    return _shared
