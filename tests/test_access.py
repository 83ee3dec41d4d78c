"""One policy for every door, over real HTTP on 127.0.0.1: the full app (API + Gradio UI + embed + docs).

With ADVISOR_API_TOKEN set, every Gradio route refuses without the token and works with it (bearer
for scripts, a signed cookie from /login for browsers); the rate limit counts Gradio calls with the
API's; no route grants CORS to a foreign origin; pages carry frame protection; the docs load nothing
from the internet; X-Forwarded-For is believed only from ADVISOR_TRUSTED_PROXIES.
"""

from __future__ import annotations

import logging
import re

import httpx
import pytest
from pydantic import SecretStr

from advisor.interfaces.server import create_app
from advisor.interfaces.sessions import COOKIE, SessionSigner, safe_next
from tests.live_server import offline_settings, running_server

TOKEN = "tok-5d1c7e0b-access-suite-9f2a4c6e8b1d3f57"
WIKI = "https://wiki.example.com"
EVIL = "https://evil.example.net"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
GRADIO_ROUTES = [  # (method, path): the UI's own routes, besides the named endpoints of "Use via API"
    ("GET", "/config"), ("GET", "/gradio_api/info"), ("POST", "/gradio_api/queue/join"), ("GET", "/gradio_api/queue/data"),
    ("POST", "/gradio_api/upload"), ("GET", "/gradio_api/heartbeat/abc"), ("GET", "/gradio_api/file=/etc/hostname"),
    ("POST", "/gradio_api/run/chat"), ("POST", "/gradio_api/api/chat"), ("GET", "/gradio_api/startup-events"),
    ("GET", "/theme.css"), ("GET", "/gradio_api/openapi.json"), ("GET", "/openapi.json"), ("GET", "/docs/static/swagger-ui.css"),
]  # fmt: skip


