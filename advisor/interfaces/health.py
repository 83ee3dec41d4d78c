"""Is the knowledge index there? Asked by /healthz, so the answer is cheap.

When this process already runs a retriever on the configured store, its own view is reported
(no Chroma call: it knows about outages from failed searches and a throttled file check). Otherwise
the stored manifest is probed, at most once per ``recheck_s`` whatever the answer: an index that
was ready can vanish later, and a missing one can be rebuilt.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from advisor.config import Settings

log = logging.getLogger(__name__)
IndexState = Literal["ready", "missing", "unavailable"]


def running_retriever():
    """The process's shared retriever if one was built; never imports or builds the retrieval stack."""
    tool = sys.modules.get("advisor.retrieval.tool")  # not imported yet means no retriever exists
    return tool.current_retriever() if tool is not None else None


class IndexProbe:
    def __init__(self, settings: Settings, recheck_s: float = 30.0, live: Callable[[], object | None] = running_retriever):
        self.settings = settings
        self.recheck_s = recheck_s
        self.live = live
        self._location = settings.chroma_url or str(Path(settings.data_dir) / "chroma")
        self._state: IndexState | None = None
        self._checked_at = 0.0
        self._lock = threading.Lock()

    def state(self) -> IndexState:
        retriever = self.live()
        if retriever is not None and retriever.store.location == self._location:
            return retriever.index_state()
        with self._lock:
            if self._state is None or time.monotonic() - self._checked_at > self.recheck_s:
                self._state = self._probe()
                self._checked_at = time.monotonic()
            return self._state

    def _probe(self) -> IndexState:
        from advisor.retrieval.store import VectorStore

        store = VectorStore(self.settings.data_dir, self.settings.chroma_url)
        try:
            return "ready" if store.manifest() else "missing"
        except Exception as exc:  # Chroma down or unreadable: report it, never fail the health check
            log.warning("Knowledge index unavailable: %s", type(exc).__name__)
            return "unavailable"
        finally:
            store.close()
