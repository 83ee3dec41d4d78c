"""Retrieval against a real `chroma run` server on 127.0.0.1, including the server going away."""

import logging

import pytest

from advisor.config import Settings
from advisor.retrieval.chroma_server import free_port
from advisor.retrieval.search import Retriever
from advisor.retrieval.store import VectorStore
from tests.retrieval_support import THERMAL_QUESTION as QUESTION
from tests.retrieval_support import chroma_server, chunks, embedder, no_chroma_default_embedding  # noqa: F401

pytestmark = pytest.mark.slow


def test_retriever_uses_the_server_named_by_ADVISOR_CHROMA_URL(tmp_path, chunks, chroma_server, embedder, monkeypatch):
    monkeypatch.setenv("ADVISOR_CHROMA_URL", chroma_server.url)
    monkeypatch.setenv("ADVISOR_DATA_DIR", str(tmp_path / "local-data"))
    retriever = Retriever(chunks)
    assert retriever.store.url == chroma_server.url
    assert retriever.sync_report.embedded == 3  # the English sections
    hits = retriever.search(QUESTION, k=2)
    assert hits[0].doc_id == "thermal" and "dense" in hits[0].retrievers and not hits[0].degraded
    assert not (tmp_path / "local-data").exists()
    retriever.close()

    second = Retriever(chunks)  # another process would find the index already on the server
    assert (second.sync_report.embedded, second.sync_report.unchanged) == (0, 3)
    second.close()


def test_search_answers_lexically_while_the_server_is_down_and_recovers(tmp_path, chunks, chroma_server, embedder):
    store = VectorStore(tmp_path / "unused", chroma_server.url, retry_after_s=0)
    retriever = Retriever(chunks, store=store, embedder=embedder)
    assert "dense" in retriever.search(QUESTION, k=1)[0].retrievers

    chroma_server.stop()
    hits = retriever.search(QUESTION, k=2)
    assert hits and hits[0].doc_id == "thermal"
    assert all(h.degraded and h.retrievers == ["lexical"] for h in hits)
    assert retriever.search("卡太热了老是降频", k=1)[0].doc_id == "thermal"

    chroma_server.start()  # same port and path: the index is still there
    hits = retriever.search(QUESTION, k=2)
    assert not hits[0].degraded and "dense" in hits[0].retrievers
    retriever.close()


def test_retriever_starts_even_if_the_server_is_unreachable(tmp_path, chunks, embedder, caplog):
    settings = Settings.from_env({"ADVISOR_CHROMA_URL": f"http://127.0.0.1:{free_port()}", "ADVISOR_DATA_DIR": str(tmp_path)})
    with caplog.at_level(logging.WARNING, logger="advisor.retrieval.search"):
        retriever = Retriever(chunks, settings=settings, embedder=embedder)
    assert retriever.sync_report is None
    assert any("lexical search only" in r.getMessage() for r in caplog.records)
    hits = retriever.search(QUESTION, k=2)
    assert hits[0].doc_id == "thermal" and hits[0].degraded
    retriever.close()  # its re-sync worker would otherwise keep knocking on the dead port
