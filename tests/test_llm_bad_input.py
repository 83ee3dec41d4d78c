"""A model or endpoint that misbehaves: every case is bounded, logged with the request id, and the user gets an answer."""

from __future__ import annotations

import json
import logging

import pytest

from advisor.events import AnswerOptions
from advisor.testing import ScriptedOpenAIServer, Step, call, reply
from tests.llm_support import MEMORY_QUESTION, QWEN_7B, advisor_for, qwen_total_gb, tool_payloads

REQUEST_ID = "req-bad-input-1"
OPTIONS = AnswerOptions(request_id=REQUEST_ID)


# Scripted model servers listen on 127.0.0.1: no proxy; start-up costs are paid before any test times itself.
pytestmark = pytest.mark.usefixtures("no_proxy", "warm_llm_mode")


def error_back(code: str, *words: str):
    """A check that the model's next request carries the tool error ``code`` (its English and Chinese text)."""

    def check(body: dict) -> None:
        error = tool_payloads(body)[-1]["error"]
        assert error["code"] == code and error["en"] and error["zh"], error
        assert all(w in error["en"] for w in words), error

    return check


def logged_with_request_id(caplog) -> bool:
    return any(REQUEST_ID in record.getMessage() for record in caplog.records)


def test_a_misspelled_argument_returns_to_the_model_as_an_error_naming_the_field(caplog):
    script = [
        call("estimate_memory", {**QWEN_7B, "gpu_name": "H100"}),
        call("estimate_memory", {**QWEN_7B, "gpu": "H100"}, check=error_back("unknown_argument", "'gpu_name'", "'gpu'")),
        reply(f"About {qwen_total_gb():.1f} GB."),
    ]
    with caplog.at_level(logging.INFO), ScriptedOpenAIServer(script) as server:
        response = advisor_for(server.base_url).answer(MEMORY_QUESTION, options=OPTIONS)
    assert response.mode == "llm" and [c.error["code"] if c.error else "ok" for c in response.tool_calls] == ["unknown_argument", "ok"]
    assert "“gpu_name”" in response.tool_calls[0].error["zh"]
    assert logged_with_request_id(caplog)


def test_wrong_argument_types_and_an_unknown_tool_come_back_as_errors():
    script = [
        call("estimate_memory", {"model": "qwen2.5-7b", "batch": "lots", "context": [1]}),
        call("estimate_vram", QWEN_7B, check=error_back("invalid_arguments", "batch")),
        call("estimate_memory", QWEN_7B, check=error_back("unknown_tool")),
        reply(f"About {qwen_total_gb():.1f} GB."),
    ]
    with ScriptedOpenAIServer(script) as server:
        response = advisor_for(server.base_url).answer(MEMORY_QUESTION)
    assert response.mode == "llm" and [c.error["code"] if c.error else "ok" for c in response.tool_calls] == [
        "invalid_arguments",
        "unknown_tool",
        "ok",
    ]


def test_an_empty_answer_falls_back_with_a_notice(caplog):
    with caplog.at_level(logging.INFO), ScriptedOpenAIServer([Step(text="", reasoning="I think it is about 12 GB")]) as server:
        response = advisor_for(server.base_url).answer(MEMORY_QUESTION, options=OPTIONS)
    assert response.mode == "offline" and "empty answer" in response.notice and "GB" in response.answer
    assert "12 GB" not in response.answer  # reasoning is never shown
    assert logged_with_request_id(caplog)


@pytest.mark.parametrize("raw", ["<html><body>502 Bad Gateway</body></html>", '{"choices": [{"message": '], ids=["html", "broken-json"])
def test_a_reply_that_is_not_a_chat_completion_falls_back(raw, caplog):
    with caplog.at_level(logging.INFO), ScriptedOpenAIServer([Step(raw=raw)]) as server:
        response = advisor_for(server.base_url).answer(MEMORY_QUESTION, options=OPTIONS)
    assert response.mode == "offline" and "invalid reply" in response.notice
    assert "Bad Gateway" not in response.answer and '{"choices"' not in response.answer
    assert logged_with_request_id(caplog)


def test_an_endless_tool_loop_is_cut_at_max_steps(caplog):
    with caplog.at_level(logging.INFO), ScriptedOpenAIServer([call("estimate_memory", QWEN_7B)], repeat_last=True) as server:
        response = advisor_for(server.base_url, ADVISOR_LLM_MAX_STEPS="3").answer(MEMORY_QUESTION, options=OPTIONS)
    assert response.mode == "offline" and "too many tool steps" in response.notice
    assert len(server.requests) == 4  # three tool rounds, and the fourth call that still wanted tools
    assert logged_with_request_id(caplog)


def test_a_1_mb_argument_is_refused_before_it_runs_or_travels_back(caplog):
    huge = "CUDA out of memory. " * 52_429  # ~1 MB

    def small_request(body: dict) -> None:
        assert len(json.dumps(body)) < 100_000
        assert tool_payloads(body)[-1]["error"]["code"] == "arguments_too_large"

    script = [
        call("diagnose", {"text": huge}),
        call("diagnose", {"text": "CUDA out of memory"}, check=small_request),
        reply("It is an out-of-memory error."),
    ]
    with caplog.at_level(logging.INFO), ScriptedOpenAIServer(script) as server:
        response = advisor_for(server.base_url).answer("My training crashed with CUDA out of memory, why?", options=OPTIONS)
    assert response.mode == "llm"
    first = response.tool_calls[0]
    assert first.error["code"] == "arguments_too_large" and len(json.dumps(first.args)) < 1000
    assert "字符" in first.error["zh"]
    assert logged_with_request_id(caplog)
