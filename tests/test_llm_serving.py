"""LLM mode behind the real HTTP server: health under load, streams that stream, client parameters passed on."""

from __future__ import annotations

import json
import threading
import time

import httpx
import openai
import pytest

from advisor.config import Settings
from advisor.deps import build_advisor
from advisor.interfaces.api import create_api
from advisor.testing import ScriptedOpenAIServer, Step, call, reply, stall
from tests.live_server import running_server
from tests.llm_support import MEMORY_QUESTION, QWEN_7B, llm_env, qwen_total_gb

CHATS = 40


# Scripted model servers listen on 127.0.0.1: no proxy; start-up costs are paid before any test times itself.
pytestmark = pytest.mark.usefixtures("no_proxy", "warm_llm_mode")


def serve(base_url: str, tmp_path, **env: str):
    # The same data dir as the ``offline_advisor`` fixture, where the planner caches its trained model.
    settings = Settings.from_env(llm_env(base_url, ADVISOR_RATE_LIMIT="100000", **env))
    return running_server(create_api(settings, build_advisor(settings)))


def test_health_answers_in_under_a_second_while_40_chats_wait_on_a_slow_model(tmp_path):
    with ScriptedOpenAIServer([stall(60)], repeat_last=True) as model, serve(model.base_url, tmp_path, ADVISOR_LLM_DEADLINE="3") as url:
        results: list[int] = []
        # One client for all threads: building 40 (each with its own TLS context) takes seconds by itself.
        client = httpx.Client(timeout=30, limits=httpx.Limits(max_connections=CHATS + 5))

        def chat() -> None:
            results.append(client.post(f"{url}/api/chat", json={"message": MEMORY_QUESTION}).status_code)

        chats = [threading.Thread(target=chat) for _ in range(CHATS)]
        for thread in chats:
            thread.start()
        waited = time.monotonic() + 3
        while len(model.requests) < CHATS * 3 // 4 and time.monotonic() < waited:
            time.sleep(0.05)
        assert len(model.requests) >= CHATS * 3 // 4  # most chats are now waiting on the model
        started = time.monotonic()
        health = httpx.get(f"{url}/healthz", timeout=10)
        elapsed = time.monotonic() - started
        for thread in chats:
            thread.join(timeout=30)
        after = client.get(f"{url}/healthz").json()
        client.close()
    assert health.status_code == 200 and elapsed < 1.0, elapsed
    assert health.json()["mode"] == "llm"
    assert results == [200] * CHATS
    assert after["llm"] == "degraded" and after["llm_reason"]  # every answer fell back: health says so


def test_a_stream_starts_at_once_reports_tool_steps_and_keeps_the_connection_alive(tmp_path):
    answer = f"Qwen2.5-7B needs {qwen_total_gb():.1f} GB per GPU."
    script = [Step(tool="estimate_memory", args=QWEN_7B, delay_s=1.2), reply(answer)]
    body = {"model": "gpu-advisor", "stream": True, "messages": [{"role": "user", "content": MEMORY_QUESTION}]}
    with ScriptedOpenAIServer(script) as model, serve(model.base_url, tmp_path, ADVISOR_STREAM_KEEPALIVE="0.3") as url:
        with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=30) as response:
            lines = response.iter_lines()
            first = next(lines)
            rest = [line for line in lines if line]
    # the role chunk came first and keep-alive comments followed while the model worked (1.2 s): an order, not a timing
    assert json.loads(first[6:])["choices"][0]["delta"]["role"] == "assistant"
    assert ": keep-alive" in rest[: next(i for i, line in enumerate(rest) if '"content"' in line and '"content": ""' not in line)]
    chunks = [json.loads(line[6:]) for line in rest if line.startswith("data: {")]
    thinking = "".join(c["choices"][0]["delta"].get("reasoning_content", "") for c in chunks)
    assert "🔧 estimate_memory" in thinking and "✓ estimate_memory" in thinking
    assert [c["advisor_event"]["kind"] for c in chunks if "advisor_event" in c] == ["tool_start", "tool_end"]
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == answer
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop" and chunks[-1]["advisor"]["mode"] == "llm"
    assert rest[-1] == "data: [DONE]"


