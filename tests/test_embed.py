"""The wiki embed page: self-contained assets, frame and CORS policy, language, safe Markdown."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import httpx
import pytest

from advisor.config import Settings
from advisor.interfaces.api import create_api
from advisor.interfaces.embed import EMBED_TEXT, frame_origins
from tests.live_server import offline_settings, running_server
from tests.markdown_js import render_with_markdown_js

WIKI = "https://wiki.example.com"
EVIL = "https://evil.example.net"


@pytest.fixture(scope="session")
def site(offline_advisor, tmp_path_factory):
    settings = offline_settings(tmp_path_factory.mktemp("embed"), embed_origins=[WIKI, "http://intranet:8090"])
    with running_server(create_api(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60) as client:
        yield client


def test_page_language_follows_the_query_then_the_browser(site):
    zh = site.get("/embed", params={"lang": "zh"}).text
    en = site.get("/embed", params={"lang": "en"}).text
    assert f'placeholder="{EMBED_TEXT["zh"]["placeholder"]}"' in zh and 'lang="zh-CN"' in zh
    assert f'placeholder="{EMBED_TEXT["en"]["placeholder"]}"' in en and 'lang="en"' in en
    by_browser = site.get("/embed", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}).text
    assert EMBED_TEXT["zh"]["placeholder"] in by_browser
    assert EMBED_TEXT["en"]["placeholder"] in site.get("/embed", params={"lang": "<script>"}).text


def test_only_the_configured_wikis_may_frame_the_page(site):
    response = site.get("/embed")
    csp = response.headers["content-security-policy"]
    ancestors = re.search(r"frame-ancestors ([^;]+)", csp).group(1).split()
    assert ancestors == ["'self'", WIKI, "http://intranet:8090"]
    assert "connect-src 'self'" in csp and "script-src 'self'" in csp
    assert "x-frame-options" not in response.headers


def test_assets_are_served_locally_and_reach_nothing_external(site):
    page = site.get("/embed").text
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert sorted(assets) == ["/embed/static/embed.css", "/embed/static/embed.js", "/embed/static/markdown.js"]
    for asset in assets:
        response = site.get(asset)
        assert response.status_code == 200
        # No absolute URLs to load from, no imports, no inline handlers: regex literals like /^https?:\/\// are fine.
        assert not re.search(r"""["'(]\s*(https?:)?//|@import|\bon\w+\s*=""", response.text), asset
    assert "<script>" not in page and "style=" not in page  # the CSP forbids inline code


def test_cors_allows_the_wiki_origin_only(site):
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    allowed = site.options("/api/chat", headers={"Origin": WIKI, **preflight})
    assert allowed.status_code == 200 and allowed.headers["access-control-allow-origin"] == WIKI
    refused = site.options("/api/chat", headers={"Origin": EVIL, **preflight})
    assert "access-control-allow-origin" not in refused.headers
    simple = site.get("/api/models", headers={"Origin": EVIL})
    assert "access-control-allow-origin" not in simple.headers
    assert site.get("/api/models", headers={"Origin": WIKI}).headers["access-control-allow-origin"] == WIKI


def test_malformed_origins_cannot_inject_policy():
    settings = Settings(embed_origins=[WIKI, "https://x.com; script-src *", "javascript:alert(1)", "https://ok.example/"])
    assert frame_origins(settings) == [WIKI, "https://ok.example"]


def test_no_origins_configured_means_no_cors_and_self_framing_only(offline_advisor, tmp_path):
    app = create_api(offline_settings(tmp_path), offline_advisor)
    with running_server(app) as url:
        page = httpx.get(f"{url}/embed")
        api = httpx.get(f"{url}/api/models", headers={"Origin": WIKI})
    assert page.headers["content-security-policy"].endswith("frame-ancestors 'self'")
    assert "access-control-allow-origin" not in api.headers


# --- the Markdown renderer runs in the browser; node runs the same file here ------------
CASES = {
    "script": "<script>alert(1)</script>",
    "img": '<img src=x onerror="alert(1)">',
    "js_link": "[click](javascript:alert(1))",
    "quote_link": '[x](https://a.example/"onmouseover="alert(1))',
    "web_link": "[docs](https://docs.nvidia.com/a?b=1&c=2)",
    "bold_code": "**H100** has `<80 GB>`",
    "heading": "## Memory <b>",
    "table": "| GPU | GB |\n|---|---:|\n| H100 | 80 |\n| A100 | 40 |",
    "lists": "- one\n- two\n1. first\n2. second",
    "fence": "```\n<div>x</div>\n```",
    "quote": "> notice & note",
}


@pytest.fixture(scope="module")
def rendered():
    return dict(zip(CASES, render_with_markdown_js(list(CASES.values())), strict=True))


def test_markdown_escapes_every_html_tag(rendered):
    assert "<script" not in rendered["script"] and "&lt;script&gt;" in rendered["script"]
    assert "<img" not in rendered["img"] and "&lt;img" in rendered["img"]
    assert "<code>&lt;80 GB&gt;</code>" in rendered["bold_code"]
    assert rendered["heading"] == "<h2>Memory &lt;b&gt;</h2>"
    assert "<pre><code>&lt;div&gt;x&lt;/div&gt;</code></pre>" == rendered["fence"]


class AnchorAttributes(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: list[dict] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.found.append(dict(attrs))


def test_markdown_links_only_to_http_urls_and_cannot_break_out(rendered):
    assert "<a" not in rendered["js_link"]
    assert 'href="https://docs.nvidia.com/a?b=1&amp;c=2"' in rendered["web_link"] and 'rel="noopener noreferrer"' in rendered["web_link"]
    # A quote in the URL stays inside href (as &quot;): the browser sees no extra attribute.
    anchors = AnchorAttributes()
    anchors.feed(rendered["quote_link"])
    assert anchors.found and all(set(a) == {"href", "target", "rel"} for a in anchors.found)
    assert all(a["href"].startswith("https://") for a in anchors.found)


def test_markdown_structures(rendered):
    assert "<strong>H100</strong>" in rendered["bold_code"]
    table = rendered["table"]
    assert table.startswith("<table><thead><tr><th>GPU</th><th>GB</th></tr></thead>")
    assert table.count("<tr>") == 3 and "<td>A100</td><td>40</td>" in table
    assert rendered["lists"] == "<ul><li>one</li><li>two</li></ul>\n<ol><li>first</li><li>second</li></ol>"
    assert rendered["quote"] == "<blockquote>notice &amp; note</blockquote>"
