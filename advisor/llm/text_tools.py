"""Tool calls written as text, and a text protocol for servers that take no ``tools``.

A model served without a tool parser (vLLM without ``--tool-call-parser``, llama.cpp without
``--jinja``, many gateways) still *tries* to call tools: it writes Hermes/Qwen
``<tool_call>{"name": …, "arguments": …}</tool_call>`` blocks, Qwen-Agent ``✿FUNCTION✿``/``✿ARGS✿``
lines, Mistral ``[TOOL_CALLS]``, Llama ``<|python_tag|>`` or a bare JSON object into the content.
``extract_tool_calls`` turns all of them into real tool calls; ``clean_answer`` makes sure none
of that markup (nor ``<think>`` blocks) ever reaches a user.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_FUNCTION_TAG = re.compile(r"<function=([\w.-]+)>\s*(.*?)\s*(?:</function>|\Z)", re.DOTALL)
_QWEN_AGENT = re.compile(r"✿FUNCTION✿\s*[:：]\s*([\w.-]+)\s*✿ARGS✿\s*[:：]\s*(.*?)(?=✿RESULT✿|✿RETURN✿|✿FUNCTION✿|\Z)", re.DOTALL)
_MISTRAL = re.compile(r"\[TOOL_CALLS\]\s*(.*)", re.DOTALL)
_PYTHON_TAG = re.compile(r"<\|python_tag\|>\s*(.*)", re.DOTALL)
_FENCE = re.compile(r"\A```(?:json)?\s*(.*?)\s*```\Z", re.DOTALL)
# Anything in a model's answer that a browser would fetch by itself (an image, a frame, a media file):
# a prompt-injected answer could put conversation text into its URL. Kept as a link the reader can follow.
_MARKDOWN_IMAGE = re.compile(r"!\[([^\]]*)\]")
_FETCHING_TAG = re.compile(r"<\s*(?:img|image|video|audio|source|picture|iframe|frame|object|embed|link|meta|svg|input)\b[^>]*>", re.IGNORECASE)
_TAG_URL = re.compile(r"""(?:src|href|poster|data|srcset|content)\s*=\s*["']?([^"'\s>]+)""", re.IGNORECASE)
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
_RETURN = re.compile(r"✿RETURN✿\s*[:：]\s*")
_LEFTOVER = re.compile(
    r"</?tool_call>|</?tool_response>|</?tools>|</think>|<\|(?:im_start|im_end|eot_id|python_tag|end|start_header_id|end_header_id)\|>"
    r"|\[TOOL_CALLS\]|✿(?:FUNCTION|ARGS|RESULT)✿\s*[:：]?[^\n]*"
)


def _new_id() -> str:
    return f"call_text_{uuid.uuid4().hex[:12]}"


def _loads(raw: str) -> Any:
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, ValueError):
        return None


def _as_call(obj: Any, raw: str) -> tuple[dict | None, dict | None]:
    """A tool call from ``{"name", "arguments"|"parameters"}`` (or OpenAI's ``{"function": …}``)."""
    if isinstance(obj, dict) and isinstance(obj.get("function"), dict):
        obj = obj["function"]
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        return None, {
            "name": None,
            "args": raw[:2000],
            "id": _new_id(),
            "error": "no tool name in the tool call",
            "type": "invalid_tool_call",
        }
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        parsed = _loads(args) if args.strip() else {}
        if not isinstance(parsed, dict):
            return None, {
                "name": obj["name"],
                "args": args[:2000],
                "id": _new_id(),
                "error": "arguments are not a JSON object",
                "type": "invalid_tool_call",
            }
        args = parsed
    if not isinstance(args, dict):
        return None, {
            "name": obj["name"],
            "args": json.dumps(args)[:2000],
            "id": _new_id(),
            "error": "arguments are not a JSON object",
            "type": "invalid_tool_call",
        }
    return {"name": obj["name"], "args": args, "id": _new_id(), "type": "tool_call"}, None


def _calls_from_json(raw: str) -> tuple[list[dict], list[dict]]:
    obj = _loads(raw)
    if obj is None:
        return [], [
            {"name": None, "args": raw[:2000], "id": _new_id(), "error": "tool call is not valid JSON", "type": "invalid_tool_call"}
        ]
    items = obj.get("tool_calls") if isinstance(obj, dict) and isinstance(obj.get("tool_calls"), list) else obj
    calls, invalid = [], []
    for item in items if isinstance(items, list) else [items]:
        call, bad = _as_call(item, raw)
        calls += [call] if call else []
        invalid += [bad] if bad else []
    return calls, invalid


def _looks_like_calls(obj: Any, tool_names: set[str]) -> bool:
    if isinstance(obj, dict) and isinstance(obj.get("tool_calls"), list):
        obj = obj["tool_calls"]
    items = obj if isinstance(obj, list) and obj else [obj]
    for item in items:
        item = item.get("function", item) if isinstance(item, dict) else item
        if not (
            isinstance(item, dict) and item.get("name") in tool_names and ({"arguments", "parameters"} & item.keys() or len(item) == 1)
        ):
            return False
    return True


