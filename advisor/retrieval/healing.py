"""One background worker that re-syncs the vector store after an outage, backing off while it stays down.

The retriever keeps answering lexically meanwhile; the worker calls ``resync`` at once, then after
``first_delay_s``, twice that, … capped at ``max_delay_s``, until it succeeds or is closed. There is
never more than one worker: asking again while it runs only makes it sync once more at the end.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from advisor.retrieval.store import StoreUnavailable, SyncReport

log = logging.getLogger(__name__)


class StoreHealer:
    def __init__(
        self,
        resync: Callable[[], SyncReport],
        on_healed: Callable[[SyncReport], None],
        first_delay_s: float = 5.0,
        max_delay_s: float = 60.0,
    ):
        self._resync = resync
        self._on_healed = on_healed
        self.first_delay_s = first_delay_s
        self.max_delay_s = max_delay_s
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._again = False  # an outage was reported while the worker was already finishing
        self._closed = threading.Event()

    @property
    def running(self) -> bool:
        return self._worker is not None

    def schedule(self) -> bool:
        """Start the worker unless it is already running; True if this call started it."""
        with self._lock:
            if self._closed.is_set():
                return False
            if self._worker is not None:
                self._again = True
                return False
            self._worker = threading.Thread(target=self._run, name="vector-store-resync", daemon=True)
            self._worker.start()
            return True

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop retrying; waits for a sync in progress (at most ``timeout_s``)."""
        self._closed.set()
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout_s)

    def _run(self) -> None:
        delay, attempt = self.first_delay_s, 0
        while not self._closed.is_set():
            attempt += 1
            try:
                report = self._resync()
            except Exception as exc:  # anything: the worker must outlive a failed attempt
                # The store being down is the expected outage (already warned about); anything else is news.
                expected = isinstance(exc, StoreUnavailable)
                (log.debug if expected else log.warning)(
                    "Vector store re-sync attempt %d failed (%s); retrying in %.1f s", attempt, exc, delay,
                    exc_info=not expected,
                )
                if self._closed.wait(delay):
                    break
                delay = min(delay * 2, self.max_delay_s)
                continue
            self._on_healed(report)
            with self._lock:
                if not self._again:
                    self._worker = None
                    return
                self._again = False
            delay, attempt = self.first_delay_s, 0
        with self._lock:
            self._worker = None
