"""Bilingual hybrid retrieval over the guidance docs and GPU catalog (Chroma + BM25 + glossary).

documents / gpu_family_docs / corpus   what is indexed: `## ` sections of knowledge/docs/{en,zh},
                                       plus one generated doc per GPU family from the catalog
embeddings   the local sentence-transformers model (packaged MiniLM, or ADVISOR_EMBEDDING_MODEL)
store        Chroma vectors with a manifest; incremental, self-repairing builds
healing      one background worker re-syncing a store that failed mid-run, with back-off
glossary     Chinese ↔ English domain terms for query expansion and jieba user words
lexical      BM25 over jieba tokens of both languages
search       Retriever.search(): both retrievers fused by reciprocal rank, one Hit per doc
index        build_index() for `gpu-advisor index`, ensure_index() at app start
"""

from advisor.retrieval.index import build_index, ensure_index, progress_bar
from advisor.retrieval.search import Hit, Retriever
from advisor.retrieval.store import StoreUnavailable, SyncReport

__all__ = ["Hit", "Retriever", "StoreUnavailable", "SyncReport", "build_index", "ensure_index", "progress_bar"]
