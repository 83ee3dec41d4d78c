"""`/embed`: a small self-contained chat page meant for an ``<iframe>`` in a wiki.

Everything it needs is served from ``static/`` (no CDN). The Content-Security-Policy only
lets the configured wiki origins frame it and only lets it talk to this server.
"""

from __future__ import annotations

import html
import logging
import re
from functools import lru_cache
from pathlib import Path

from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from advisor.config import Settings

log = logging.getLogger(__name__)
STATIC_DIR = Path(__file__).parent / "static"
# scheme://host[:port] only: anything else in ADVISOR_EMBED_ORIGINS could smuggle CSP directives.
ORIGIN = re.compile(r"^https?://[A-Za-z0-9.\-]+(:\d{1,5})?$")

EMBED_TEXT = {
    "zh": {
        "html_lang": "zh-CN",
        "title": "GPU 选型顾问",
        "placeholder": "例如：我有一个70亿参数模型，该选什么卡？",
        "send": "发送",
        "new_chat": "新对话",
        "thinking": "正在分析…",
        "sources": "引用的文档",
        "error": "请求失败",
        "hint": "回答由计算工具和知识库生成，价格与供货情况请以供应商为准。",
    },
    "en": {
        "html_lang": "en",
        "title": "GPU Advisor",
        "placeholder": "e.g. Which GPU should I pick for a 7B model?",
        "send": "Send",
        "new_chat": "New chat",
        "thinking": "Working on it…",
        "sources": "Documents used",
        "error": "Request failed",
        "hint": "Answers come from calculators and a knowledge base; confirm prices and availability with vendors.",
    },
}


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


def render_page(language: str, root_path: str) -> str:
    values = {**EMBED_TEXT[language], "lang": language, "static": f"{root_path}/embed/static", "api_url": f"{root_path}/api/chat"}
    return re.sub(r"\{\{(\w+)\}\}", lambda m: html.escape(values[m.group(1)]), _template())


def install_embed(app: FastAPI, settings: Settings) -> None:
    csp = content_security_policy(settings)
    headers = {"Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}

    @app.get("/embed", response_class=HTMLResponse, tags=["embed"], summary="Chat page for an <iframe> in a wiki")
    def embed_page(request: Request, lang: str | None = Query(None, description="zh or en; default from Accept-Language.")):
        language = page_language(lang, request.headers.get("accept-language", ""))
        return HTMLResponse(render_page(language, request.scope.get("root_path", "")), headers=headers)

    app.mount("/embed/static", StaticFiles(directory=STATIC_DIR), name="embed-static")
