"""More than one core: answers are computed in N worker processes behind one HTTP process.

An answer costs tens of milliseconds of CPU (embedding the query dominates) and one Python process
uses one core. The obvious fix, N copies of the whole server on one port, breaks the Gradio UI:
its queue and per-session state live in the process that served the page, and a browser's next
request may land on another copy. So `gpu-advisor serve --workers N` keeps one HTTP process (UI,
API, one rate limiter, one sign-in policy) and sends every chat answer — and every
knowledge search — to a pool of N processes, each with its own planner, embedder and retriever on
a shared Chroma server. Answers are stateless (message + history in, response out), so any worker
can take any request.
"""

from __future__ import annotations

import fcntl
import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from queue import Empty
from typing import Any

from advisor.registry import Registry, UnknownToolError
from knowledge.bilingual import AdvisorError

log = logging.getLogger(__name__)
_advisor = None  # per worker process
_registry: Registry | None = None


# --- inside a worker ------------------------------------------------------------------------
def _init_worker(env: Mapping[str, str], ready) -> None:
    from advisor.retrieval.chroma_server import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole group: the parent shuts us down
    die_with_parent()  # and if the parent is killed outright, we go too
    os.environ.update(env)
    global _advisor, _registry
    from advisor.config import Settings
    from advisor.deps import build_advisor, shared_registry
    from advisor.retrieval.embeddings import get_embedder
    from advisor.retrieval.search import Retriever
    from knowledge.catalog import Catalog
    from tools.troubleshoot.rulebook import RuleBook

    settings = Settings.from_env()
    _registry = shared_registry()
    _advisor = build_advisor(settings)
    for kind in (Catalog, RuleBook, Retriever):
        try:
            if kind is Retriever:  # building it syncs the index: one worker at a time, so only the first embeds
                get_embedder(settings.embedding_model)  # the slow part, outside the lock
                with _index_lock(Path(settings.data_dir)):
                    _registry.dependency(kind)
            else:
                _registry.dependency(kind)
        except Exception as exc:  # the first question will report it; starting must not fail
            log.warning("worker %d could not preload %s: %s", os.getpid(), kind.__name__, type(exc).__name__)
    ready.put(os.getpid())


@contextmanager
def _index_lock(data_dir: Path):
    data_dir.mkdir(parents=True, exist_ok=True)
    with (data_dir / "index-sync.lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _answer(message: str, history: Sequence, options: Any = None) -> Any:
    from advisor.service import answer_with

    return answer_with(_advisor, message, history, options)


def _run_tool(name: str, args: Any) -> tuple[str, Any]:
    try:
        return "ok", _registry.run(name, args)
    except AdvisorError as exc:  # exceptions with custom constructors do not survive pickling: send the data
        return ("unknown_tool" if isinstance(exc, UnknownToolError) else "error"), exc.to_dict()


# --- in the HTTP process ----------------------------------------------------------------------
class AnswerPool:
    """A process pool that is rebuilt once if a worker dies (a broken pool refuses every later task)."""

    def __init__(self, workers: int, env: Mapping[str, str]):
        self.workers = workers
        self.env = dict(env)
        self._lock = threading.Lock()
        self._context = multiprocessing.get_context("spawn")  # never fork a process that runs threads
        self._executor = self._new_executor()

    def _new_executor(self) -> ProcessPoolExecutor:
        self._ready = self._context.Queue()
        return ProcessPoolExecutor(self.workers, mp_context=self._context, initializer=_init_worker, initargs=(self.env, self._ready))

    def spawn(self) -> None:
        """Start every worker process (they load their models in the background)."""
        for _ in range(self.workers):  # while none is idle, each submit spawns another process
            self._executor.submit(os.getpid)

    def wait_ready(self, timeout_s: float = 300.0, echo=print) -> list[int]:
        """Wait until each worker has loaded its models; returns their pids."""
        pids = []
        while len(pids) < self.workers:
            try:
                pids.append(self._ready.get(timeout=timeout_s))
            except Empty:
                raise RuntimeError(f"only {len(pids)} of {self.workers} answer workers started within {timeout_s:.0f} s") from None
            echo(f"Answer worker {len(pids)}/{self.workers} ready (pid {pids[-1]}).")
        return pids

    def call(self, function, *args):
        executor = self._executor
        try:
            return executor.submit(function, *args).result()
        except BrokenProcessPool:
            with self._lock:
                if self._executor is executor:
                    log.error("An answer worker died; starting a new pool of %d", self.workers)
                    executor.shutdown(wait=False, cancel_futures=True)
                    self._executor = self._new_executor()
            return self._executor.submit(function, *args).result()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


class PooledAdvisor:
    """``Advisor.answer`` on the pool; anything else an interface asks of an advisor is served by a
    local one built on first use (nothing heavy loads unless it is needed)."""

    def __init__(self, pool: AnswerPool, settings):
        self.pool = pool
        self.settings = settings
        self._local = None
        self._local_lock = threading.Lock()

    @property
    def mode(self) -> str:
        return "llm" if self.settings.llm is not None else "offline"

    def answer(self, message: str, history: Sequence = (), options=None):
        """The answer from a worker; ``options`` (plain data) travel along, progress listeners cannot."""
        return self.pool.call(_answer, message, list(history), options)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        with self._local_lock:
            if self._local is None:
                from advisor.deps import build_advisor

                self._local = build_advisor(self.settings)
        return getattr(self._local, name)


class PooledRegistry(Registry):
    """The shared registry, except that tools needing the retriever (search_knowledge) run on the pool,
    so the HTTP process never loads an embedding model."""

    def __init__(self, base: Registry, pool: AnswerPool):
        self.__dict__.update(base.__dict__)
        self.pool = pool

    def run(self, name: str, args):
        from advisor.retrieval.search import Retriever

        spec = self.spec(name)
        if Retriever not in spec.dependencies:
            return super().run(name, args)
        status, value = self.pool.call(_run_tool, name, args if isinstance(args, Mapping) else args.model_dump())
        if status == "ok":
            return value
        error = (UnknownToolError if status == "unknown_tool" else AdvisorError)(value["code"], value["en"], value["zh"], value["suggestions"])
        raise error
