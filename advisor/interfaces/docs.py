"""`/docs` (Swagger UI) and `/redoc` served from a pip package, so they work with no internet access.

The JavaScript and CSS come from the ``fastapi-offline`` wheel's ``static/`` folder; nothing on the
pages points at a CDN, a web font or an online validator. The OpenAPI document declares the bearer
scheme on every route behind ADVISOR_API_TOKEN and the embed key on the embed routes, so Swagger's
"Authorize" button fills in the header.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS_STATIC = "/docs/static"
BEARER = {"bearerAuth": {"type": "http", "scheme": "bearer", "description": "ADVISOR_API_TOKEN (when it is set)."}}
EMBED_KEY = {"embedKey": {"type": "apiKey", "in": "header", "name": "X-Embed-Key", "description": "ADVISOR_EMBED_KEY (when it is set)."}}


def assets_dir() -> Path:
    import fastapi_offline

    return Path(fastapi_offline.__file__).parent / "static"


def add_security_schemes(app: FastAPI) -> None:
    """Wrap ``app.openapi`` so the document names the bearer scheme and which operations need it."""
    build = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()
        schema.setdefault("components", {}).setdefault("securitySchemes", {}).update({**BEARER, **EMBED_KEY})
        for path, operations in schema.get("paths", {}).items():
            scheme = "embedKey" if path.startswith("/api/embed/") else "bearerAuth" if path.startswith(("/api/", "/v1/")) else None
            for operation in operations.values():
                if scheme and isinstance(operation, dict):
                    operation["security"] = [{scheme: []}]
        app.openapi_schema = schema
        return schema

    app.openapi = openapi


def install_docs(app: FastAPI) -> None:
    """Needs an app built with ``docs_url=None, redoc_url=None``."""
    add_security_schemes(app)
    app.mount(DOCS_STATIC, StaticFiles(directory=assets_dir()), name="docs-static")
    parameters = {"validatorUrl": None, "persistAuthorization": True}

    @app.get("/docs", include_in_schema=False)
    def swagger(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} — Swagger UI",
            swagger_js_url=f"{root}{DOCS_STATIC}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{DOCS_STATIC}/swagger-ui.css",
            swagger_favicon_url=f"{root}{DOCS_STATIC}/favicon.png",
            oauth2_redirect_url=f"{root}/docs/oauth2-redirect",
            swagger_ui_parameters=parameters,
        )

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    def swagger_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} — ReDoc",
            redoc_js_url=f"{root}{DOCS_STATIC}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{DOCS_STATIC}/favicon.png",
            with_google_fonts=False,
        )
