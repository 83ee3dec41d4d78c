"""The dense half of retrieval: chunk vectors in Chroma, kept in step with the corpus.

Vectors are always computed by us and passed explicitly, so Chroma never reaches for its
default (downloading) embedding function. The collection's metadata is the index manifest
(format version + embedding model id): a mismatch, or a local store Chroma cannot open,
is wiped and rebuilt with a logged warning instead of crashing the app. A store whose files
vanish or whose collection disappears while the app runs is marked lost: queries refuse it at
once (callers answer lexically) until a sync re-creates what is missing.

Nothing waits on a Chroma server without a limit: every HTTP call it makes has a timeout
(ADVISOR_CHROMA_TIMEOUT, which Chroma's own client lacks), and a query gives up after
``QUERY_DEADLINE_S`` (the chat then answers lexically) and leaves the store alone for
``retry_after_s``. A frozen server costs one chat at most 1.5 s, then none until the retry.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import urlparse

import chromadb
from chromadb.api.shared_system_client import SharedSystemClient
from chromadb.errors import NotFoundError
from pydantic import BaseModel, Field

from advisor.retrieval.chroma_http import DEFAULT_HTTP_TIMEOUT_S, QUERY_DEADLINE_S, http_client, with_deadline
from advisor.retrieval.documents import Chunk
from advisor.retrieval.embeddings import Embedder

log = logging.getLogger(__name__)

INDEX_FORMAT_VERSION = 1
COLLECTION_NAME = "advisor-knowledge"
BATCH_SIZE = 32
Progress = Callable[[int, int], None]
# Chroma shares one System per local path and stops it when the last client on it closes. A
# client opened while another closes can get the stopped System ("RustBindingsAPI object has no
# attribute bindings"): half the time when /healthz probed while the retriever first synced,
# which then wiped a healthy index. Opening and closing local clients are therefore serialised.
_LOCAL_OPEN_CLOSE = threading.Lock()
# A query that finds a rebuild holding the store gives up after this long and answers lexically.
QUERY_LOCK_WAIT_S = 2.0


class StoreUnavailable(RuntimeError):
    """Chroma cannot be reached (server down) or used right now; lexical search still works."""


class EmbeddingFailed(RuntimeError):
    """The model failed while indexing: a problem with the embedder, not with the store (never wiped for it)."""


class SyncReport(BaseModel):
    """What an index build did."""

    total: int = Field(description="Chunks the embedder indexes (English only for the default English model).")
    embedded: int = Field(description="Chunks (re-)embedded because they were new or changed.")
    reused: int = Field(0, description="Changed ids whose identical text was already embedded under another id.")
    unchanged: int = Field(description="Chunks already stored with the same content hash.")
    deleted: int = Field(description="Stored chunks no longer in the corpus.")
    rebuilt_reason: str | None = Field(None, description="Why the store was wiped first, if it was.")
    seconds: float = 0.0


class VectorStore:
    """A Chroma collection, local (``PersistentClient`` under ``data_dir``) or remote (``chroma_url``)."""

    def __init__(
        self, data_dir: Path, chroma_url: str | None = None, retry_after_s: float = 5.0, verify_every_s: float = 1.0,
        timeout_s: float = DEFAULT_HTTP_TIMEOUT_S,
    ):  # fmt: skip
        self.path = Path(data_dir) / "chroma"
        self.url = chroma_url
        self.retry_after_s = retry_after_s
        self.timeout_s = timeout_s
        # Chroma keeps answering from deleted files it still has open, so a local store is checked
        # on disk, but at most this often: the hot path stays one clock read per query.
        self.verify_every_s = verify_every_s
        self._client = None
        self._collection = None
        self._failed_at: float | None = None
        self._wiped_because: str | None = None  # reported by the next sync
        self._lost: str | None = None  # why the index is gone; cleared by the sync that re-creates it
        self._file_id: tuple[int, int] | None = None  # (device, inode) of the database we opened
        self._verified_at = 0.0
        self._lock = threading.RLock()

    @property
    def location(self) -> str:
        return self.url or str(self.path)

    # --- connection -------------------------------------------------------------------
    def _connect(self):
        settings = chromadb.Settings(anonymized_telemetry=False)
        if not self.url:
            self.path.mkdir(parents=True, exist_ok=True)
            with _LOCAL_OPEN_CLOSE:
                return chromadb.PersistentClient(path=str(self.path), settings=settings)
        parsed = urlparse(self.url if "//" in self.url else f"http://{self.url}")
        host, ssl = parsed.hostname or "127.0.0.1", parsed.scheme == "https"
        return http_client(host, parsed.port or (443 if ssl else 8000), ssl, settings, self.timeout_s)

    def client(self, repair: bool = False):
        """The Chroma client. Only index builds pass ``repair``: a local store Chroma cannot open is
        then wiped; readers (queries, health checks) get ``StoreUnavailable`` and leave it alone."""
        # Readers never queue behind a long rebuild: they fall back to lexical search instead.
        if not self._lock.acquire(timeout=-1 if repair else QUERY_LOCK_WAIT_S):
            raise StoreUnavailable(f"the index at {self.location} is being synchronised")
        try:
            if self._client is not None:
                return self._client
            # Only a remote server gets a back-off: reconnecting to it can take seconds, a local open
            # does not. Builds (the re-sync worker has its own back-off) always try.
            if not repair and self._backing_off():
                raise StoreUnavailable(f"Chroma at {self.location} was unreachable moments ago")
            try:
                self._client = self._connect()
            except Exception as exc:
                if self.url or not repair:
                    self._failed_at = time.monotonic() if self.url else None
                    raise StoreUnavailable(f"cannot open Chroma at {self.location}: {exc}") from exc
                if _permission_problem(self.path, exc):  # not corruption: wiping would not help and loses the index
                    raise StoreUnavailable(f"the index at {self.path} is not readable and writable by this process "
                                           f"(permission denied); fix its owner or mode, it was left as it is") from exc  # fmt: skip
                self._wipe_local(f"Chroma cannot open it: {exc}")
                try:
                    self._client = self._connect()
                except Exception as again:  # e.g. the directory is not writable: nothing more to try
                    raise StoreUnavailable(f"cannot create a Chroma store at {self.path}: {again}") from again
            self._failed_at = None
            if not self.url:
                self._file_id, self._verified_at = self._database_id(), time.monotonic()
            return self._client
        finally:
            self._lock.release()

    def _backing_off(self) -> bool:
        return self._failed_at is not None and time.monotonic() - self._failed_at < self.retry_after_s

    def _database_id(self) -> tuple[int, int] | None:
        try:
            info = os.stat(self.path / "chroma.sqlite3")
        except OSError:
            return None
        return info.st_dev, info.st_ino

    def check_usable(self) -> None:
        """Raise ``StoreUnavailable`` when the store is known to be unusable, without touching Chroma.

        Local stores are also checked on disk (one ``stat``, at most every ``verify_every_s``):
        a deleted or replaced database marks the index lost until the next sync."""
        if self._lost:
            raise StoreUnavailable(f"the index at {self.location} is gone ({self._lost}) and must be re-synced")
        if self._failed_at is not None and self._backing_off():
            raise StoreUnavailable(f"Chroma at {self.location} was unreachable moments ago")
        if self.url or self._file_id is None:
            return
        now = time.monotonic()
        if now - self._verified_at < self.verify_every_s:
            return
        self._verified_at = now  # unlocked on purpose: a race costs at most one extra stat
        if self._database_id() != self._file_id:
            self._lost = "its files were deleted or replaced"
            raise StoreUnavailable(f"the index at {self.path} is gone ({self._lost}) and must be re-synced")

    def _forget(self) -> None:
        with self._lock:
            if self._client is not None:
                try:
                    with _LOCAL_OPEN_CLOSE:
                        self._client.close()
                except Exception:  # closing a broken client must not mask the original problem
                    pass
            self._client = self._collection = None

    def _wipe_local(self, reason: str) -> None:
        log.warning("Vector store at %s is unusable (%s); wiping it and rebuilding the index.", self.path, reason)
        self._wiped_because = reason
        self._release_local()
        shutil.rmtree(self.path, ignore_errors=True)

    def _release_local(self) -> None:
        self._forget()
        self._file_id = None
        # Chroma caches one System per path for the whole process; drop it so a fresh client does
        # not reuse connections to files that are gone (or that we are about to delete).
        with _LOCAL_OPEN_CLOSE:
            system = SharedSystemClient._identifier_to_system.pop(str(self.path), None)
            SharedSystemClient._identifier_to_refcount.pop(str(self.path), None)
            if system is not None:
                try:
                    system.stop()
                except Exception:
                    pass

    def _recover_lost(self) -> None:
        """Before a sync: let go of a vanished local store; leftovers without their database are unreadable."""
        if self.url:
            return
        self._release_local()
        if not (self.path / "chroma.sqlite3").exists():
            self._wiped_because = self._lost
            shutil.rmtree(self.path, ignore_errors=True)

    # --- manifest ---------------------------------------------------------------------
    @staticmethod
    def manifest_for(embedder: Embedder) -> dict:
        return {"format_version": INDEX_FORMAT_VERSION, "embedding_model": embedder.model_id, "dimension": embedder.dimension}

    def _open_collection(self, embedder: Embedder) -> tuple[object, str | None]:
        """The collection, recreated when its manifest does not match; returns (collection, reason)."""
        client = self.client(repair=True)
        wanted = self.manifest_for(embedder)
        reason = None
        try:
            collection = client.get_collection(COLLECTION_NAME, embedding_function=None)
        except NotFoundError:
            collection = None
        if collection is not None:
            found = {key: (collection.metadata or {}).get(key) for key in wanted}
            if found != wanted:
                reason = f"index manifest {found} does not match {wanted}"
                log.warning("Vector store at %s: %s; rebuilding the index.", self.location, reason)
                client.delete_collection(COLLECTION_NAME)
                collection = None
        if collection is None:
            collection = client.create_collection(
                COLLECTION_NAME, embedding_function=None, metadata=wanted, configuration={"hnsw": {"space": "cosine"}}
            )
        with self._lock:
            self._collection = collection
        return collection, reason

    def manifest(self) -> dict | None:
        """The stored manifest, or None when there is no index yet."""
        if not self.url and not (self.path / "chroma.sqlite3").exists():
            return None  # do not create an empty store just by looking
        try:
            return dict(self.client().get_collection(COLLECTION_NAME, embedding_function=None).metadata or {})
        except NotFoundError:
            return None

    def drop(self) -> None:
        """Delete the collection, so the next sync embeds every chunk again."""
        with self._lock:
            client = self.client(repair=True)
            try:
                client.delete_collection(COLLECTION_NAME)
            except NotFoundError:
                pass
            self._collection = None

    # --- build ------------------------------------------------------------------------
    def sync(self, chunks: Sequence[Chunk], embedder: Embedder, progress: Progress | None = None) -> SyncReport:
        """Make the store hold exactly the ``chunks`` the embedder reads, embedding only new or changed ones."""
        started = time.perf_counter()
        with self._lock:
            if self._lost:
                self._recover_lost()
            try:
                report = self._sync(chunks, embedder, progress)
            except (StoreUnavailable, EmbeddingFailed):
                raise
            except Exception as exc:  # whatever Chroma raised: its server or its files are the problem
                if self.url:
                    self._forget()
                    self._failed_at = time.monotonic()
                    raise StoreUnavailable(f"Chroma at {self.url} failed during indexing: {exc}") from exc
                # A local store that opens but cannot be read (damaged segment files) is rebuilt.
                self._wipe_local(f"reading it failed: {type(exc).__name__}: {exc}")
                try:
                    report = self._sync(chunks, embedder, progress)
                except (StoreUnavailable, EmbeddingFailed):
                    raise
                except Exception as again:
                    self._forget()
                    raise StoreUnavailable(f"rebuilding the store at {self.path} failed: {again}") from again
            report.rebuilt_reason = self._wiped_because or report.rebuilt_reason
            self._wiped_because = self._lost = None
        report.seconds = round(time.perf_counter() - started, 3)
        return report

    def _sync(self, chunks: Sequence[Chunk], embedder: Embedder, progress: Progress | None) -> SyncReport:
        collection, reason = self._open_collection(embedder)
        stored_meta = collection.get(include=["metadatas"])
        stored = {i: (m or {}).get("hash") for i, m in zip(stored_meta["ids"], stored_meta["metadatas"] or [])}
        wanted = {chunk.chunk_id: chunk for chunk in chunks if chunk.language in embedder.languages}
        changed = [c for i, c in wanted.items() if stored.get(i) != c.content_hash()]
        stale = [i for i in stored if i not in wanted]

        # Text that moved to a new id (a section inserted above it) keeps its vector.
        id_by_hash = {h: i for i, h in stored.items() if h}
        movable = [c for c in changed if c.content_hash() in id_by_hash]
        if movable:
            found = collection.get(ids=[id_by_hash[c.content_hash()] for c in movable], include=["embeddings"])
            vector_by_id = dict(zip(found["ids"], found["embeddings"]))
            movable = [c for c in movable if id_by_hash[c.content_hash()] in vector_by_id]
            if movable:
                self._upsert(collection, movable, [vector_by_id[id_by_hash[c.content_hash()]] for c in movable])
        moved = {c.chunk_id for c in movable}
        to_embed = [c for c in changed if c.chunk_id not in moved]

        if progress:
            progress(0, len(to_embed))
        for start in range(0, len(to_embed), BATCH_SIZE):
            batch = to_embed[start : start + BATCH_SIZE]
            try:
                vectors = embedder.encode([c.embedding_text() for c in batch])
            except Exception as exc:
                raise EmbeddingFailed(f"embedding chunks for the index failed: {type(exc).__name__}: {exc}") from exc
            self._upsert(collection, batch, vectors)
            if progress:
                progress(start + len(batch), len(to_embed))
        if stale:
            collection.delete(ids=stale)
        return SyncReport(
            total=len(wanted), embedded=len(to_embed), reused=len(movable),
            unchanged=len(wanted) - len(changed), deleted=len(stale), rebuilt_reason=reason,
        )

    @staticmethod
    def _upsert(collection, chunks: Sequence[Chunk], vectors) -> None:
        collection.upsert(
            ids=[c.chunk_id for c in chunks],
            embeddings=[list(map(float, v)) for v in vectors],
            metadatas=[{"doc_id": c.doc_id, "language": c.language, "hash": c.content_hash()} for c in chunks],
            documents=[c.embedding_text() for c in chunks],
        )

    # --- query ------------------------------------------------------------------------
    def _remote(self, call: Callable, *args, what: str):
        """Run ``call`` with a deadline; past it, stop waiting and leave the server alone for a while."""
        try:
            return with_deadline(QUERY_DEADLINE_S, call, *args)
        except TimeoutError:
            self._failed_at = time.monotonic()
            raise StoreUnavailable(f"Chroma at {self.url} did not answer {what} within {QUERY_DEADLINE_S} s") from None

    def ping(self) -> None:
        """Raise ``StoreUnavailable`` unless the store answers a heartbeat within the query deadline."""
        self.check_usable()
        if not self.url:
            return
        try:
            self._remote(lambda: self.client().heartbeat(), what="a heartbeat")
        except StoreUnavailable:
            raise
        except Exception as exc:
            self._forget()
            self._failed_at = time.monotonic()
            raise StoreUnavailable(f"Chroma at {self.url} failed a heartbeat: {type(exc).__name__}") from exc

    def query(self, vector, n: int) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) best first; raises ``StoreUnavailable`` if Chroma fails or stalls."""
        self.check_usable()
        if self.url:
            return self._remote(self._query, vector, n, what="a query")
        return self._query(vector, n)

    def _query(self, vector, n: int) -> list[tuple[str, float]]:
        try:
            collection = self._collection
            if collection is None:
                collection = self.client().get_collection(COLLECTION_NAME, embedding_function=None)
                with self._lock:
                    self._collection = collection
            result = collection.query(query_embeddings=[list(map(float, vector))], n_results=n, include=["distances"])
        except StoreUnavailable:
            raise
        except NotFoundError as exc:  # the collection was deleted: the store works, the index must be re-created
            self._lost = "its collection is missing"
            self._forget()
            raise StoreUnavailable(f"the index at {self.location} is gone ({self._lost}) and must be re-synced") from exc
        except Exception as exc:
            # Reconnect on a later query: the server may come back, or the index be rebuilt.
            self._forget()
            self._failed_at = time.monotonic() if self.url else None
            raise StoreUnavailable(f"vector search at {self.location} failed: {type(exc).__name__}: {exc}") from exc
        self._failed_at = None
        return [(i, 1.0 - d) for i, d in zip(result["ids"][0], result["distances"][0])]

    def close(self) -> None:
        self._forget()


def _permission_problem(path: Path, exc: BaseException) -> bool:
    """Did opening fail because this process may not read or write the store (rather than a broken store)?"""
    chain = [exc, exc.__cause__, exc.__context__]
    if any(isinstance(e, PermissionError) for e in chain if e is not None):
        return True
    if any(word in str(exc).lower() for word in ("readonly database", "read-only", "permission denied")):
        return True
    files = [path, *path.glob("*.sqlite3")] if path.exists() else []
    return any(not os.access(f, os.R_OK | os.W_OK) for f in files)
