"""Bilingual hybrid retrieval over the guidance docs and GPU catalog (Chroma + BM25 + glossary)."""

from advisor.retrieval.index import build_index, ensure_index, progress_bar
from advisor.retrieval.search import Hit, Retriever
from advisor.retrieval.store import StoreUnavailable, SyncReport

__all__ = ["Hit", "Retriever", "StoreUnavailable", "SyncReport", "build_index", "ensure_index", "progress_bar"]