@pytest.fixture(scope="module")
def locked(offline_advisor, tmp_path_factory):
    """The full app with a token, an embed origin and a generous rate limit."""
    settings = offline_settings(tmp_path_factory.mktemp("locked"), api_token=SecretStr(TOKEN), embed_origins=[WIKI])
    with running_server(create_app(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        yield client


@pytest.fixture(scope="module")
def open_site(offline_advisor, tmp_path_factory):
    """The full app as `make run` starts it: no token, no embed origins."""
    settings = offline_settings(tmp_path_factory.mktemp("open"))
    with running_server(create_app(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        yield client


def named_endpoints(client: httpx.Client) -> dict[str, list]:
    """Every endpoint of the footer's "Use via API" page, with arguments built from its own defaults."""
    info = client.get("/gradio_api/info", headers=AUTH).json()["named_endpoints"]
    return {
        name.strip("/"): [p["parameter_default"] if p["parameter_has_default"] else p["example_input"] for p in endpoint["parameters"]]
        for name, endpoint in info.items()
    }


def call_result(client: httpx.Client, name: str, data: list, headers: dict) -> str:
    started = client.post(f"/gradio_api/call/{name}", json={"data": data}, headers=headers)
    assert started.status_code == 200, started.text
    return client.get(f"/gradio_api/call/{name}/{started.json()['event_id']}", headers=headers).text


def assert_refused(response: httpx.Response, status: int = 401) -> None:
    assert response.status_code == status, (response.request.url, response.status_code, response.text[:200])
    error = response.json()["error"]
    assert error["en"] and re.search(r"[\u4e00-\u9fff]", error["zh"])
    assert TOKEN not in response.text


# --- the token on every door --------------------------------------------------------------------
def test_every_gradio_api_endpoint_refuses_without_the_token_and_works_with_it(locked):
    endpoints = named_endpoints(locked)
    assert {"chat", "memory", "recommend", "tco", "training_time", "diagnose"} <= set(endpoints)
    for name, data in endpoints.items():
        assert_refused(locked.post(f"/gradio_api/call/{name}", json={"data": data}))
        assert_refused(locked.post(f"/gradio_api/call/{name}", json={"data": data}, headers={"Authorization": "Bearer wrong"}))
        assert "event: complete" in call_result(locked, name, data, AUTH), name


@pytest.mark.parametrize(("method", "path"), GRADIO_ROUTES)
def test_every_other_ui_route_needs_the_token(locked, method, path):
    assert_refused(locked.request(method, path, headers={"Accept": "application/json"}))
    with locked.stream(method, path, headers=AUTH) as response:  # some are endless event streams: the status is enough
        assert response.status_code != 401  # Gradio may still say 403/404 for its own reasons (file=/etc/… is 403)


def test_a_browser_is_sent_to_sign_in_and_a_wrong_token_is_refused_without_logging_it(locked, caplog):
    page = locked.get("/", headers={"Accept": "text/html"})
    assert page.status_code == 303 and page.headers["location"] == "/login?next=/"
    form = locked.get("/login", params={"next": "/"})
    assert form.status_code == 200 and "访问令牌" in form.text and "Access token" in form.text
    caplog.set_level(logging.DEBUG)
    wrong = locked.post("/login", data={"token": TOKEN + "x", "next": "/"})
    assert wrong.status_code == 401 and "令牌不正确" in wrong.text and "not right" in wrong.text
    assert COOKIE not in wrong.headers.get("set-cookie", "")
    assert TOKEN not in wrong.text and all(TOKEN not in r.getMessage() for r in caplog.records)
    assert any("Failed sign-in" in r.getMessage() for r in caplog.records)


def test_signing_in_opens_the_ui_and_its_api_for_that_browser(offline_advisor, tmp_path):
    settings = offline_settings(tmp_path, api_token=SecretStr(TOKEN))
    with running_server(create_app(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as browser:
        signed_in = browser.post("/login", data={"token": TOKEN, "next": "/?lang=en"})
        assert signed_in.status_code == 303 and signed_in.headers["location"] == "/?lang=en"
        cookie = signed_in.headers["set-cookie"]
        assert "HttpOnly" in cookie and "samesite=lax" in cookie.lower() and TOKEN not in cookie
        assert browser.get("/").status_code == 200
        assert "event: complete" in call_result(browser, "memory", named_endpoints(browser)["memory"], {"Origin": url})
        # The cookie does not let another site's page make the browser act (same-site or not).
        forged = browser.post("/gradio_api/call/memory", json={"data": []}, headers={"Origin": EVIL})
        assert_refused(forged, 403)
        assert browser.get("/api/models").status_code == 200
        stolen = browser.cookies.get(COOKIE)
        assert browser.get("/logout").status_code == 200  # a page with a button: a link alone signs nobody out
        assert browser.get("/api/models").status_code == 200
        assert browser.post("/logout", headers={"Origin": url}).status_code == 303
        assert_refused(browser.get("/api/models"))
        # The cookie is dead on the server, not just deleted from this browser.
        with httpx.Client(base_url=url, timeout=60, trust_env=False) as thief:
            assert_refused(thief.get("/api/models", headers={"Cookie": f"{COOKIE}={stolen}"}))


def test_session_cookies_expire_and_die_with_the_token_or_the_server_secret():
    now = [1000.0]
    secret = b"s" * 32
    signer = SessionSigner(TOKEN, secret, lifetime_s=60, clock=lambda: now[0])
    cookie = signer.issue()
    tampered = cookie[:-5] + ("B" if cookie[-5] == "A" else "A") + cookie[-4:]  # one character of the signature changed
    assert signer.valid(cookie) and not signer.valid(tampered) and not signer.valid("1.2.3")
    assert not SessionSigner("another-token", secret, clock=lambda: now[0]).valid(cookie)
    assert not SessionSigner(TOKEN, b"t" * 32, clock=lambda: now[0]).valid(cookie)  # the token alone cannot sign one
    now[0] += 61
    assert not signer.valid(cookie)
    assert [safe_next(t) for t in ("/docs", "//evil.example", "https://evil.example", "/\\evil", "docs")] == ["/docs", "/", "/", "/", "/"]


def test_gradio_calls_and_api_calls_share_one_rate_limit(offline_advisor, tmp_path):
    app = create_app(offline_settings(tmp_path, rate_limit_per_minute=4), offline_advisor)
    with running_server(app) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        assert client.get("/api/models").status_code == 200
        for _ in range(3):
            assert client.post("/gradio_api/call/diagnose", json={"data": ["zh", "CUDA out of memory"]}).status_code == 200
        assert_refused(client.post("/gradio_api/call/diagnose", json={"data": ["zh", "CUDA out of memory"]}), 429)
        assert_refused(client.get("/api/models"), 429)
        assert client.get("/").status_code == 200  # the page itself is not metered


# --- CORS, frames, docs ----------------------------------------------------------------------------
CORS_ROUTES = ["/", "/config", "/gradio_api/info", "/gradio_api/call/chat", "/gradio_api/queue/join", "/api/chat", "/api/models",
               "/v1/models", "/v1/chat/completions", "/api/embed/chat", "/embed", "/healthz", "/docs", "/openapi.json", "/login"]  # fmt: skip


@pytest.mark.parametrize("site", ["open_site", "locked"])
def test_a_foreign_origin_gets_no_cors_grant_on_any_route(request, site):
    client = request.getfixturevalue(site)
    for path in CORS_ROUTES:
        for response in (
            client.options(path, headers={"Origin": EVIL, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}),
            client.get(path, headers={"Origin": EVIL, **AUTH}),
            client.post(path, headers={"Origin": EVIL, **AUTH}, json={}),
        ):
            assert "access-control-allow-origin" not in response.headers, (path, response.request.method)
            assert "access-control-allow-credentials" not in response.headers, (path, response.request.method)


def test_the_embed_origin_may_call_the_api_but_never_with_credentials(locked):
    preflight = {"Origin": WIKI, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type"}
    allowed = locked.options("/api/chat", headers=preflight)
    assert allowed.headers["access-control-allow-origin"] == WIKI
    assert "access-control-allow-credentials" not in allowed.headers


@pytest.mark.parametrize(("site", "ancestors"), [("open_site", "'self'"), ("locked", f"'self' {WIKI}")])
def test_pages_carry_frame_protection(request, site, ancestors):
    client = request.getfixturevalue(site)
    for path in ["/", "/login", "/embed", "/docs"]:
        csp = client.get(path, headers=AUTH).headers["content-security-policy"]
        expected = "'self'" if path == "/login" else ancestors
        assert re.search(r"frame-ancestors ([^;]+)", csp).group(1).strip() == expected, path
    assert client.get("/", headers=AUTH).headers["x-content-type-options"] == "nosniff"


def test_docs_work_offline_and_declare_the_bearer_scheme(locked):
    for page in ("/docs", "/redoc"):
        html = locked.get(page, headers=AUTH).text
        assert not re.search(r"(https?:)?//[\w.-]+\.\w", html.replace("<!DOCTYPE", "")), page  # no host anywhere
        assets = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert assets and all(a.startswith("/docs/static/") for a in assets), assets
        assert all(locked.get(a, headers=AUTH).status_code == 200 for a in assets)
    schema = locked.get("/openapi.json", headers=AUTH).json()
    assert schema["components"]["securitySchemes"]["bearerAuth"] == {"type": "http", "scheme": "bearer", "description": schema["components"]["securitySchemes"]["bearerAuth"]["description"]}
    assert schema["paths"]["/api/chat"]["post"]["security"] == [{"bearerAuth": []}]
    assert schema["paths"]["/v1/chat/completions"]["post"]["security"] == [{"bearerAuth": []}]
    assert schema["paths"]["/api/embed/chat"]["post"]["security"] == [{"embedKey": []}]


# --- proxies --------------------------------------------------------------------------------------
def test_x_forwarded_for_is_believed_only_from_a_trusted_proxy(offline_advisor, tmp_path):
    def statuses(client, forwarded):
        return [client.get("/api/models", headers={"X-Forwarded-For": forwarded}).status_code for _ in range(3)]

    behind_proxy = create_app(offline_settings(tmp_path / "p", rate_limit_per_minute=2, trusted_proxies=["127.0.0.0/8"]), offline_advisor)
    with running_server(behind_proxy) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        assert statuses(client, "203.0.113.7") == [200, 200, 429]  # one person, one bucket
        assert statuses(client, "198.51.100.9") == [200, 200, 429]  # someone else behind the same proxy
        # Whatever a client writes in front, the address our proxy appended is the one that counts.
        assert statuses(client, "192.0.2.1, 203.0.113.7")[0] == 429
        assert statuses(client, "garbage, 192.0.2.44")[:2] == [200, 200]

    exposed = create_app(offline_settings(tmp_path / "d", rate_limit_per_minute=2), offline_advisor)
    with running_server(exposed) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        assert statuses(client, "203.0.113.7") == [200, 200, 429]
        assert statuses(client, "198.51.100.9") == [429, 429, 429]  # forged headers from an untrusted peer change nothing
