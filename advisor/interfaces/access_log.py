"""The access log: one line per response, written by ``ApiGuard``, with the path and never the query.

Uvicorn's own access log records query strings verbatim (``?token=…``, ``/embed?key=…``), so servers
run with it off: ``log_config()`` gives ``uvicorn.access`` no handler (uvicorn then writes nothing,
since it checks for one) and sends ``advisor.access`` to the console in uvicorn's format.
"""

from __future__ import annotations

import copy
import logging

from starlette.types import Scope

access_log = logging.getLogger("advisor.access")


def log_config() -> dict:
    """uvicorn's logging configuration with the access lines coming from ``advisor.access`` instead."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["uvicorn.access"] = {"handlers": [], "level": "WARNING", "propagate": False}
    config["loggers"]["advisor.access"] = {"handlers": ["access"], "level": "INFO", "propagate": False}
    config["formatters"]["access"] = {"()": "uvicorn.logging.DefaultFormatter", "fmt": "%(levelprefix)s %(message)s", "use_colors": None}
    return config


def log_access(scope: Scope, status: int) -> None:
    if not access_log.isEnabledFor(logging.INFO):
        return
    client = scope.get("client") or ("-", 0)
    address = f"{client[0]}:{client[1]}" if client[1] else str(client[0])
    path = scope.get("root_path", "") + scope["path"]
    request_id = scope.get("state", {}).get("request_id", "-")
    access_log.info('%s - "%s %s HTTP/%s" %d [request_id=%s]', address, scope["method"], path, scope.get("http_version", "1.1"), status, request_id)
