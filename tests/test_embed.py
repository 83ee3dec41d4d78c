"""The wiki embed page: self-contained assets, frame and CORS policy, language, safe Markdown."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import httpx
import pytest
from pydantic import SecretStr

from advisor.config import ConfigError, Settings
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
    assert table.count("<tr>") == 3 and '<td>A100</td><td class="num">40</td>' in table  # a figure never wraps
    assert rendered["lists"] == "<ul><li>one</li><li>two</li></ul>\n<ol><li>first</li><li>second</li></ol>"
    assert rendered["quote"] == "<blockquote>notice &amp; note</blockquote>"


# --- the embed key: narrow, origin-bound, reader-friendly ----------------------------------
ADMIN = "admin-tok-9a7c3e-1f5b8d2e6c0a4f7b9e3d"
EMBED_KEY = "embed-key-41f0d2"
QUESTION = {"message": "H100 有多少显存？"}


@pytest.fixture(scope="module")
def keyed(offline_advisor, tmp_path_factory):
    settings = offline_settings(tmp_path_factory.mktemp("keyed"), api_token=SecretStr(ADMIN), embed_key=SecretStr(EMBED_KEY),
                                embed_origins=[WIKI], embed_rate_limit_per_minute=1000)  # fmt: skip
    with running_server(create_api(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        yield client


def embed_headers(client: httpx.Client, origin: str | None = None, key: str | None = EMBED_KEY) -> dict:
    headers = {"Origin": origin or str(client.base_url).rstrip("/")}
    if key is not None:
        headers["X-Embed-Key"] = key
    return headers


def test_the_embed_key_opens_chat_from_the_embed_page_and_the_wiki(keyed):
    for origin in (None, WIKI):  # the page on this server (same origin), or a wiki page calling it
        response = keyed.post("/api/embed/chat", json=QUESTION, headers=embed_headers(keyed, origin))
        assert response.status_code == 200 and "80" in response.json()["answer"]
    assert keyed.post("/api/embed/check", json={}, headers=embed_headers(keyed)).json() == {"ok": True}


@pytest.mark.parametrize("key", [None, "", "wrong-key", ADMIN])
def test_a_missing_or_wrong_embed_key_gets_a_message_a_reader_understands(keyed, key):
    response = keyed.post("/api/embed/chat", json=QUESTION, headers=embed_headers(keyed, key=key))
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["code"] == "embed_key_invalid" and "editor" in error["en"] and "维护者" in error["zh"]
    assert not re.search(r"Bearer|Authorization|ADVISOR_|header", response.text)


def test_the_embed_key_is_bound_to_the_embed_origins(keyed):
    for headers in ({"X-Embed-Key": EMBED_KEY}, embed_headers(keyed, EVIL), embed_headers(keyed, "null")):
        response = keyed.post("/api/embed/chat", json=QUESTION, headers=headers)
        assert response.status_code == 403 and response.json()["error"]["code"] == "embed_origin_refused"


def test_the_embed_key_opens_nothing_but_embed_chat(keyed):
    for method, path in [("POST", "/api/chat"), ("GET", "/api/tools"), ("POST", "/api/tools/list_gpus"), ("GET", "/v1/models"), ("GET", "/openapi.json")]:
        assert keyed.request(method, path, headers=embed_headers(keyed), json={} if method == "POST" else None).status_code == 401, path
    assert keyed.get("/api/models", headers={"Authorization": f"Bearer {ADMIN}"}).status_code == 200


def test_the_page_never_carries_a_secret_and_says_when_it_needs_a_key(keyed):
    page = keyed.get("/embed", params={"lang": "en"}).text
    assert ADMIN not in page and EMBED_KEY not in page
    assert 'data-key-required="true"' in page and 'data-api="/api/embed/chat"' in page
    no_key = re.search(r'data-no-key="([^"]+)"', page).group(1)
    assert "editor" in no_key and "维护者" in no_key  # both languages, the page's own first


def test_embed_chat_has_its_own_rate_limit(offline_advisor, tmp_path):
    settings = offline_settings(tmp_path, api_token=SecretStr(ADMIN), embed_key=SecretStr(EMBED_KEY), embed_rate_limit_per_minute=2)
    with running_server(create_api(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        statuses = [client.post("/api/embed/chat", json=QUESTION, headers=embed_headers(client)).status_code for _ in range(3)]
        assert statuses == [200, 200, 429]
        assert client.get("/api/models", headers={"Authorization": f"Bearer {ADMIN}"}).status_code == 200  # admin bucket untouched


def test_without_any_key_or_token_the_embed_is_as_open_as_the_server(site):
    assert site.post("/api/embed/chat", json=QUESTION).status_code == 200
    assert 'data-key-required="false"' in site.get("/embed").text


@pytest.mark.parametrize(
    ("env", "variable"),
    [({"ADVISOR_API_TOKEN": "same", "ADVISOR_EMBED_KEY": "same"}, "ADVISOR_EMBED_KEY"),
     ({"ADVISOR_TRUSTED_PROXIES": "10.0.0.0/8, not-an-ip"}, "ADVISOR_TRUSTED_PROXIES"),
     ({"ADVISOR_EMBED_RATE_LIMIT": "lots"}, "ADVISOR_EMBED_RATE_LIMIT")],
)  # fmt: skip
def test_bad_deployment_settings_name_the_variable(env, variable):
    with pytest.raises(ConfigError, match=variable):
        Settings.from_env(env)
