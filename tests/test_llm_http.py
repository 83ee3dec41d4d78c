"""LLM mode end to end through the real ``ChatOpenAI`` HTTP client against a scripted server on 127.0.0.1."""

from __future__ import annotations

import json
import time

import pytest

from advisor.config import ConfigError, Settings
from advisor.deps import build_advisor, shared_registry
from advisor.llm.agent import LLMAgent, build_chat_model
from advisor.testing import ScriptedOpenAIServer, call, fail, reply, stall, unused_base_url
from advisor.tool_schema import HIDDEN_TOOLS, llm_tools
from knowledge.catalog import load_catalog
from tools.memory.estimator import MemoryRequest, estimate_memory

QWEN_7B = {"model": "qwen2.5-7b", "precision": "bf16", "context": 8192}
QUESTION_ZH = "部署 Qwen2.5-7B 推理、8k 上下文要多少显存？"


pytestmark = pytest.mark.usefixtures("no_proxy")  # proxy variables would route 127.0.0.1 traffic elsewhere


def advisor_for(base_url: str, retries: int = 0, max_steps: int = 4, **more_env: str):
    """The production wiring: settings from ADVISOR_LLM_* variables, then ``build_advisor``."""
    env = more_env | {
        "ADVISOR_LLM_BASE_URL": base_url,
        "ADVISOR_LLM_MODEL": "scripted-qwen",
        "ADVISOR_LLM_API_KEY": "test-key",
        "ADVISOR_LLM_TIMEOUT": "1",
        "ADVISOR_LLM_MAX_RETRIES": str(retries),
        "ADVISOR_LLM_MAX_STEPS": str(max_steps),
    }
    return build_advisor(Settings.from_env(env))


def last_tool_payload(body: dict) -> dict:
    message = body["messages"][-1]
    assert message["role"] == "tool", f"expected a tool result last, got {message['role']}"
    assistant = next(m for m in reversed(body["messages"]) if m["role"] == "assistant")
    assert message["tool_call_id"] in {c["id"] for c in assistant["tool_calls"]}
    return json.loads(message["content"])


def advertises_registry_tools(body: dict) -> None:
    registry = shared_registry()
    assert body["model"] == "scripted-qwen"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "Simplified Chinese" in body["messages"][0]["content"]
    assert body["messages"][1]["content"] == QUESTION_ZH
    tools = {t["function"]["name"]: t["function"] for t in body["tools"]}
    assert body["tools"] == llm_tools(registry)  # the lean LLM-facing schemas
    assert list(tools) == [n for n in registry.names() if n not in HIDDEN_TOOLS]  # each reached through another tool
    memory = tools["estimate_memory"]["parameters"]
    assert "显存" in tools["estimate_memory"]["description"] and memory["additionalProperties"] is False
    assert {"model", "context", "gpu", "limits"} <= memory["properties"].keys() <= MemoryRequest.model_fields.keys() | {"limits"}
    assert body["max_tokens"] == 2048 and "max_completion_tokens" not in body


def sees_memory_estimate(body: dict) -> None:
    expected = estimate_memory(MemoryRequest(**QWEN_7B), load_catalog()).total_per_gpu_gb
    assert last_tool_payload(body)["total_per_gpu_gb"] == pytest.approx(expected)


def test_tool_call_round_trip_over_http():
    script = [call("estimate_memory", QWEN_7B, check=advertises_registry_tools), reply("单卡 24 GB 即可。", check=sees_memory_estimate)]
    with ScriptedOpenAIServer(script) as server:
        response = advisor_for(server.base_url).answer(QUESTION_ZH)

    assert response.mode == "llm" and response.notice is None and response.language == "zh"
    assert response.answer == "单卡 24 GB 即可。"
    assert [(c.name, c.args) for c in response.tool_calls] == [("estimate_memory", QWEN_7B)]
    assert len(server.requests) == 2 and server.requests[0]["tools"] == server.requests[1]["tools"]


def error_code(code: str):
    def check(body: dict) -> None:
        error = last_tool_payload(body)["error"]
        assert error["code"] == code and error["en"] and error["zh"], error

    return check


