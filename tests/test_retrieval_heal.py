"""The vector store heals itself mid-run: lexical answers during the outage, one background re-sync, dense again."""

import itertools
import logging
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from advisor.config import Settings
from advisor.interfaces.health import IndexProbe
from advisor.retrieval.healing import StoreHealer
from advisor.retrieval.search import Retriever
from advisor.retrieval.store import COLLECTION_NAME, StoreUnavailable, SyncReport, VectorStore
from tests.retrieval_support import THERMAL_QUESTION, CountingEmbedder, chroma_server, chunks, embedder, no_chroma_default_embedding  # noqa: F401

pytestmark = pytest.mark.slow
FAST_BACKOFF = (0.2, 1.0)  # seconds: first retry delay, cap (production: 5 s, 60 s)
HEAL_WAIT_S = 30.0


class WatchedSync:
    """Wraps ``store.sync``: counts calls and how many ran at once, and can hold them at a gate."""

    def __init__(self, store: VectorStore, open_gate: bool = True):
        self.real = store.sync
        self.gate = threading.Event()
        if open_gate:
            self.gate.set()
        self.calls = self.active = self.max_active = 0
        self._lock = threading.Lock()

    def __call__(self, *args, **kwargs):
        with self._lock:
            self.calls += 1
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            assert self.gate.wait(HEAL_WAIT_S), "the test never opened the gate"
            return self.real(*args, **kwargs)
        finally:
            with self._lock:
                self.active -= 1


def wait_until(condition, timeout_s: float = HEAL_WAIT_S, every_s: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every_s)
    return condition()


def is_dense(hits) -> bool:
    return bool(hits) and not hits[0].degraded and "dense" in hits[0].retrievers


def is_lexical_fallback(hits) -> bool:
    return bool(hits) and hits[0].doc_id == "thermal" and all(h.degraded and h.retrievers == ["lexical"] for h in hits)


def test_a_deleted_local_store_is_rebuilt_in_the_background_and_health_follows(tmp_path, chunks, embedder, caplog, monkeypatch):
    data_dir = tmp_path / "data"
    store = VectorStore(data_dir, verify_every_s=0)  # check the files on every query: the deletion is seen at once
    retriever = Retriever(chunks, store=store, embedder=embedder, heal_backoff_s=FAST_BACKOFF)
    probe = IndexProbe(Settings.from_env({"ADVISOR_DATA_DIR": str(data_dir)}), live=lambda: retriever)
    assert is_dense(retriever.search(THERMAL_QUESTION, k=2)) and probe.state() == "ready"
    sync = WatchedSync(store, open_gate=False)
    monkeypatch.setattr(store, "sync", sync)

    shutil.rmtree(data_dir)
    with caplog.at_level(logging.INFO, logger="advisor.retrieval"):
        assert is_lexical_fallback(retriever.search(THERMAL_QUESTION, k=2))
        assert retriever.search("卡太热了老是降频", k=1)[0].doc_id == "thermal"
        assert probe.state() == "unavailable"  # not "ready" from before the outage
        sync.gate.set()
        assert wait_until(lambda: retriever.index_state() == "ready")
    assert (data_dir / "chroma" / "chroma.sqlite3").exists()
    assert is_dense(retriever.search(THERMAL_QUESTION, k=2)) and probe.state() == "ready"
    report = retriever.sync_report
    assert sync.calls == 1 and report.embedded == 3 and "deleted" in report.rebuilt_reason
    messages = [(r.levelno, r.getMessage()) for r in caplog.records if r.levelno >= logging.INFO]
    assert [level for level, _ in messages] == [logging.WARNING, logging.INFO]  # one per outage, one per repair
    assert "lexical search only" in messages[0][1] and "dense retrieval resumed" in messages[1][1]
    retriever.close()


def test_a_restarted_chroma_server_gets_dense_search_back_through_the_retry(tmp_path, chunks, chroma_server, embedder):
    # Searches alone would not reconnect for a minute, so only the re-sync worker can bring dense search back.
    store = VectorStore(tmp_path / "local", chroma_server.url, retry_after_s=60)
    retriever = Retriever(chunks, store=store, embedder=embedder, heal_backoff_s=FAST_BACKOFF)
    assert is_dense(retriever.search(THERMAL_QUESTION, k=2))
    sync = WatchedSync(store)
    store.sync = sync

    chroma_server.stop()
    assert is_lexical_fallback(retriever.search(THERMAL_QUESTION, k=2))
    assert retriever.index_state() == "unavailable"
    assert wait_until(lambda: sync.calls >= 2)  # it keeps retrying while the server is down
    chroma_server.start()  # same port and path

    assert wait_until(lambda: is_dense(retriever.search(THERMAL_QUESTION, k=2)))
    # Searches may turn dense a moment before the worker's re-sync returns and clears the outage.
    assert wait_until(lambda: retriever.index_state() == "ready")
    # A connection error wipes nothing: the server still had every vector.
    assert (retriever.sync_report.embedded, retriever.sync_report.unchanged) == (0, 3)
    assert sync.max_active == 1 and not (tmp_path / "local").exists()
    retriever.close()


