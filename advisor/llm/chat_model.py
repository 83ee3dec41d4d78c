"""The OpenAI-compatible client, adjusted for servers that are not OpenAI.

* ``max_tokens``: LangChain renames it ``max_completion_tokens``, which some compatible servers
  ignore or reject; it is sent as ``max_tokens`` unless the server asked for the new name.
* ``reasoning_content`` (DeepSeek, Qwen thinking models, vLLM reasoning parsers): LangChain drops
  it, but DeepSeek's thinking mode answers 400 unless an assistant turn that called tools sends it
  back. It is kept on the message and returned on later requests of the same answer.
* Retries are off here: the agent loop retries within the answer's deadline, honouring Retry-After.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage
from langchain_openai import ChatOpenAI

from advisor.config import LLMSettings

REASONING = "reasoning_content"
DEFAULT_TEMPERATURE = 0.1


class CompatChatOpenAI(ChatOpenAI):
    completion_tokens_field: bool = False  # send max_completion_tokens (OpenAI reasoning models) instead of max_tokens

    def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict:
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        if not self.completion_tokens_field and "max_completion_tokens" in payload:
            payload["max_tokens"] = payload.pop("max_completion_tokens")
        messages = self._convert_input(input_).to_messages()
        sent = payload.get("messages")
        if isinstance(sent, list) and len(sent) == len(messages):
            thinking = any(REASONING in getattr(m, "additional_kwargs", {}) for m in messages)
            for original, body in zip(messages, sent, strict=True):
                if isinstance(original, AIMessage) and body.get("role") == "assistant":
                    reasoning = original.additional_kwargs.get(REASONING)
                    if reasoning is not None or (thinking and body.get("tool_calls")):
                        body[REASONING] = reasoning or ""
        return payload

    def _create_chat_result(self, response: Any, generation_info: dict | None = None) -> Any:
        result = super()._create_chat_result(response, generation_info)
        raw = response if isinstance(response, Mapping) else response.model_dump()
        for generation, choice in zip(result.generations, raw.get("choices") or [], strict=False):
            reasoning = (choice.get("message") or {}).get(REASONING)
            if isinstance(reasoning, str) and isinstance(generation.message, AIMessage):
                generation.message.additional_kwargs[REASONING] = reasoning
        return result


def build_chat_model(settings: LLMSettings) -> CompatChatOpenAI:
    return CompatChatOpenAI(
        model=settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key,
        timeout=settings.timeout_s,
        max_retries=0,
        temperature=DEFAULT_TEMPERATURE,
        # Not model_kwargs: those land at the top level, where non-OpenAI fields are rejected.
        extra_body=settings.extra_body or None,
    )
