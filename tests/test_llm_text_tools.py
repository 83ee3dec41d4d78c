"""Tool calls a model writes as text become real tool calls; no markup ever reaches the user."""

from __future__ import annotations

import json

import pytest

from advisor.llm.text_tools import clean_answer, extract_tool_calls, textify
from advisor.testing import ScriptedOpenAIServer, reply
from tests.llm_support import MEMORY_QUESTION, QWEN_7B, advisor_for, hermes, qwen_total_gb, tool_payloads

NAMES = {"estimate_memory", "compare_gpus"}
ARGS = json.dumps(QWEN_7B)


# Scripted model servers listen on 127.0.0.1: no proxy; start-up costs are paid before any test times itself.
pytestmark = pytest.mark.usefixtures("no_proxy", "warm_llm_mode")


@pytest.mark.parametrize(
    "content",
    [
        f'<tool_call>\n{{"name": "estimate_memory", "arguments": {ARGS}}}\n</tool_call>',  # Hermes / Qwen2.5
        f'Let me check.\n<tool_call>{{"name": "estimate_memory", "arguments": {json.dumps(ARGS)}}}</tool_call>',  # arguments as a JSON string
        f'<think>The user wants memory.</think>\n<tool_call>\n{{"name": "estimate_memory", "arguments": {ARGS}}}',  # Qwen3, unterminated
        f"✿FUNCTION✿: estimate_memory\n✿ARGS✿: {ARGS}",  # Qwen-Agent
        f'[TOOL_CALLS] [{{"name": "estimate_memory", "arguments": {ARGS}}}]',  # Mistral
        f'<|python_tag|>{{"name": "estimate_memory", "parameters": {ARGS}}}',  # Llama 3.1
        f'{{"name": "estimate_memory", "arguments": {ARGS}}}',  # bare JSON content
        f'```json\n{{"name": "estimate_memory", "parameters": {ARGS}}}\n```',  # fenced JSON content
        f'{{"tool_calls": [{{"function": {{"name": "estimate_memory", "arguments": {json.dumps(ARGS)}}}}}]}}',  # OpenAI shape in content
        f"<function=estimate_memory>{ARGS}</function>",  # Llama custom tool format
    ],
)
def test_text_tool_calls_are_recognised(content):
    text, calls, invalid = extract_tool_calls(content, NAMES)
    assert invalid == [] and [(c["name"], c["args"]) for c in calls] == [("estimate_memory", QWEN_7B)]
    assert "tool_call" not in text and "✿" not in text and "think" not in text and "{" not in text


def test_several_calls_in_one_reply_and_broken_ones_are_kept_apart():
    content = hermes("estimate_memory", QWEN_7B) + '\n<tool_call>{"name": "compare_gpus", "arguments": {"gpus": ["H100"</tool_call>'
    _, calls, invalid = extract_tool_calls(content, NAMES)
    assert [c["name"] for c in calls] == ["estimate_memory"]
    assert len(invalid) == 1 and "JSON" in invalid[0]["error"]


@pytest.mark.parametrize(
    "content", ['{"answer": 42}', '{"name": "Bob", "age": 3}', 'Use `{"gpus": ["H100"]}` as the body.', "A plain answer."]
)
def test_json_answers_that_are_not_tool_calls_stay_text(content):
    text, calls, invalid = extract_tool_calls(content, NAMES)
    assert calls == [] and invalid == [] and text == content


def test_clean_answer_removes_thinking_and_leftover_markup():
    raw = "<think>hmm, 12 GB?</think>\n✿RETURN✿: Qwen2.5-7B needs 18 GB.</tool_call><|im_end|>"
    assert clean_answer(raw) == "Qwen2.5-7B needs 18 GB."


def test_textify_writes_calls_and_results_as_hermes_turns():
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    messages = [
        HumanMessage(content="q"),
        AIMessage(content="", tool_calls=[{"name": "estimate_memory", "args": QWEN_7B, "id": "c1", "type": "tool_call"}]),
        ToolMessage(content='{"total_per_gpu_gb": 18.2}', tool_call_id="c1"),
    ]
    out = textify(messages)
    assert [m.type for m in out] == ["human", "ai", "human"]
    assert out[1].content.startswith("<tool_call>") and not out[1].tool_calls
    assert out[2].content == '<tool_response>\n{"total_per_gpu_gb": 18.2}\n</tool_response>'


# --- over HTTP --------------------------------------------------------------------------------


@pytest.mark.parametrize("style", ["hermes", "qwen-agent", "json"])
def test_a_tool_call_written_as_text_is_executed(style):
    written = {
        "hermes": hermes("estimate_memory", QWEN_7B),
        "qwen-agent": f"✿FUNCTION✿: estimate_memory\n✿ARGS✿: {ARGS}",
        "json": f'{{"name": "estimate_memory", "arguments": {ARGS}}}',
    }[style]

    def sees_the_result(body: dict) -> None:
        assert tool_payloads(body)[-1]["total_per_gpu_gb"] == pytest.approx(qwen_total_gb())

    answer = f"Qwen2.5-7B needs {qwen_total_gb():.1f} GB."
    with ScriptedOpenAIServer([reply(written), reply(answer + "\n</tool_call>", check=sees_the_result)]) as server:
        response = advisor_for(server.base_url).answer(MEMORY_QUESTION)
    assert response.mode == "llm" and response.answer == answer  # no markup shown
    assert [(c.name, c.args) for c in response.tool_calls] == [("estimate_memory", QWEN_7B)]
    replayed = server.requests[1]["messages"][2]
    assert replayed["role"] == "assistant" and replayed["tool_calls"][0]["function"]["name"] == "estimate_memory"
    assert "tool_call" not in (replayed.get("content") or "")
