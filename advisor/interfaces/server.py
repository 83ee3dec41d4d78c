"""The whole web server: the API plus the Gradio UI at `/`; `serve()` is what `app.py` and `gpu-advisor serve` run."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from fastapi import FastAPI

from advisor.config import Settings


def create_app(settings: Settings, advisor=None, registry=None) -> FastAPI:
    """API routes first, then the Gradio UI mounted at `/` (when the web UI module is installed)."""
    from advisor.deps import build_advisor, shared_registry
    from advisor.interfaces.api import create_api

    registry = registry or shared_registry()
    advisor = advisor or build_advisor(settings)
    app = create_api(settings, advisor, registry)
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    import gradio as gr

    from advisor.interfaces.web import build_ui

    # Access control for the UI and its /gradio_api routes is ApiGuard's (bearer token or signed
    # session cookie), not Gradio's own `auth`: its sessions live in one process's memory.
    blocks = build_ui(advisor, registry)
    app = gr.mount_gradio_app(
        app, blocks, path="/", ssr_mode=False, show_error=False, root_path=settings.public_url,
        allowed_paths=[], blocked_paths=blocked_paths(settings), footer_links=["api", "settings"], run_history=False,
    )  # fmt: skip
    # Gradio checks the paths a file object names only once it believes it was launched, which
    # mount_gradio_app never says: without this, a chat call naming /etc/passwd was copied and served.
    blocks.has_launched = True
    return app


def blocked_paths(settings: Settings) -> list[str]:
    """What Gradio must never read or serve, even from its own allowed places (cwd, the temp dir)."""
    from advisor.config import REPO_ROOT

    places = [Path(settings.data_dir), REPO_ROOT, Path.home(), Path("/proc"), Path("/sys"), Path("/etc"), Path("/root"), Path("/var")]
    return sorted({str(place.resolve()) for place in places})


def prepare_index(settings: Settings, echo=print) -> None:
    """Build the knowledge index if it is missing or stale; on failure keep going (keyword search still works)."""
    from advisor.retrieval.index import ensure_index

    echo(f"Checking the knowledge index in {settings.chroma_url or settings.data_dir} …")
    try:
        report = ensure_index(settings.data_dir, settings=settings)
    except Exception as exc:  # a broken or unreachable store must not stop the server from starting
        echo(f"Knowledge index unavailable ({type(exc).__name__}: {exc}); answers fall back to keyword search.")
        return
    echo(f"Knowledge index ready: {report.total} chunks ({report.embedded} embedded now, {report.unchanged} unchanged).")


def warm_up(settings: Settings, echo=print) -> None:
    """Index, retriever and data loaded before the first question, so it is answered at full speed."""
    from advisor.deps import shared_registry
    from advisor.retrieval.search import Retriever
    from knowledge.catalog import Catalog
    from tools.troubleshoot.rulebook import RuleBook

    prepare_index(settings, echo)
    registry = shared_registry()
    for kind in (Catalog, RuleBook, Retriever):
        try:
            registry.dependency(kind)
        except Exception as exc:  # the first question will report it; starting must not fail
            echo(f"Could not preload {kind.__name__}: {type(exc).__name__}")


def _announce(settings: Settings, echo, workers: int) -> None:
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    plural = f", {workers} answer workers" if workers > 1 else ""
    echo(f"GPU Advisor on http://{host}:{settings.port}/  (API docs /docs, wiki embed /embed{plural})")
    if settings.api_token is None and settings.host not in ("127.0.0.1", "localhost", "::1"):
        echo("Warning: ADVISOR_API_TOKEN is not set, so anyone who can reach this address can use the UI and the API.")


def _exit_on_sigterm(signum, frame) -> None:
    raise SystemExit(0)


def _run(app, settings: Settings) -> None:
    import signal

    import uvicorn

    from advisor.interfaces.access_log import log_config

    # Uvicorn re-raises SIGTERM once it has shut down; under the default handler that would kill this
    # process before the worker pool and the Chroma server are stopped. This handler unwinds instead.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    # proxy_headers=False: uvicorn would believe X-Forwarded-For from 127.0.0.1 by default; ApiGuard
    # believes it only from ADVISOR_TRUSTED_PROXIES.
    # access_log=False: ApiGuard writes the access lines, without query strings (tokens, embed keys).
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="info", proxy_headers=False, log_config=log_config())


def serve(settings: Settings, echo=print, workers: int = 1) -> None:
    """Prepare the index and run the server on ADVISOR_HOST:ADVISOR_PORT until interrupted (no share link).

    With ``workers`` > 1, answers are computed by that many processes (``advisor.interfaces.workers``)
    sharing one Chroma server: ADVISOR_CHROMA_URL, or a `chroma run` started here on the index directory.
    """
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    if workers > 1:
        serve_workers(settings, echo, workers)
        return
    # Loading the embedder and index and importing Gradio each take seconds: do them side by side.
    warm = threading.Thread(target=warm_up, args=(settings, echo), name="warm-up", daemon=True)
    warm.start()
    app = create_app(settings)
    warm.join()
    _announce(settings, echo, 1)
    _run(app, settings)


def serve_workers(settings: Settings, echo, workers: int) -> None:
    from advisor.deps import shared_registry
    from advisor.interfaces.workers import AnswerPool, PooledAdvisor, PooledRegistry
    from advisor.retrieval.chroma_server import ChromaProcess

    env = dict(os.environ)
    chroma = None
    pool = None
    try:
        if not settings.chroma_url:
            data_dir = Path(settings.data_dir)
            chroma = ChromaProcess(data_dir / "chroma", data_dir / "chroma-server.log")
            chroma.start()
            echo(f"Started a Chroma server for the workers on {chroma.url} (index in {data_dir / 'chroma'}).")
            settings = settings.model_copy(update={"chroma_url": chroma.url})
            env["ADVISOR_CHROMA_URL"] = chroma.url
        # The workers load their models (and, one at a time, bring the index up to date) while this
        # process imports Gradio and builds the UI.
        pool = AnswerPool(workers, env)
        pool.spawn()
        import advisor.retrieval.store  # noqa: F401  (now, not inside the first /healthz probe's deadline)

        app = create_app(settings, PooledAdvisor(pool, settings), PooledRegistry(shared_registry(), pool))
        pool.wait_ready(echo=echo)
        _announce(settings, echo, workers)
        _run(app, settings)
    finally:
        if pool is not None:
            pool.close()
        if chroma is not None:
            chroma.stop()
