"""Chroma over HTTP with limits: a timeout on every call, and a deadline the caller can stop waiting at.

Chroma's Python HTTP client builds ``httpx.Client(timeout=None)``: a server that accepts the
connection and then stalls (SIGSTOPped, swapping, behind a hung proxy) would hold the calling
thread forever. Every client built here gets ADVISOR_CHROMA_TIMEOUT instead. Calls that a person
is waiting for also run under ``with_deadline`` on a small pool of their own, so the chat stops
waiting long before that timeout.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import chromadb
import httpx
from chromadb.api.fastapi import FastAPI as ChromaHttpApi

# A remote query (or health ping) that has not answered by then is abandoned: the chat answers lexically.
QUERY_DEADLINE_S = 1.5
DEFAULT_HTTP_TIMEOUT_S = 10.0
CONNECT_TIMEOUT_S = 2.0
# A call abandoned at its deadline keeps its thread until the HTTP timeout: the pool bounds how many.
_REMOTE_CALLS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="chroma-remote")
_timeout = threading.local()


def _bounded_init(init):
    def __init__(self, system):
        init(self, system)
        seconds = getattr(_timeout, "seconds", DEFAULT_HTTP_TIMEOUT_S)
        self._session.timeout = httpx.Timeout(seconds, connect=min(seconds, CONNECT_TIMEOUT_S))

    __init__.bounded = True
    return __init__


if not getattr(ChromaHttpApi.__init__, "bounded", False):
    ChromaHttpApi.__init__ = _bounded_init(ChromaHttpApi.__init__)


def http_client(host: str, port: int, ssl: bool, settings: chromadb.Settings, timeout_s: float = DEFAULT_HTTP_TIMEOUT_S):
    """A Chroma ``HttpClient`` whose every request times out after ``timeout_s``."""
    # A quick probe fails fast on a dead host; the client's own timeout bounds one that accepts and stalls.
    with socket.create_connection((host, port), timeout=min(CONNECT_TIMEOUT_S, timeout_s)):
        pass
    _timeout.seconds = timeout_s  # read by the client's constructor, on this thread
    try:
        return chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=settings)
    finally:
        del _timeout.seconds


def with_deadline(deadline_s: float, call: Callable, *args):
    """``call(*args)``, or ``TimeoutError`` once ``deadline_s`` has passed (the call itself runs on)."""
    future = _REMOTE_CALLS.submit(call, *args)
    try:
        return future.result(timeout=deadline_s)
    except FutureTimeout:
        future.cancel()
        raise TimeoutError(f"no answer within {deadline_s} s") from None
