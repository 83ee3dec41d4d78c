"""No unbounded waits: a Chroma server that accepts and never answers, or a real `chroma run` that is
SIGSTOPped, costs a chat at most the query deadline; /healthz says so; /healthz answers even when
every chat thread is stuck."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time

import httpx
import pytest

from advisor.retrieval.chroma_http import QUERY_DEADLINE_S
from advisor.retrieval.search import Retriever
from advisor.retrieval.store import StoreUnavailable, VectorStore
from knowledge.bilingual import AdvisorError
from tests.live_server import offline_settings, running_server
from tests.retrieval_support import chroma_server, chunks, embedder, no_chroma_default_embedding  # noqa: F401

VECTOR = [0.1] * 384


@pytest.fixture
def silent_server():
    """A loopback socket that accepts connections and never sends a byte (a frozen or wedged server)."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join(2)
    for conn in accepted:
        conn.close()
    listener.close()


def test_a_server_that_never_answers_costs_one_query_the_deadline_then_nothing(tmp_path, silent_server):
    store = VectorStore(tmp_path, silent_server, retry_after_s=30, timeout_s=3)
    started = time.perf_counter()
    with pytest.raises(StoreUnavailable, match="did not answer"):
        store.query(VECTOR, 3)
    assert time.perf_counter() - started < QUERY_DEADLINE_S + 0.5
    started = time.perf_counter()
    with pytest.raises(StoreUnavailable):  # within the back-off: refused without touching the server
        store.query(VECTOR, 3)
    with pytest.raises(StoreUnavailable):
        store.ping()
    assert time.perf_counter() - started < 0.2
    store.close()


def test_the_http_client_itself_gives_up_after_the_configured_timeout(tmp_path, silent_server):
    """Even a caller without a deadline (an index build) is not held forever: Chroma's client gets a timeout."""
    store = VectorStore(tmp_path, silent_server, timeout_s=1)
    started = time.perf_counter()
    with pytest.raises(StoreUnavailable):
        store.client(repair=True)
    assert time.perf_counter() - started < 4


class StuckAdvisor:
    mode = "offline"

    def __init__(self):
        self.release = threading.Event()

    def answer(self, message, history=()):
        self.release.wait(30)
        raise AdvisorError("released", "Released.", "已释放。")


def test_health_answers_while_every_chat_thread_is_stuck(tmp_path):
    advisor = StuckAdvisor()
    from advisor.interfaces.api import create_api

    app = create_api(offline_settings(tmp_path), advisor)
    with running_server(app) as url:
        assert httpx.get(f"{url}/healthz").json()["index"] == "missing"  # a fresh data dir, probed once
        chats = [threading.Thread(target=httpx.post, args=(f"{url}/api/chat",), kwargs={"json": {"message": "hi"}, "timeout": 40})
                 for _ in range(48)]  # fmt: skip — more than the 40 threads FastAPI runs sync handlers on
        for chat in chats:
            chat.start()
        time.sleep(1.0)
        started = time.perf_counter()
        health = httpx.get(f"{url}/healthz", timeout=10)
        elapsed = time.perf_counter() - started
        advisor.release.set()
        for chat in chats:
            chat.join(40)
    assert health.status_code == 200 and health.json()["index"] == "missing" and elapsed < 1.0


@pytest.mark.slow
def test_a_frozen_chroma_server_still_gets_an_answer_within_5_s(tmp_path, chunks, chroma_server, embedder, monkeypatch):  # noqa: F811
    from advisor import deps
    from advisor.interfaces.api import create_api

    retriever = Retriever(chunks, store=VectorStore(tmp_path / "unused", chroma_server.url, retry_after_s=30), embedder=embedder)
    assert "dense" in retriever.search("GPU runs too hot", k=1)[0].retrievers
    monkeypatch.setattr(deps, "shared_retriever", lambda: retriever)
    registry = deps.default_registry()
    monkeypatch.setattr(deps, "shared_registry", lambda: registry)
    settings = offline_settings(tmp_path, chroma_url=chroma_server.url)
    app = create_api(settings, deps.build_advisor(settings), registry)
    os.kill(chroma_server.process.pid, signal.SIGSTOP)
    try:
        with running_server(app) as url, httpx.Client(base_url=url, timeout=30, trust_env=False) as client:
            started = time.perf_counter()
            hits = retriever.search("GPU runs too hot and throttles", k=2)
            assert hits and all(h.degraded for h in hits) and time.perf_counter() - started < 2.0
            for question in ("混合精度训练有什么好处？", "Why does my GPU throttle when it gets hot?"):
                started = time.perf_counter()
                response = client.post("/api/chat", json={"message": question})
                assert response.status_code == 200 and response.json()["answer"]
                assert time.perf_counter() - started < 5.0
            health = client.get("/healthz").json()
            assert health["index"] == "unavailable" and not health["index_ready"]
    finally:
        os.kill(chroma_server.process.pid, signal.SIGCONT)
        retriever.close()
