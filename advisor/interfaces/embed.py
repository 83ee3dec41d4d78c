"""`/embed`: a small self-contained chat page meant for an ``<iframe>`` in a wiki.

Everything it needs is served from ``static/`` (no CDN). The Content-Security-Policy only
lets the configured wiki origins frame it and only lets it talk to this server. The page asks
``/api/embed/chat``, which takes the narrow embed key (ADVISOR_EMBED_KEY, from the iframe URL's
``#key=`` fragment, never sent in the URL to any server) instead of the admin token: chat only,
its own rate limit, only from this server's page or ADVISOR_EMBED_ORIGINS (``ApiGuard`` checks).
"""

from __future__ import annotations

import html
import logging
import re
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, FastAPI, Query, Request, Response
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from advisor.config import Settings
from advisor.contract import AdvisorResponse
from advisor.interfaces.api_models import ERROR_RESPONSES, ChatRequest, ProposalRequest
from advisor.interfaces.door_text import TEXT
from advisor.interfaces.http_errors import request_id_of
from advisor.interfaces.proposal_door import proposal_response

log = logging.getLogger(__name__)
STATIC_DIR = Path(__file__).parent / "static"
# scheme://host[:port] only: anything else in ADVISOR_EMBED_ORIGINS could smuggle CSP directives.
ORIGIN = re.compile(r"^https?://[A-Za-z0-9.\-]+(:\d{1,5})?$")

EMBED_TEXT = {language: {key: row[language] for key, row in TEXT.entry("embed").items()} for language in ("zh", "en")}


def frame_origins(settings: Settings) -> list[str]:
    """The configured wiki origins that may frame the page and call the API from a browser."""
    valid = []
    for origin in settings.embed_origins:
        if ORIGIN.match(origin.rstrip("/")):
            valid.append(origin.rstrip("/"))
        else:
            log.warning("Ignoring ADVISOR_EMBED_ORIGINS entry %r: expected scheme://host[:port]", origin)
    return valid


def content_security_policy(settings: Settings) -> str:
    ancestors = " ".join(["'self'", *frame_origins(settings)])
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        f"base-uri 'none'; form-action 'none'; frame-ancestors {ancestors}"
    )


def page_language(lang: str | None, accept_language: str) -> str:
    if lang in EMBED_TEXT:
        return lang
    first = accept_language.split(",")[0].strip().lower()
    return "zh" if first.startswith("zh") else "en"


@lru_cache(maxsize=1)
def _template() -> str:
    return (STATIC_DIR / "embed.html").read_text(encoding="utf-8")


def render_page(language: str, root_path: str, key_required: bool = False) -> str:
    other = "en" if language == "zh" else "zh"
    values = {
        **EMBED_TEXT[language], "lang": language, "static": f"{root_path}/embed/static", "api_url": f"{root_path}/api/embed/chat",
        "proposal_url": f"{root_path}/api/embed/proposal",
        "check_url": f"{root_path}/api/embed/check", "key_required": "true" if key_required else "false",
        "no_key": f"{EMBED_TEXT[language]['no_key']}\n{EMBED_TEXT[other]['no_key']}",
    }  # fmt: skip
    return re.sub(r"\{\{(\w+)\}\}", lambda m: html.escape(values[m.group(1)]), _template())


def embed_router(advisor) -> APIRouter:
    """What the embed page calls: chat only (the tools and catalog stay behind the admin token)."""
    router = APIRouter(prefix="/api/embed", tags=["embed"], responses=ERROR_RESPONSES)

    @router.post("/chat", response_model=AdvisorResponse, summary="Ask the advisor from the wiki embed (needs X-Embed-Key)")
    def embed_chat(request: ChatRequest) -> AdvisorResponse:
        return advisor.answer(request.message, request.history)

    @router.post("/proposal", summary="The conversation's procurement proposal as a file (needs X-Embed-Key)")
    def embed_proposal(request: ProposalRequest, http: Request) -> Response:
        return proposal_response(advisor.planner, request, request_id_of(http))

    @router.post("/check", summary="Is this embed key accepted here? (the page asks once on load)")
    def embed_check() -> dict:
        return {"ok": True}

    return router


def install_embed(app: FastAPI, settings: Settings, advisor=None) -> None:
    csp = content_security_policy(settings)
    headers = {"Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}

    @app.get("/embed", response_class=HTMLResponse, tags=["embed"], summary="Chat page for an <iframe> in a wiki")
    def embed_page(request: Request, lang: str | None = Query(None, description="zh or en; default from Accept-Language.")):
        language = page_language(lang, request.headers.get("accept-language", ""))
        key_required = settings.embed_key is not None or settings.api_token is not None
        return HTMLResponse(render_page(language, request.scope.get("root_path", ""), key_required), headers=headers)

    if advisor is not None:
        app.include_router(embed_router(advisor))
    app.mount("/embed/static", StaticFiles(directory=STATIC_DIR), name="embed-static")
