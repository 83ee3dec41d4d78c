"""Shared helpers for LLM-mode tests over real HTTP: settings from ADVISOR_LLM_* variables, figures from the tools."""

from __future__ import annotations

import json
from functools import lru_cache

from advisor.config import Settings
from advisor.deps import build_advisor, shared_registry

QWEN_7B = {"model": "qwen2.5-7b", "precision": "bf16", "context": 8192}
MEMORY_QUESTION = "How much GPU memory does Qwen2.5-7B need for inference at 8k context?"
MEMORY_QUESTION_ZH = "部署 Qwen2.5-7B 推理、8k 上下文要多少显存？"


def llm_env(base_url: str, **env: str) -> dict[str, str]:
    """Production variables for a scripted endpoint; short timeouts so no test waits long. ``env`` wins."""
    return {
        "ADVISOR_LLM_BASE_URL": base_url,
        "ADVISOR_LLM_MODEL": "scripted-qwen",
        "ADVISOR_LLM_API_KEY": "test-key",
        "ADVISOR_LLM_TIMEOUT": "2",
        "ADVISOR_LLM_MAX_RETRIES": "0",
        "ADVISOR_LLM_MAX_STEPS": "4",
        "ADVISOR_LLM_DEADLINE": "5",
    } | env


def advisor_for(base_url: str, **env: str):
    return build_advisor(Settings.from_env(llm_env(base_url, **env)))


@lru_cache(maxsize=1)
def qwen_total_gb() -> float:
    """What estimate_memory says for QWEN_7B: the figure a grounded answer quotes."""
    return shared_registry().call("estimate_memory", QWEN_7B).result["total_per_gpu_gb"]


def hermes(name: str, args: dict) -> str:
    """A tool call as a Qwen/Hermes model writes it when the server has no tool parser."""
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': args})}\n</tool_call>"


def tool_payloads(body: dict) -> list[dict]:
    """The tool results in a request body, as the model reads them."""
    return [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def warm_up_llm_mode(offline_advisor) -> None:
    """Pay the one-off costs outside the tests that time things: the planner's first answer (it
    trains its understanding model into a fresh data dir) and importing LangChain and the client."""
    from advisor.testing import unused_base_url

    offline_advisor.answer(MEMORY_QUESTION)
    advisor_for(unused_base_url()).answer("warm up", ())