def test_a_deleted_collection_is_re_created_without_wiping_the_store(tmp_path, chunks, embedder):
    retriever = Retriever(chunks, store=VectorStore(tmp_path / "data"), embedder=embedder, heal_backoff_s=FAST_BACKOFF)
    assert is_dense(retriever.search(THERMAL_QUESTION, k=2))
    retriever.store.client().delete_collection(COLLECTION_NAME)  # e.g. another tool dropped it

    assert is_lexical_fallback(retriever.search(THERMAL_QUESTION, k=2))
    assert wait_until(lambda: retriever.index_state() == "ready")
    assert (retriever.sync_report.embedded, retriever.sync_report.rebuilt_reason) == (3, None)
    assert is_dense(retriever.search(THERMAL_QUESTION, k=2))
    retriever.close()


def test_concurrent_searches_during_an_outage_start_a_single_rebuild(tmp_path, chunks, embedder):
    spy = CountingEmbedder(embedder)
    data_dir = tmp_path / "data"
    store = VectorStore(data_dir, verify_every_s=0)
    retriever = Retriever(chunks, store=store, embedder=spy, heal_backoff_s=FAST_BACKOFF)
    sync = WatchedSync(store, open_gate=False)
    store.sync = sync
    shutil.rmtree(data_dir)
    spy.encoded.clear()

    start = threading.Barrier(16)

    def search(_):
        start.wait()
        return retriever.search(THERMAL_QUESTION, k=2)

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(search, range(16)))
    assert all(is_lexical_fallback(hits) for hits in answers)
    assert wait_until(lambda: sync.calls == 1, timeout_s=5)
    time.sleep(0.3)  # longer than the first back-off: a second worker would have called sync by now
    assert sync.calls == 1 and spy.encoded == []  # no query vectors computed for a store nobody can search

    sync.gate.set()
    assert wait_until(lambda: retriever.index_state() == "ready")
    assert (sync.calls, sync.max_active) == (1, 1)
    english = sorted(c.embedding_text() for c in chunks if c.language == "en")
    assert sorted(spy.encoded) == english  # each chunk embedded once, by the one rebuild
    assert is_dense(retriever.search(THERMAL_QUESTION, k=2))
    retriever.close()


def test_healthy_searches_do_not_touch_the_disk(tmp_path, chunks, embedder, monkeypatch):
    store = VectorStore(tmp_path / "data")  # default: the files are checked at most once a second
    retriever = Retriever(chunks, store=store, embedder=embedder)
    checks = []
    real_check = store._database_id
    monkeypatch.setattr(store, "_database_id", lambda: checks.append(1) or real_check())
    started = time.monotonic()
    for _ in range(20):
        assert is_dense(retriever.search(THERMAL_QUESTION, k=2))
    assert len(checks) <= 1 + (time.monotonic() - started) / store.verify_every_s
    retriever.close()


def test_the_health_probe_rechecks_a_ready_index_but_only_every_recheck_s(tmp_path, chunks, embedder):
    data_dir = tmp_path / "data"
    store = VectorStore(data_dir)
    store.sync(chunks, embedder)
    store.close()
    settings = Settings.from_env({"ADVISOR_DATA_DIR": str(data_dir)})
    cached = IndexProbe(settings, recheck_s=60, live=lambda: None)
    rechecking = IndexProbe(settings, recheck_s=0.2, live=lambda: None)
    assert cached.state() == rechecking.state() == "ready"

    shutil.rmtree(data_dir)
    assert cached.state() == "ready"  # within recheck_s the store is not asked again
    time.sleep(0.3)
    assert rechecking.state() == "missing"  # "ready" is not forever


def test_the_worker_backs_off_exponentially_up_to_the_cap_and_stops_on_success():
    attempts, healed = [], []

    def resync():
        attempts.append(time.monotonic())
        if len(attempts) < 6:
            raise StoreUnavailable("server down")
        return SyncReport(total=1, embedded=0, unchanged=1, deleted=0)

    healer = StoreHealer(resync, healed.append, first_delay_s=0.05, max_delay_s=0.2)
    assert healer.schedule()
    assert not healer.schedule()  # no second worker: the running one syncs once more when it is done
    assert wait_until(lambda: not healer.running, timeout_s=10, every_s=0.02)
    gaps = [later - earlier for earlier, later in itertools.pairwise(attempts)]
    assert all(gap >= want * 0.95 for gap, want in zip(gaps, [0.05, 0.1, 0.2, 0.2, 0.2]))  # doubling, capped
    assert len(attempts) == 7 and len(healed) == 2
    healer.close()
    assert not healer.schedule()  # a closed healer (retriever shut down) starts nothing
