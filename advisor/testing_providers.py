"""Provider hooks for ``ScriptedOpenAIServer`` that imitate real endpoints' quirks.

Each returns ``None`` (let the script answer), a ``Step`` (answer this instead) or
``(status, payload)`` (reject the request with that server's own error), as documented on
``advisor.testing.Provider``. The error texts are the ones those servers send.
"""

from __future__ import annotations

import json
from typing import Any

from advisor.testing import Provider, Step


def vllm(tool_parser: bool) -> Provider:
    """vLLM's OpenAI server. Without ``--enable-auto-tool-choice --tool-call-parser`` it refuses
    requests whose tool_choice is (or defaults to) "auto"; with ``tool_choice: "none"`` or no
    tools, the model still writes Hermes ``<tool_call>`` text, which the script supplies."""

    def hook(body: dict[str, Any], headers: dict[str, str]):
        if tool_parser or not body.get("tools"):
            return None
        if body.get("tool_choice", "auto") in ("auto", "required"):
            message = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
            return 400, {"object": "error", "message": message, "type": "BadRequestError", "param": None, "code": 400}
        return None

    return hook


def ollama(num_ctx: int, invented: str = "You need about 12 GB of VRAM.") -> Provider:
    """Ollama's ``/v1`` endpoint: a prompt longer than ``num_ctx`` tokens is cut to fit, silently.

    The model then no longer sees the start of the prompt (system rules, tool list) and answers
    from memory: ``invented`` stands for that answer, and usage reports ``num_ctx`` prompt tokens.
    """

    def hook(body: dict[str, Any], headers: dict[str, str]):
        tokens = len(json.dumps(body, ensure_ascii=False)) // 4
        if tokens <= num_ctx:
            return None
        return Step(text=invented, prompt_tokens=num_ctx)

    return hook


def deepseek_thinking() -> Provider:
    """DeepSeek in thinking mode: an assistant turn that called tools must send its reasoning_content back."""

    def hook(body: dict[str, Any], headers: dict[str, str]):
        for message in body.get("messages", []):
            if message.get("role") == "assistant" and message.get("tool_calls") and "reasoning_content" not in message:
                error = {"message": "The reasoning_content in the thinking mode must be passed back to the API.",
                         "type": "invalid_request_error", "param": None, "code": "invalid_request_error"}  # fmt: skip
                return 400, {"error": error}
        return None

    return hook


def dashscope_thinking() -> Provider:
    """Qwen on DashScope: a hybrid-thinking model thinks by default and then only accepts streamed calls."""

    def hook(body: dict[str, Any], headers: dict[str, str]):
        if body.get("stream") or body.get("enable_thinking") is False:
            return None
        error = {"code": "invalid_parameter_error", "message": "parameter.enable_thinking must be set to false for non-streaming calls",
                 "type": "invalid_request_error", "param": None}  # fmt: skip
        return 400, {"error": error}

    return hook


def openai_reasoning(api_key: str) -> Provider:
    """OpenAI: a key is required, and reasoning models refuse ``max_tokens`` (they want ``max_completion_tokens``)."""

    def hook(body: dict[str, Any], headers: dict[str, str]):
        if headers.get("authorization") != f"Bearer {api_key}":
            return 401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "code": "invalid_api_key"}}
        if "max_tokens" in body:
            message = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
            return 400, {
                "error": {"message": message, "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}
            }
        return None

    return hook
