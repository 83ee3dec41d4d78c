"""The whole web server: the API plus the Gradio UI at `/`; `serve()` is what `app.py` and `gpu-advisor serve` run."""

from __future__ import annotations

import os
import threading

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

    return gr.mount_gradio_app(app, build_ui(advisor, registry), path="/", ssr_mode=False)


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


def serve(settings: Settings, echo=print) -> None:
    """Prepare the index and run the server on ADVISOR_HOST:ADVISOR_PORT until interrupted (no share link)."""
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    import uvicorn

    # Loading the embedder and index and importing Gradio each take seconds: do them side by side.
    warm = threading.Thread(target=warm_up, args=(settings, echo), name="warm-up", daemon=True)
    warm.start()
    app = create_app(settings)
    warm.join()
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    echo(f"GPU Advisor on http://{host}:{settings.port}/  (API docs /docs, wiki embed /embed)")
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="info")
