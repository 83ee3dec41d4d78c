"""Recall@k of the retriever on a labelled query set (used by the tests and `make bench`)."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, Field

from advisor.retrieval.documents import Language
from advisor.retrieval.search import Mode, Retriever


class EvalQuery(BaseModel):
    q: str = Field(min_length=1)
    lang: Language
    expect: list[str] = Field(min_length=1, description="Doc ids that answer the query; any one in the top k is a hit.")


class Miss(BaseModel):
    query: EvalQuery
    got: list[str]


class RecallReport(BaseModel):
    k: int
    mode: Mode
    recall: dict[Language, float] = Field(description="Share of queries per language with an expected doc in the top k.")
    counts: dict[Language, int]
    misses: list[Miss]


def load_queries(path: Path) -> list[EvalQuery]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [EvalQuery.model_validate(item) for item in raw["queries"]]


def recall_at_k(retriever: Retriever, queries: list[EvalQuery], k: int = 3, mode: Mode = "hybrid") -> RecallReport:
    hits: dict[str, int] = {}
    counts: dict[str, int] = {}
    misses: list[Miss] = []
    for query in queries:
        got = [hit.doc_id for hit in retriever.search(query.q, k=k, mode=mode)]
        counts[query.lang] = counts.get(query.lang, 0) + 1
        if set(got) & set(query.expect):
            hits[query.lang] = hits.get(query.lang, 0) + 1
        else:
            misses.append(Miss(query=query, got=got))
    recall = {lang: round(hits.get(lang, 0) / n, 4) for lang, n in counts.items()}
    return RecallReport(k=k, mode=mode, recall=recall, counts=counts, misses=misses)
