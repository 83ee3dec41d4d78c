"""Hybrid search over the shipped knowledge docs and catalog (real index, real model)."""

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from advisor.retrieval.evaluation import load_queries, recall_at_k
from advisor.retrieval.glossary import CJK
from advisor.retrieval.index import ensure_index
from advisor.retrieval.search import Retriever
from knowledge.catalog import load_catalog
from tests.retrieval_support import built_index, embedder, no_chroma_default_embedding, retriever  # noqa: F401

pytestmark = pytest.mark.slow
QUERIES = Path(__file__).parent / "data" / "retrieval_queries.yaml"


def test_build_reports_progress_and_ensure_index_then_has_nothing_to_do(built_index):
    data_dir, report, calls = built_index
    assert report.embedded == report.total > 100 and report.unchanged == 0 and report.rebuilt_reason is None
    assert calls[0] == (0, report.embedded) and calls[-1] == (report.embedded, report.embedded)
    assert [done for done, _ in calls] == sorted({done for done, _ in calls})
    again = ensure_index(data_dir)
    assert (again.embedded, again.unchanged, again.deleted) == (0, report.total, 0)


def test_hits_are_one_per_doc_titled_in_the_query_language(retriever):
    titles = {c.doc_id: (c.title_en, c.title_zh) for c in retriever.chunks}
    hits = retriever.search("显存不够怎么办", k=5)
    assert len(hits) == 5 and len({h.doc_id for h in hits}) == 5
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    for hit in hits:
        assert hit.title == titles[hit.doc_id][1]
        assert hit.language == "zh" and CJK.search(hit.snippet) and len(hit.snippet) <= 281
        assert hit.sources and set(hit.retrievers) <= {"dense", "lexical"} and not hit.degraded


def test_language_override_gives_english_titles_and_snippets_for_a_chinese_query(retriever):
    titles = {c.doc_id: c.title_en for c in retriever.chunks}
    hits = retriever.search("显存不够怎么办", k=3, language="en")
    assert all(h.title == titles[h.doc_id] and h.language == "en" for h in hits)


def test_spec_questions_retrieve_catalog_figures_with_their_source(retriever):
    h100 = load_catalog().gpu("h100-sxm")
    hits = retriever.search("H100 SXM memory bandwidth", k=3)
    hopper = next(h for h in hits if h.doc_id == "gpu-nvidia-hopper")
    assert hopper.section == h100.name
    assert f"{h100.bandwidth_gbs:g} GB/s" in hopper.snippet
    # every source is a page a reader can open (the row's dated spec pages, the prices' pages) or the row's stated
    # reason why a source has none; the spec page comes first, so the answer links it
    prices = [p for p in (h100.purchase_price, h100.cloud_price) if p]
    pages = {page.url for page in h100.spec_sources} | {p.source_url for p in prices if p.source_url}
    reasons = {h100.no_url_because} | {p.no_url_because for p in prices}
    assert hopper.sources and all(source in pages or (source and source in reasons) for source in hopper.sources)
    assert hopper.sources[0] == h100.spec_sources[0].url


def test_both_retrievers_contribute_to_a_hybrid_answer(retriever):
    hits = retriever.search("What should I do about CUDA out of memory errors in training?", k=3)
    assert set(hits[0].retrievers) == {"dense", "lexical"}
    # the multi-GPU errors guide, or the Xid concept card that sums it up
    assert retriever.search("Xid 79 fallen off the bus", k=1, mode="lexical")[0].doc_id in ("multi-gpu-errors", "concept-xid-errors")


@pytest.mark.parametrize("query", ["", "   ", None])
def test_blank_query_returns_no_hits(retriever, query):
    assert retriever.search(query) == []
    assert retriever.search("显存", k=0) == []


def test_concurrent_searches_return_the_same_results_as_sequential_ones(retriever):
    queries = [q.q for q in load_queries(QUERIES)][:24]
    expected = [[(h.doc_id, h.score) for h in retriever.search(q)] for q in queries]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda q: [(h.doc_id, h.score) for h in retriever.search(q)], queries))
    assert got == expected


def test_evaluation_set_is_bilingual_and_names_only_real_docs(retriever):
    queries = load_queries(QUERIES)
    assert len(queries) >= 60
    assert sum(q.lang == "zh" for q in queries) == sum(q.lang == "en" for q in queries)
    doc_ids = {c.doc_id for c in retriever.chunks}
    assert {d for q in queries for d in q.expect} <= doc_ids


def test_recall_at_3_is_at_least_90_percent_in_each_language(retriever):
    report = recall_at_k(retriever, load_queries(QUERIES), k=3)
    misses = "\n".join(f"{m.query.q!r}: expected {m.query.expect}, got {m.got}" for m in report.misses)
    assert report.recall["zh"] >= 0.9 and report.recall["en"] >= 0.9, f"{report.recall}\n{misses}"


def test_missing_vector_index_degrades_to_lexical_search(tmp_path, embedder, retriever):
    cold = Retriever(retriever.chunks, data_dir=tmp_path, embedder=embedder, sync=False)
    hits = cold.search("卡太热了老是降频", k=3)
    assert hits and all(h.degraded and h.retrievers == ["lexical"] for h in hits)
    assert hits[0].doc_id == "thermal"
    cold.store.close()
