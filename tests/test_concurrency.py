"""One advisor serves many requests at once: answers must not depend on what else is running.

The server answers chats in a threadpool, so these run the real advisor from many threads at
the same time and compare with the same questions asked one by one.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from advisor.contract import ChatTurn
from advisor.interfaces.guards import SlidingWindowLimiter, client_address_key
from advisor.registry import Registry, ToolSpec
from advisor.retrieval.store import COLLECTION_NAME, VectorStore
from benchmarks.load_mix import SCENARIOS, history_questions
from knowledge.catalog import Catalog, load_catalog
from tests.retrieval_support import embedder  # noqa: F401
from tools.gpu_specs import compare_gpus

THREADS = 16


def _conversations(advisor) -> list[tuple[str, list[ChatTurn]]]:
    """The load test's questions, follow-ups carrying the real earlier answers."""
    earlier = {q: advisor.answer(q, []).answer for q in history_questions()}
    conversations = []
    for scenario in SCENARIOS:
        history = []
        for question in scenario.history:
            history += [ChatTurn(role="user", content=question), ChatTurn(role="assistant", content=earlier[question])]
        conversations.append((scenario.question, history))
    return conversations


def test_concurrent_answers_equal_sequential_answers(offline_advisor):
    conversations = _conversations(offline_advisor)
    sequential = [offline_advisor.answer(q, h).model_dump() for q, h in conversations]
    jobs = [i % len(conversations) for i in range(THREADS * 4)]
    with ThreadPoolExecutor(THREADS) as pool:
        concurrent = list(pool.map(lambda i: offline_advisor.answer(*conversations[i]).model_dump(), jobs))
    for index, answer in zip(jobs, concurrent):
        assert answer == sequential[index], conversations[index][0]


def test_answering_leaves_the_shared_catalog_untouched(offline_advisor):
    catalog = load_catalog()

    def snapshot() -> list[dict]:
        return [row.model_dump(mode="json") for row in [*catalog.gpus, *catalog.models]]

    before = snapshot()
    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(lambda c: offline_advisor.answer(*c), _conversations(offline_advisor) * 2))
    assert snapshot() == before


def test_a_dependency_is_built_once_under_concurrent_first_use():
    # What the retriever (Chroma sync) and the rule book (rule compilation) rely on: a burst of
    # first requests must not run the provider once per thread.
    builds = []

    def slow_catalog() -> Catalog:
        builds.append(threading.get_ident())
        time.sleep(0.05)  # wide enough for every thread to arrive while the first build runs
        return load_catalog()

    registry = Registry([ToolSpec("compare_gpus", compare_gpus, "specs", "参数")], {Catalog: slow_catalog})
    start = threading.Barrier(THREADS)

    def first_call(_):
        start.wait()
        return registry.run("compare_gpus", {"gpus": ["H100"]}).model_dump()

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(first_call, range(THREADS)))
    assert len(builds) == 1
    assert all(r == results[0] for r in results)


def test_a_failed_dependency_build_is_retried():
    attempts = []

    def flaky() -> Catalog:
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("disk hiccup")
        return load_catalog()

    registry = Registry([ToolSpec("compare_gpus", compare_gpus, "specs", "参数")], {Catalog: flaky})
    assert registry.call("compare_gpus", {"gpus": ["H100"]}).error["code"] == "internal_error"
    assert registry.call("compare_gpus", {"gpus": ["H100"]}).ok
    assert len(attempts) == 2


@pytest.mark.slow  # loads the embedding model
def test_the_embedder_runs_every_encode_on_one_thread(embedder, monkeypatch):
    # torch keeps scratch memory per calling thread: encodes straight from the server's
    # threadpool grew the process by ~240 MB under load.
    model_threads = set()
    real_encode = embedder._model.encode

    def recording_encode(*args, **kwargs):
        model_threads.add(threading.get_ident())
        return real_encode(*args, **kwargs)

    monkeypatch.setattr(embedder._model, "encode", recording_encode)
    texts = [f"why is GPU {i} throttling at 90 degrees" for i in range(THREADS)]
    sequential = [embedder.encode([t])[0] for t in texts]
    start = threading.Barrier(THREADS)

    def encode_at_once(text):
        start.wait()
        return embedder.encode([text])[0]

    with ThreadPoolExecutor(THREADS) as pool:
        concurrent = list(pool.map(encode_at_once, texts))
    assert len(model_threads) == 1 and threading.get_ident() not in model_threads
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(sequential, concurrent))


def test_a_health_probe_closing_its_client_never_breaks_a_first_open_of_the_same_store(tmp_path):
    # /healthz opens and closes its own client on the index path; Chroma shares one System per
    # path. Unserialised, the retriever's first open failed half the time and the index was wiped.
    failures = []
    for attempt in range(20):
        data_dir = tmp_path / str(attempt)
        seed = VectorStore(data_dir)
        seed.client().create_collection(COLLECTION_NAME, embedding_function=None).upsert(ids=["a"], embeddings=[[0.6, 0.8]])
        seed.close()
        start = threading.Barrier(2)

        def probe():
            start.wait()
            store = VectorStore(data_dir)
            store.manifest()
            store.close()

        def first_query():
            start.wait()
            store = VectorStore(data_dir)
            try:
                assert store.query([0.6, 0.8], 1)[0][0] == "a"
            except Exception as exc:  # noqa: BLE001 - any failure here is the race
                failures.append(f"{type(exc).__name__}: {exc}")
            finally:
                store.close()

        threads = [threading.Thread(target=probe), threading.Thread(target=first_query)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []


# --- the rate limiter's table of clients ----------------------------------------------------
def test_rate_limiter_table_stays_bounded_under_a_flood_of_addresses():
    now = [0.0]
    limiter = SlidingWindowLimiter(5, window_s=60, clock=lambda: now[0], max_clients=100)
    for i in range(1000):
        limiter.hit(f"ip:10.0.{i // 256}.{i % 256}")
    assert len(limiter) == 100
    now[0] = 61.0  # everybody went quiet: one new request forgets them all
    assert limiter.hit("ip:192.0.2.1") is None
    assert len(limiter) == 1


def test_rate_limiter_keeps_counting_a_busy_client_while_others_come_and_go():
    now = [0.0]
    limiter = SlidingWindowLimiter(3, window_s=60, clock=lambda: now[0], max_clients=100)
    for i in range(3):
        assert limiter.hit("busy") is None
        for j in range(40):  # a stream of one-off clients between the busy client's requests
            limiter.hit(f"one-off-{i}-{j}")
    assert limiter.hit("busy") is not None  # still over its limit: its history was not evicted


def test_ipv6_clients_are_limited_per_64_network():
    assert client_address_key("2001:db8:1:2::1") == client_address_key("2001:db8:1:2:ffff::9")
    assert client_address_key("2001:db8:1:2::1") != client_address_key("2001:db8:1:3::1")
    assert client_address_key("::ffff:192.0.2.7") == client_address_key("192.0.2.7") == "ip:192.0.2.7"
    assert client_address_key("testclient") == "ip:testclient"