def test_client_temperature_max_tokens_and_system_message_reach_the_model(tmp_path):
    def passed_on(body: dict) -> None:
        assert body["temperature"] == 0.7 and body["max_tokens"] == 300
        systems = [m for m in body["messages"] if m["role"] == "system"]
        assert len(systems) == 1 and systems[0] is body["messages"][0]
        rules, client = systems[0]["content"].split("<client_instructions>")
        assert "GPU Advisor" in rules and "Answer in one sentence." in client

    def own_default(body: dict) -> None:
        assert body["max_tokens"] == 256 and body["temperature"] == 0.1  # a tiny client value keeps tool calls whole

    messages = [{"role": "system", "content": "Answer in one sentence."}, {"role": "user", "content": "Hello, who are you?"}]
    with (
        ScriptedOpenAIServer([reply("I am GPU Advisor.", check=passed_on), reply("Hi.", check=own_default)]) as model,
        serve(model.base_url, tmp_path) as url,openai.OpenAI(base_url=f"{url}/v1", api_key="x", max_retries=0, timeout=30) as client
    ):
        first = client.chat.completions.create(model="gpu-advisor", messages=messages, temperature=0.7, max_tokens=300)
        second = client.chat.completions.create(model="gpu-advisor", messages=messages[1:], max_tokens=5)
    assert first.choices[0].message.content == "I am GPU Advisor." and second.choices[0].message.content == "Hi."


def test_a_follow_up_over_v1_reuses_the_earlier_tool_results(tmp_path):
    total = qwen_total_gb()

    def has_earlier_result(body: dict) -> None:
        tools = [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]
        assert tools and tools[0]["total_per_gpu_gb"] == pytest.approx(total, rel=1e-3)

    script = [
        call("estimate_memory", QWEN_7B),
        reply(f"It needs {total:.1f} GB."),
        reply(f"Yes, {total:.1f} GB fits on a 24 GB card.", check=has_earlier_result),
    ]
    with ScriptedOpenAIServer(script) as model, serve(model.base_url, tmp_path) as url:
        with openai.OpenAI(base_url=f"{url}/v1", api_key="x", max_retries=0, timeout=30) as client:
            question = {"role": "user", "content": MEMORY_QUESTION}
            first = client.chat.completions.create(model="gpu-advisor", messages=[question]).choices[0].message.content
            follow = [question, {"role": "assistant", "content": first}, {"role": "user", "content": "Does that fit a 24 GB card?"}]
            second = client.chat.completions.create(model="gpu-advisor", messages=follow)
    assert second.model_extra["advisor"]["mode"] == "llm" and second.model_extra["advisor"]["tool_calls"] == []


def test_the_web_chat_shows_tool_steps_while_the_model_works(offline_advisor):
    from langchain_core.messages import AIMessage

    from advisor.interfaces.web_chat import respond
    from advisor.llm.agent import LLMAgent
    from advisor.service import Advisor
    from advisor.testing import ScriptedChatModel, tool_call

    answer = f"Qwen2.5-7B needs {qwen_total_gb():.1f} GB per GPU."
    model = ScriptedChatModel(
        replies=[AIMessage(content="", tool_calls=[tool_call("estimate_memory", QWEN_7B)]), AIMessage(content=answer)]
    )
    advisor = Advisor(offline_advisor.planner, LLMAgent(offline_advisor.planner.registry, model))
    steps = list(respond(advisor, MEMORY_QUESTION, [], [], "en"))
    live = [m for messages, _, _ in steps for m in messages if (m.metadata or {}).get("title") == "🔧 estimate_memory"]
    assert live[0].metadata["status"] == "pending" and live[-1].metadata["status"] == "done"
    messages, turns, _ = steps[-1]
    assert messages[-1].content == answer
    assert turns[-1]["tool_calls"][0]["name"] == "estimate_memory"  # the next question can reuse the figures
