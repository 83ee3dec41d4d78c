"""LLM mode with a scripted in-process chat model: the agent loop, tool errors, bounds and fallback."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage

from advisor.contract import ChatTurn
from advisor.deps import default_registry
from advisor.llm.agent import LLMAgent
from advisor.offline.planner import OfflinePlanner
from advisor.service import Advisor
from advisor.tool_schema import HIDDEN_TOOLS
from advisor.testing import ScriptedChatModel, tool_call
from knowledge.catalog import load_catalog
from tools.memory.estimator import MemoryRequest, estimate_memory

QWEN_7B = {"model": "qwen2.5-7b", "precision": "bf16", "context": 8192}


@pytest.fixture(scope="module")
def registry():
    return default_registry()


@pytest.fixture(scope="module")
def planner(registry):
    return OfflinePlanner(registry)


def advisor_with(planner, replies: list[AIMessage], max_steps: int = 8) -> tuple[Advisor, ScriptedChatModel]:
    model = ScriptedChatModel(replies=replies)
    return Advisor(planner, LLMAgent(planner.registry, model, max_steps)), model


def tool_messages(messages) -> list[dict]:
    return [json.loads(m.content) for m in messages if isinstance(m, ToolMessage)]


def calling(name: str, args: dict) -> AIMessage:
    return AIMessage(content="", tool_calls=[tool_call(name, args)])


def test_memory_tool_result_reaches_the_model_and_the_response(planner):
    expected = estimate_memory(MemoryRequest(**QWEN_7B), load_catalog()).total_per_gpu_gb
    advisor, model = advisor_with(planner, [calling("estimate_memory", QWEN_7B), AIMessage(content="Qwen2.5-7B fits on one 24 GB card.")])

    response = advisor.answer("How much GPU memory does Qwen2.5-7B need at 8k context?")

    assert response.mode == "llm" and response.notice is None
    assert response.answer == "Qwen2.5-7B fits on one 24 GB card."
    assert [(c.name, c.args) for c in response.tool_calls] == [("estimate_memory", QWEN_7B)]
    assert response.tool_calls[0].result["total_per_gpu_gb"] == expected
    first, second = model.received
    assert [m for m in first if isinstance(m, SystemMessage)] == [first[0]]  # exactly one, and first
    assert "English" in first[0].content
    assert tool_messages(second)[0]["total_per_gpu_gb"] == expected
    assert {t.name for t in model.bound_tools} == set(planner.registry.names()) - set(HIDDEN_TOOLS)  # each reached through another tool


def test_bad_arguments_and_unknown_tools_come_back_as_bilingual_errors(planner):
    advisor, model = advisor_with(
        planner,
        [
            calling("estimate_memory", {"model": "qwen2.5-7b", "batch": "lots"}),
            calling("estimate_vram", {"model": "qwen2.5-7b"}),
            AIMessage(content="我需要更准确的参数。"),
        ],
    )

    response = advisor.answer("Qwen2.5-7B 需要多少显存？")

    assert response.mode == "llm" and response.answer == "我需要更准确的参数。"
    bad_args, unknown = (payload["error"] for payload in tool_messages(model.received[-1]))
    assert bad_args["code"] == "invalid_arguments" and "batch" in bad_args["en"] and "整数" in bad_args["zh"]
    assert unknown["code"] == "unknown_tool" and "estimate_memory" in unknown["suggestions"] and "estimate_vram" in unknown["zh"]
    assert [c.error["code"] for c in response.tool_calls] == ["invalid_arguments", "unknown_tool"]
    assert "Simplified Chinese" in model.received[0][0].content


def test_arguments_that_are_not_json_get_an_error_and_another_turn(planner):
    broken = AIMessage(
        content="",
        invalid_tool_calls=[{"name": "estimate_memory", "args": '{"model": "qwen2.5-7b",', "id": "call_bad", "error": "Expecting value"}],
    )
    advisor, model = advisor_with(planner, [broken, calling("estimate_memory", QWEN_7B), AIMessage(content="Done.")])

    response = advisor.answer("Memory for Qwen2.5-7B?")

    assert response.mode == "llm" and response.answer == "Done."
    error = tool_messages(model.received[1])[0]["error"]
    assert error["code"] == "malformed_json" and "JSON" in error["zh"]
    assert [c.error is None for c in response.tool_calls] == [False, True]
    assert response.tool_calls[0].args == {"raw_arguments": '{"model": "qwen2.5-7b",'}


def test_history_reaches_the_model_in_order(planner):
    advisor, model = advisor_with(planner, [AIMessage(content="Yes, with QLoRA.")])
    history = [
        ChatTurn(role="user", content="Fine-tune Llama 3 8B on a 4090?"),
        ChatTurn(role="assistant", content="Full fine-tuning does not fit."),
    ]

    advisor.answer("And with QLoRA?", history)

    assert [(m.type, m.content) for m in model.received[0][1:]] == [
        ("human", "Fine-tune Llama 3 8B on a 4090?"),
        ("ai", "Full fine-tuning does not fit."),
        ("human", "And with QLoRA?"),
    ]


@pytest.mark.parametrize("rounds, mode", [(2, "llm"), (3, "offline")])
def test_max_steps_bounds_the_tool_loop(planner, rounds, mode):
    replies = [calling("estimate_memory", QWEN_7B) for _ in range(rounds)] + [AIMessage(content="Final.")]
    advisor, model = advisor_with(planner, replies, max_steps=2)

    response = advisor.answer("How much memory does Qwen2.5-7B need?")

    assert response.mode == mode
    assert len(model.received) == min(rounds, 2) + 1  # the third round is refused before its tools run
    if mode == "offline":
        assert "too many tool steps" in response.notice and response.answer.startswith("> ")


def test_empty_final_answer_falls_back_with_a_chinese_notice(planner):
    advisor, _ = advisor_with(planner, [AIMessage(content="  ")])
    question = "部署 Qwen2.5-7B 推理要多少显存？"

    response = advisor.answer(question)

    offline = planner.answer(question, [])
    assert response.mode == "offline" and response.language == "zh"
    assert "返回了空回答" in response.notice and "离线" in response.notice
    assert response.answer.endswith(offline.answer)
    assert [c.name for c in response.tool_calls] == [c.name for c in offline.tool_calls]


def test_sources_of_a_knowledge_search_follow_the_answer_once(planner):
    advisor, _ = advisor_with(
        planner,
        [calling("search_knowledge", {"query": "why does training run out of GPU memory"}), AIMessage(content="Lower the batch size or turn on activation checkpointing.")],
    )

    response = advisor.answer("Why does my training run out of GPU memory?")

    assert response.mode == "llm" and response.sources
    assert response.answer.startswith("Lower the batch size") and response.answer.count("**Sources**") == 1
    assert f"]({response.sources[0].urls[0]}" in response.answer or response.sources[0].title in response.answer
