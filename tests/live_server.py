"""Serve an ASGI app with a real uvicorn server on 127.0.0.1 (free port) for tests."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import uvicorn

from advisor.config import Settings
from advisor.interfaces.access_log import log_config

CHINESE_7B_QUESTION = "我有一个70亿参数模型，该选什么卡？"
GPU_NAME = r"RTX|A100|H100|H200|L40|4090|3090|5090|A10|L20|L4|A800|H20"


@contextlib.contextmanager
def running_server(app) -> Iterator[str]:
    """Yield the base URL while uvicorn serves ``app`` in a background thread; stop it afterwards."""
    # Binding the socket ourselves (port 0) avoids the race of picking a "free" port first.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # proxy_headers=False as in production: ApiGuard alone decides whom X-Forwarded-For is believed from.
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", proxy_headers=False,
                                                log_config=log_config()))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def offline_settings(data_dir: Path, **overrides) -> Settings:
    """Offline settings (no LLM endpoint) with a private data dir; API guards relaxed unless overridden."""
    values = {"data_dir": data_dir, "rate_limit_per_minute": 10_000, **overrides}
    return Settings(**values)