def test_malformed_tool_calls_are_answered_with_errors_the_model_can_fix():
    script = [
        call("estimate_memory", '{"model": "qwen2.5-7b", "precision": '),  # truncated JSON
        call("estimate_vram", QWEN_7B, check=error_code("malformed_json")),
        call("estimate_memory", QWEN_7B, check=error_code("unknown_tool")),
        reply("About 18 GB.", check=sees_memory_estimate),
    ]
    with ScriptedOpenAIServer(script) as server:
        response = advisor_for(server.base_url).answer(QUESTION_ZH)

    assert response.mode == "llm" and response.answer == "About 18 GB."
    assert [c.error["code"] if c.error else "ok" for c in response.tool_calls] == ["malformed_json", "unknown_tool", "ok"]
    replayed = server.requests[1]["messages"][2]  # the broken call goes back verbatim, answered by id
    assert replayed["tool_calls"][0]["function"]["arguments"] == '{"model": "qwen2.5-7b", "precision": '


def test_a_model_that_only_sends_broken_calls_ends_in_offline_mode():
    with ScriptedOpenAIServer([call("estimate_memory", "{not json") for _ in range(3)]) as server:
        response = advisor_for(server.base_url, max_steps=2).answer(QUESTION_ZH)

    assert response.mode == "offline" and "工具调用步数超过上限" in response.notice
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    "steps, reason",
    [(None, "unreachable"), ([fail(500)], "server error"), ([stall(5)], "timed out")],
    ids=["server-down", "http-500", "slower-than-timeout"],
)
def test_endpoint_faults_fall_back_to_offline_mode(steps, reason):
    question = "How much GPU memory does Qwen2.5-7B need for inference at 8k context?"
    started = time.monotonic()
    if steps is None:
        response = advisor_for(unused_base_url()).answer(question)
    else:
        with ScriptedOpenAIServer(steps) as server:
            response = advisor_for(server.base_url).answer(question)
        assert len(server.requests) == 1  # ADVISOR_LLM_MAX_RETRIES=0: no second attempt

    assert time.monotonic() - started < 4  # the 1 s timeout from ADVISOR_LLM_TIMEOUT applied
    assert response.mode == "offline" and response.language == "en"
    assert response.notice == f"The language-model endpoint could not answer ({reason}); this answer comes from the built-in offline planner."
    assert "estimate_memory" in [c.name for c in response.tool_calls]
    assert "GB" in response.answer.split(response.notice, 1)[1]


def test_retries_come_from_settings():
    with ScriptedOpenAIServer([fail(500), reply("Recovered.")]) as server:
        response = advisor_for(server.base_url, retries=1).answer("Which GPU for Llama 3 8B?")

    assert response.mode == "llm" and response.answer == "Recovered."
    assert len(server.requests) == 2


def test_extra_body_reaches_the_endpoint():
    def has_template_switch(body: dict) -> None:
        assert body["chat_template_kwargs"] == {"enable_thinking": False}

    extra = '{"chat_template_kwargs": {"enable_thinking": false}}'
    with ScriptedOpenAIServer([reply("Hi.", check=has_template_switch)]) as server:
        response = advisor_for(server.base_url, ADVISOR_LLM_EXTRA_BODY=extra).answer("Which GPU for Llama 3 8B?")

    assert response.mode == "llm"


@pytest.mark.parametrize("raw", ["{enable_thinking: false}", '["enable_thinking"]'])
def test_malformed_extra_body_names_the_variable(raw):
    with pytest.raises(ConfigError, match="ADVISOR_LLM_EXTRA_BODY"):
        advisor_for("http://127.0.0.1:1/v1", ADVISOR_LLM_EXTRA_BODY=raw)


def test_streaming_client_gets_the_same_answer():
    settings = Settings.from_env({"ADVISOR_LLM_BASE_URL": "http://127.0.0.1:1/v1", "ADVISOR_LLM_MODEL": "m"}).llm

    def streams(body: dict) -> None:
        assert body["stream"] is True

    with ScriptedOpenAIServer([call("estimate_memory", QWEN_7B, check=streams), reply("18 GB.", check=sees_memory_estimate)]) as server:
        model = build_chat_model(settings.model_copy(update={"base_url": server.base_url, "max_retries": 0}))
        model.streaming = True
        response = LLMAgent(shared_registry(), model).answer("Memory for Qwen2.5-7B?", [], "en")

    assert response.answer == "18 GB." and response.tool_calls[0].result["total_per_gpu_gb"] > 0
