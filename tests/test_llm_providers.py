"""Provider recipes from docs/llm.md, each against a scripted server that imitates that provider's quirks."""

from __future__ import annotations

import re

import pytest

from advisor.testing import ScriptedOpenAIServer, Step, call, reply
from advisor.testing_providers import dashscope_thinking, deepseek_thinking, ollama, openai_reasoning, vllm
from tests.llm_support import MEMORY_QUESTION, QWEN_7B, advisor_for, hermes, qwen_total_gb, tool_payloads

# Scripted model servers listen on 127.0.0.1: no proxy; start-up costs are paid before any test times itself.
pytestmark = pytest.mark.usefixtures("no_proxy", "warm_llm_mode")


def grounded_answer() -> str:
    return f"Qwen2.5-7B needs {qwen_total_gb():.1f} GB per GPU."


def sees_memory(body: dict) -> None:
    payloads = tool_payloads(body)
    if payloads:
        assert payloads[-1]["total_per_gpu_gb"] == pytest.approx(qwen_total_gb())
    else:  # text protocol: the result comes back as a user turn
        assert "<tool_response>" in body["messages"][-1]["content"] and "total_per_gpu_gb" in body["messages"][-1]["content"]


def test_vllm_with_the_hermes_tool_parser_uses_native_tool_calls():
    script = [call("estimate_memory", QWEN_7B), reply(grounded_answer(), check=sees_memory)]
    with ScriptedOpenAIServer(script, provider=vllm(tool_parser=True)) as server:
        response = advisor_for(server.base_url).answer(MEMORY_QUESTION)
    assert response.mode == "llm" and response.answer == grounded_answer()
    assert all("tools" in body for body in server.requests) and not server.rejected


def test_vllm_without_a_tool_parser_switches_to_text_tool_calls_once():
    script = [reply(hermes("estimate_memory", QWEN_7B)), reply(grounded_answer(), check=sees_memory), reply("Hello again.")]
    with ScriptedOpenAIServer(script, provider=vllm(tool_parser=False)) as server:
        advisor = advisor_for(server.base_url)
        response = advisor.answer(MEMORY_QUESTION)
        later = advisor.answer("Hello")
    assert response.mode == "llm" and response.answer == grounded_answer()
    assert [(c.name, c.args) for c in response.tool_calls] == [("estimate_memory", QWEN_7B)]
    assert len(server.rejected) == 1  # learned once, for the process: the next answer goes straight to text mode
    assert later.mode == "llm" and all("tools" not in body for body in server.requests)
    system = server.requests[0]["messages"][0]["content"]
    assert "<tools>" in system and '"name":"estimate_memory"' in system and "<tool_call>" in system


def test_ollama_with_enough_context_works_and_a_truncated_prompt_is_caught():
    script = [call("estimate_memory", QWEN_7B), reply(grounded_answer(), check=sees_memory)]
    with ScriptedOpenAIServer(script, provider=ollama(num_ctx=16384)) as server:
        response = advisor_for(server.base_url).answer(MEMORY_QUESTION)
    assert response.mode == "llm" and response.answer == grounded_answer()

    # Ollama's old 2048-token default: the prompt is cut, the model loses its tools and invents a figure.
    with ScriptedOpenAIServer([], provider=ollama(num_ctx=2048)) as server:
        advisor = advisor_for(server.base_url)
        response = advisor.answer(MEMORY_QUESTION)
    assert response.mode == "offline" and "12 GB" in response.notice and response.grounding.ungrounded == ["12 GB"]
    health = advisor.health()
    assert health.status == "degraded"
    assert "truncates prompts" in advisor.llm.warning and "OLLAMA_CONTEXT_LENGTH" in advisor.llm.warning


def test_deepseek_thinking_mode_gets_its_reasoning_content_back():
    script = [
        Step(tool="estimate_memory", args=QWEN_7B, reasoning="The user asks about memory; call the estimator."),
        Step(text=grounded_answer(), reasoning="The tool says 18.2 GB.", check=sees_memory),
    ]
    with ScriptedOpenAIServer(script, provider=deepseek_thinking()) as server:
        response = advisor_for(server.base_url).answer(MEMORY_QUESTION)
    assert response.mode == "llm" and response.answer == grounded_answer()  # the reasoning is not shown
    assert not server.rejected
    assistant = next(m for m in server.requests[1]["messages"] if m["role"] == "assistant")
    assert assistant["reasoning_content"] == "The user asks about memory; call the estimator."


def test_qwen_on_dashscope_turns_thinking_off_when_the_server_asks():
    with ScriptedOpenAIServer([reply("Hello!")], provider=dashscope_thinking()) as server:
        response = advisor_for(server.base_url).answer("Hello")
    assert response.mode == "llm" and response.answer == "Hello!"
    assert len(server.rejected) == 1 and server.requests[0]["enable_thinking"] is False


def test_qwen_on_dashscope_with_the_documented_extra_body_needs_no_retry():
    with ScriptedOpenAIServer([reply("Hello!")], provider=dashscope_thinking()) as server:
        response = advisor_for(server.base_url, ADVISOR_LLM_EXTRA_BODY='{"enable_thinking": false}').answer("Hello")
    assert response.mode == "llm" and not server.rejected


def test_openai_reasoning_models_get_max_completion_tokens_and_the_key():
    with ScriptedOpenAIServer([reply("Hello!")], provider=openai_reasoning("sk-test")) as server:
        response = advisor_for(server.base_url, ADVISOR_LLM_API_KEY="sk-test").answer("Hello")
    assert response.mode == "llm" and server.requests[0]["max_completion_tokens"] == 2048 and "max_tokens" not in server.requests[0]

    with ScriptedOpenAIServer([], provider=openai_reasoning("sk-test")) as server:
        response = advisor_for(server.base_url, ADVISOR_LLM_API_KEY="sk-wrong").answer("Hello")
    assert response.mode == "offline" and "API key rejected" in response.notice and "sk-" not in response.answer


def test_every_llm_setting_is_documented():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    config = (root / "advisor" / "config.py").read_text(encoding="utf-8")
    names = set(re.findall(r'"(ADVISOR_(?:LLM|STREAM)_[A-Z_]+)"', config))
    assert len(names) >= 12
    for doc in ("README.md", "docs/llm.md"):
        text = (root / doc).read_text(encoding="utf-8")
        assert not [n for n in names if f"`{n}`" not in text], doc
