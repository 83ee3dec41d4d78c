"""Retrieval quality and speed: recall@3 per language (hybrid vs dense-only), warm query latency,
and the time to build the vector index from scratch.

Everything runs against a throw-away data dir, so a benchmark never touches the user's index.
``measure_retrieval()`` returns rows for the ``make bench`` table; the other functions return
the raw figures. Targets: recall@3 ≥ 0.9 per language, warm p95 < 50 ms, build < 60 s.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from advisor.retrieval.corpus import load_corpus
from advisor.retrieval.embeddings import get_embedder
from advisor.retrieval.evaluation import EvalQuery, load_queries, recall_at_k
from advisor.retrieval.search import Retriever
from advisor.retrieval.store import VectorStore

QUERIES_PATH = Path(__file__).resolve().parents[1] / "tests" / "data" / "retrieval_queries.yaml"


def build_time(data_dir: Path) -> dict[str, float]:
    """Seconds to load the model (first time in this process) and to embed the corpus into an empty store."""
    start = time.perf_counter()
    embedder = get_embedder()
    model_s = time.perf_counter() - start
    start = time.perf_counter()
    store = VectorStore(data_dir)
    report = store.sync(load_corpus(), embedder)
    store.close()
    return {"model_load_s": model_s, "build_s": time.perf_counter() - start, "chunks_embedded": report.embedded}


def recall(retriever: Retriever, queries: list[EvalQuery] | None = None) -> dict[str, dict[str, float]]:
    """Recall@3 per language for hybrid search and for the dense retriever alone."""
    queries = queries or load_queries(QUERIES_PATH)
    return {mode: recall_at_k(retriever, queries, k=3, mode=mode).recall for mode in ("hybrid", "dense")}


def latency(retriever: Retriever, queries: list[EvalQuery] | None = None, rounds: int = 3) -> dict[str, float]:
    """Warm hybrid-search latency in ms over every evaluation query, after one warm-up pass."""
    texts = [q.q for q in queries or load_queries(QUERIES_PATH)]
    for text in texts:
        retriever.search(text, k=5)
    samples = []
    for _ in range(rounds):
        for text in texts:
            start = time.perf_counter()
            retriever.search(text, k=5)
            samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return {
        "queries": len(samples),
        "p50_ms": statistics.median(samples),
        "p95_ms": samples[min(len(samples) - 1, int(0.95 * len(samples)))],
    }


def measure_retrieval() -> list[dict[str, float | str | int]]:
    with tempfile.TemporaryDirectory(prefix="advisor-bench-") as tmp:
        built = build_time(Path(tmp))
        retriever = Retriever(data_dir=Path(tmp))
        quality = recall(retriever)
        speed = latency(retriever)
        retriever.close()
    rows: list[dict[str, float | str | int]] = [
        {"name": "retrieval: build index from scratch", "seconds": round(built["build_s"], 1),
         "chunks": built["chunks_embedded"], "target": "< 60 s"},
        {"name": "retrieval: warm query latency", "p50_ms": round(speed["p50_ms"], 1),
         "p95_ms": round(speed["p95_ms"], 1), "target": "p95 < 50 ms"},
    ]  # fmt: skip
    for mode, per_language in quality.items():
        for language, value in sorted(per_language.items()):
            rows.append({"name": f"retrieval: {mode} recall@3 ({language})", "recall": value,
                         "target": "≥ 0.9" if mode == "hybrid" else "reference"})  # fmt: skip
    return rows


if __name__ == "__main__":
    for row in measure_retrieval():
        print(row)
