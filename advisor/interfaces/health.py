"""Is the knowledge index there? Asked by /healthz, so the answer is cached."""

from __future__ import annotations

import logging
import threading
import time
from typing import Literal

from advisor.config import Settings

log = logging.getLogger(__name__)
IndexState = Literal["ready", "missing", "unavailable"]


class IndexProbe:
    """Looks for the stored index manifest; "ready" is final, other answers are re-checked after ``recheck_s``."""

    def __init__(self, settings: Settings, recheck_s: float = 30.0):
        self.settings = settings
        self.recheck_s = recheck_s
        self._state: IndexState | None = None
        self._checked_at = 0.0
        self._lock = threading.Lock()

    def state(self) -> IndexState:
        with self._lock:
            stale = time.monotonic() - self._checked_at > self.recheck_s
            if self._state is None or (self._state != "ready" and stale):
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