def extract_tool_calls(text: str, tool_names: set[str]) -> tuple[str, list[dict], list[dict]]:
    """(text with the calls removed, tool calls, invalid tool calls) found in a model's content."""
    if not text:
        return text, [], []
    text = _THINK.sub("", text)
    calls: list[dict] = []
    invalid: list[dict] = []

    def take(pattern: re.Pattern, handle) -> None:
        nonlocal text
        if pattern.search(text):
            for match in pattern.finditer(text):
                found, bad = handle(match)
                calls.extend(found)
                invalid.extend(bad)
            text = pattern.sub("", text)

    take(_HERMES, lambda m: _calls_from_json(m.group(1)))
    take(_FUNCTION_TAG, lambda m: _calls_from_json(json.dumps({"name": m.group(1), "arguments": m.group(2)})))
    take(_QWEN_AGENT, lambda m: _calls_from_json(json.dumps({"name": m.group(1), "arguments": m.group(2).strip()})))
    take(_MISTRAL, lambda m: _calls_from_json(m.group(1)))
    take(_PYTHON_TAG, lambda m: _calls_from_json(m.group(1)))
    if not calls and not invalid:
        stripped = text.strip()
        fenced = _FENCE.match(stripped)
        candidate = fenced.group(1) if fenced else stripped
        if candidate[:1] in "{[" and _looks_like_calls(_loads(candidate), tool_names):
            calls, invalid = _calls_from_json(candidate)
            text = ""
    return text.strip(), calls, invalid


def clean_answer(text: str) -> str:
    """The answer without thinking blocks, any tool-call markup a model left in it, or images."""
    text = _THINK.sub("", text or "")
    text = _RETURN.sub("", text)
    return without_fetches(_LEFTOVER.sub("", text)).strip()


def without_fetches(text: str) -> str:
    """Markdown images become links and HTML tags that load something are dropped (their URL kept as a
    link): nothing in a model's answer makes the reader's browser call another host on its own."""
    text = _MARKDOWN_IMAGE.sub(lambda m: f"[{m.group(1) or 'image'}]", text)

    def as_link(match: re.Match) -> str:
        url = _TAG_URL.search(match.group(0))
        return f"[link]({url.group(1)})" if url and url.group(1).startswith(("http://", "https://")) else ""

    return _FETCHING_TAG.sub(as_link, text)


def parse_message(message: AIMessage, tool_names: set[str]) -> AIMessage:
    """``message`` with tool calls written in its text turned into real (or invalid) tool calls."""
    content = message.content if isinstance(message.content, str) else _text_of(message.content)
    if message.tool_calls or message.invalid_tool_calls:
        return message.model_copy(update={"content": clean_answer(content)}) if content != clean_answer(content) else message
    text, calls, invalid = extract_tool_calls(content, tool_names)
    if not calls and not invalid:
        return message
    return message.model_copy(update={"content": text, "tool_calls": calls, "invalid_tool_calls": invalid})


def _text_of(parts: list) -> str:
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in parts)


# --- the text protocol, for servers that refuse ``tools`` ------------------------------------------

TOOLS_PREAMBLE = """

# Tools

You can call functions. Their signatures are inside <tools></tools>:
<tools>
{tools}
</tools>

To call a function, reply with nothing but one block per call:
<tool_call>
{{"name": "<function name>", "arguments": {{<arguments as a JSON object>}}}}
</tool_call>
The results come back inside <tool_response></tool_response>. Write the final answer only when you have the figures."""


def tools_prompt(tools: list[dict[str, Any]]) -> str:
    return TOOLS_PREAMBLE.format(tools="\n".join(json.dumps(t["function"], ensure_ascii=False, separators=(",", ":")) for t in tools))


def textify(messages: list[BaseMessage]) -> list[BaseMessage]:
    """The conversation with tool calls and results written as Hermes text (user/assistant turns only)."""
    out: list[BaseMessage] = []
    for message in messages:
        if isinstance(message, AIMessage) and (message.tool_calls or message.invalid_tool_calls):
            blocks = [json.dumps({"name": c["name"], "arguments": c["args"]}, ensure_ascii=False) for c in message.tool_calls]
            blocks += [
                json.dumps({"name": c.get("name"), "arguments": c.get("args")}, ensure_ascii=False) for c in message.invalid_tool_calls
            ]
            text = message.content if isinstance(message.content, str) else _text_of(message.content)
            calls = "\n".join(f"<tool_call>\n{b}\n</tool_call>" for b in blocks)
            out.append(AIMessage(content=f"{text}\n{calls}".strip()))
        elif isinstance(message, ToolMessage):
            block = f"<tool_response>\n{message.content}\n</tool_response>"
            if out and isinstance(out[-1], HumanMessage) and str(out[-1].content).startswith("<tool_response>"):
                out[-1] = HumanMessage(content=f"{out[-1].content}\n{block}")
            else:
                out.append(HumanMessage(content=block))
        else:
            out.append(message)
    return out
