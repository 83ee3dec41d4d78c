"""The whole web server: the API plus the Gradio UI at `/`; `serve()` is what `app.py` and `gpu-advisor serve` run."""

from __future__ import annotations

import importlib.util
import os

from fastapi import FastAPI

from advisor.config import Settings

WEB_UI_MODULE = "advisor.interfaces.web"
INDEX_MODULE = "advisor.retrieval.index"


def create_app(settings: Settings, advisor=None, registry=None) -> FastAPI:
    """API routes first, then the Gradio UI mounted at `/` (when the web UI module is installed)."""
    from advisor.deps import build_advisor, shared_registry
    from advisor.interfaces.api import create_api

    registry = registry or shared_registry()
    advisor = advisor or build_advisor(settings)
    app = create_api(settings, advisor, registry)
    # The UI is optional: an API-only deployment simply lacks the module. A module that exists
    # but fails to import is a bug and is allowed to raise.
    if importlib.util.find_spec(WEB_UI_MODULE) is not None:
        os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
        import gradio as gr

        from advisor.interfaces.web import build_ui

        app = gr.mount_gradio_app(app, build_ui(advisor, registry, settings), path="/", ssr_mode=False)
    return app


def prepare_index(settings: Settings, echo=print) -> None:
    """Build the knowledge index if it is missing or stale; on failure keep going (keyword search still works)."""
    if importlib.util.find_spec(INDEX_MODULE) is None:
        echo("Knowledge index builder not installed; retrieval uses keyword search only.")
        return
    from advisor.retrieval.index import ensure_index

    echo(f"Checking the knowledge index in {settings.chroma_url or settings.data_dir} …")
    try:
        report = ensure_index(settings.data_dir, settings=settings)
    except Exception as exc:  # a broken or unreachable store must not stop the server from starting
        echo(f"Knowledge index unavailable ({type(exc).__name__}: {exc}); answers fall back to keyword search.")
        return
    echo(f"Knowledge index ready: {report.total} chunks ({report.embedded} embedded now, {report.unchanged} unchanged).")


def serve(settings: Settings, echo=print) -> None:
    """Prepare the index and run the server on ADVISOR_HOST:ADVISOR_PORT until interrupted (no share link)."""
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    import uvicorn

    prepare_index(settings, echo)
    app = create_app(settings)
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    echo(f"GPU Advisor on http://{host}:{settings.port}/  (API docs /docs, wiki embed /embed)")
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="info")
