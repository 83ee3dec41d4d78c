"""REST API against a real uvicorn server: contract, tools, catalog, errors and guards."""

from __future__ import annotations

import inspect
import re

import httpx
import pytest
from fastapi.routing import APIRoute
from pydantic import SecretStr

from advisor.contract import AdvisorResponse, ChatTurn
from advisor.deps import shared_registry
from advisor.interfaces.api import create_api
from advisor.interfaces.guards import SlidingWindowLimiter
from advisor.interfaces.server import create_app
from knowledge.catalog import load_catalog
from tests.live_server import CHINESE_7B_QUESTION, GPU_NAME, offline_settings, running_server

TOKEN = "s3cret-test-token-6a8c0e2f4b1d3e5f7a9c"


@pytest.fixture(scope="session")
def api(offline_advisor, tmp_path_factory):
    app = create_api(offline_settings(tmp_path_factory.mktemp("api")), offline_advisor)
    with running_server(app) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client


@pytest.fixture(scope="session")
def secured(offline_advisor, tmp_path_factory):
    settings = offline_settings(tmp_path_factory.mktemp("secured"), api_token=SecretStr(TOKEN), max_body_bytes=4096)
    with running_server(create_api(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client


def assert_bilingual(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert "Traceback" not in response.text and 'File "' not in response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert error["en"] and error["message"].startswith(error["en"])
    assert re.search(r"[\u4e00-\u9fff]", error["zh"]), error["zh"]
    return error


# --- chat -------------------------------------------------------------------------------
def test_chat_returns_the_response_contract_in_the_question_language(api):
    response = api.post("/api/chat", json={"message": CHINESE_7B_QUESTION, "history": []})
    assert response.status_code == 200
    body = AdvisorResponse.model_validate(response.json())
    assert body.language == "zh" and body.mode == "offline"
    assert re.search(GPU_NAME, body.answer) and "GB" in body.answer


def test_chat_is_stateless_and_takes_history_from_the_request(api, offline_advisor):
    history = [{"role": "user", "content": CHINESE_7B_QUESTION}, {"role": "assistant", "content": "RTX 4090, 24 GB"}]
    follow_up = "What about for training it?"
    response = api.post("/api/chat", json={"message": follow_up, "history": history})
    assert response.status_code == 200
    turns = [ChatTurn.model_validate(t) for t in history]
    assert response.json()["answer"] == offline_advisor.answer(follow_up, turns).answer
    assert response.json()["answer"] != offline_advisor.answer(follow_up).answer  # the history mattered


def test_chat_rejects_a_bad_history_role(api):
    response = api.post("/api/chat", json={"message": "hi", "history": [{"role": "system", "content": "x"}]})
    error = assert_bilingual(response, 422, "invalid_arguments")
    assert "history" in error["en"]


def test_malformed_json_is_a_400_in_both_languages(api):
    response = api.post("/api/chat", content=b'{"message": "hi",', headers={"Content-Type": "application/json"})
    assert_bilingual(response, 400, "malformed_json")


# --- tools ------------------------------------------------------------------------------
def test_tool_list_carries_every_registered_tool_with_schemas(api):
    tools = api.get("/api/tools").json()["tools"]
    registry = shared_registry()
    assert [t["name"] for t in tools] == registry.names()
    paths = api.get("/openapi.json").json()["paths"]
    for tool in tools:
        spec = registry.spec(tool["name"])
        assert tool["request_schema"] == spec.request_model.model_json_schema()
        assert tool["endpoint"] in paths and "requestBody" in paths[tool["endpoint"]]["post"]


def test_tool_endpoint_returns_what_the_registry_computes(api):
    args = {"gpus": ["H100", "A100 80G", "4090"]}
    response = api.post("/api/tools/compare_gpus", json=args)
    assert response.status_code == 200
    assert response.json() == shared_registry().run("compare_gpus", args).model_dump(mode="json")


def test_invalid_tool_arguments_are_a_bilingual_422(api):
    assert_bilingual(api.post("/api/tools/compare_gpus", json={"gpus": []}), 422, "invalid_arguments")
    assert_bilingual(api.post("/api/tools/compare_gpus", json=["H100"]), 422, "invalid_arguments")


def test_bad_input_caught_by_a_tool_is_a_400_with_suggestions(api):
    error = assert_bilingual(api.post("/api/tools/compare_gpus", json={"gpus": ["H1000"]}), 400, "unknown_gpu")
    assert any("H100" in s for s in error["suggestions"])


def test_unknown_tool_is_a_404_listing_the_real_ones(api):
    error = assert_bilingual(api.post("/api/tools/size_my_cluster", json={}), 404, "unknown_tool")
    assert "compare_gpus" in error["suggestions"]


# --- catalog ----------------------------------------------------------------------------
def test_gpu_listing_applies_the_list_gpus_filters(api):
    amd = api.get("/api/gpus", params={"vendor": "amd"}).json()["gpus"]
    assert amd and {g["vendor"] for g in amd} == {"AMD"}
    china = api.get("/api/gpus", params={"china_mainland": "true", "min_memory_gb": 40}).json()["gpus"]
    expected = shared_registry().run("list_gpus", {"china_mainland": True, "min_memory_gb": 40})
    assert [g["id"] for g in china] == [g.id for g in expected.gpus]
    assert "h100-sxm" not in {g["id"] for g in china}  # export-controlled


def test_gpu_listing_errors(api):
    assert_bilingual(api.get("/api/gpus", params={"vendor": "Voodoo"}), 400, "unknown_vendor")
    assert_bilingual(api.get("/api/gpus", params={"min_memory_gb": -1}), 422, "invalid_arguments")


def test_model_listing_is_the_catalog(api):
    models = api.get("/api/models").json()["models"]
    assert [m["id"] for m in models] == [m.id for m in load_catalog().models]


def test_health_reports_mode_index_and_tools(api):
    response = api.get("/healthz")
    body = response.json()
    assert body["status"] == "ok" and body["mode"] == "offline"
    assert body["index"] in {"ready", "missing", "unavailable"} and body["index_ready"] == (body["index"] == "ready")
    assert body["tools"] == len(shared_registry().names())
    assert re.fullmatch(r"[0-9a-f]{16}", response.headers["x-request-id"])


def test_framework_errors_use_the_same_bilingual_shape(api):
    assert_bilingual(api.get("/api/nothing-here"), 404, "not_found")
    assert_bilingual(api.get("/api/chat"), 405, "method_not_allowed")


def api_routes(routes):
    """APIRoutes, looking inside included routers (FastAPI keeps them nested)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):
            yield from api_routes(route.original_router.routes)


def test_handlers_that_compute_run_in_the_threadpool(offline_advisor, tmp_path):
    app = create_api(offline_settings(tmp_path), offline_advisor)
    routes = {r.path: r.endpoint for r in api_routes(app.routes)}
    for path in ["/api/chat", "/api/tools/compare_gpus", "/api/gpus"]:
        assert not inspect.iscoroutinefunction(routes[path]), path
    # Async on purpose: /healthz must answer while every worker thread is busy, and /v1 streams must
    # start at once; both hand their work to threads (tests/test_llm_serving.py times them under load).
    for path in ["/healthz", "/v1/chat/completions"]:
        assert inspect.iscoroutinefunction(routes[path]), path


# --- guards -----------------------------------------------------------------------------
def test_token_is_required_on_the_api_but_not_on_health_or_embed(secured):
    assert_bilingual(secured.get("/api/tools"), 401, "unauthorized")
    wrong = secured.get("/api/tools", headers={"Authorization": "Bearer not-the-token"})
    assert_bilingual(wrong, 401, "unauthorized")
    assert wrong.headers["www-authenticate"] == "Bearer"
    assert secured.get("/api/tools", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    assert secured.get("/healthz").status_code == 200
    assert secured.get("/embed").status_code == 200


def test_oversized_bodies_are_refused_by_length_and_while_streaming(secured):
    auth = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    big = b'{"message": "' + b"x" * 5000 + b'"}'
    assert_bilingual(secured.post("/api/chat", content=big, headers=auth), 413, "body_too_large")

    def chunks():  # no Content-Length: the limit must be enforced on the bytes as they arrive
        yield b'{"message": "'
        for _ in range(10):
            yield b"y" * 1000
        yield b'"}'

    streamed = secured.post("/api/chat", content=chunks(), headers=auth)
    assert_bilingual(streamed, 413, "body_too_large")
    small = secured.post("/api/tools/compare_gpus", json={"gpus": ["L40S"]}, headers=auth)
    assert small.status_code == 200


def test_rate_limit_answers_429_with_retry_after(offline_advisor, tmp_path):
    app = create_api(offline_settings(tmp_path, rate_limit_per_minute=3), offline_advisor)
    with running_server(app) as url, httpx.Client(base_url=url) as client:
        assert [client.get("/api/models").status_code for _ in range(3)] == [200, 200, 200]
        refused = client.get("/api/models")
        assert_bilingual(refused, 429, "rate_limited")
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert client.get("/healthz").status_code == 200  # not an API path: never throttled


def test_sliding_window_frees_capacity_as_requests_age():
    now = [0.0]
    limiter = SlidingWindowLimiter(2, window_s=60, clock=lambda: now[0])
    assert limiter.hit("a") is None and limiter.hit("a") is None
    now[0] = 30.0
    assert limiter.hit("a") == pytest.approx(30.0)
    assert limiter.hit("b") is None  # clients are counted separately
    now[0] = 60.5
    assert limiter.hit("a") is None


class ExplodingAdvisor:
    """An advisor whose failure message contains a secret, to prove it never reaches the client."""

    mode = "offline"

    def answer(self, message, history=()):
        raise RuntimeError("db password hunter2 leaked in /srv/app/secret.py")


def test_unexpected_errors_are_500_with_a_request_id_and_no_details(tmp_path):
    app = create_api(offline_settings(tmp_path), ExplodingAdvisor())
    with running_server(app) as url:
        response = httpx.post(f"{url}/api/chat", json={"message": "hi"})
    error = assert_bilingual(response, 500, "internal_error")
    assert "hunter2" not in response.text and "secret.py" not in response.text
    request_id = response.json()["request_id"]
    assert request_id in error["en"] and request_id in error["zh"]


# --- full server ------------------------------------------------------------------------
def test_full_app_serves_the_api_and_the_ui(offline_advisor, tmp_path):
    app = create_app(offline_settings(tmp_path), offline_advisor)
    with running_server(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        assert client.get("/healthz").json()["status"] == "ok"
        assert client.get("/v1/models").status_code == 200
        root = client.get("/")
        assert root.status_code == 200 and "text/html" in root.headers["content-type"]
