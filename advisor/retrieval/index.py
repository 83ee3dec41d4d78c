"""Building the vector index: `gpu-advisor index` (with a progress bar) and `ensure_index()` at app start."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from advisor.config import Settings
from advisor.retrieval.corpus import load_corpus
from advisor.retrieval.embeddings import get_embedder
from advisor.retrieval.store import Progress, SyncReport, VectorStore


def build_index(
    data_dir: Path | None = None, progress: Progress | None = None, *, force: bool = False, settings: Settings | None = None
) -> SyncReport:
    """Bring the index up to date with the docs and catalog; ``force`` re-embeds everything.

    Incremental by default: only new or changed chunks are embedded and removed ones deleted.
    ``progress(done, total)`` is called as embedding batches finish. Raises ``StoreUnavailable``
    when a remote Chroma (``ADVISOR_CHROMA_URL``) cannot be reached.
    """
    settings = settings or Settings.from_env()
    store = VectorStore(data_dir or settings.data_dir, settings.chroma_url, timeout_s=settings.chroma_timeout_s)
    try:
        chunks = load_corpus()
        embedder = get_embedder(settings.embedding_model)
        if force:
            store.drop()
        return store.sync(chunks, embedder, progress)
    finally:
        store.close()


def ensure_index(data_dir: Path | None = None, *, settings: Settings | None = None) -> SyncReport:
    """App start: build the index if it is missing, stale, corrupted or from another model."""
    return build_index(data_dir, settings=settings)


@contextlib.contextmanager
def progress_bar(description: str = "Embedding knowledge docs") -> Iterator[Progress]:
    """A rich progress bar usable as ``build_index(progress=...)``; shows nothing if all is up to date."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
    from rich.progress import Progress as RichProgress

    with RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()) as bar:
        task = bar.add_task(description, total=None, visible=False)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, visible=total > 0)

        yield update
