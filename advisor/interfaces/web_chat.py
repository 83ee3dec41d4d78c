"""The chat tab's logic: turn an ``AdvisorResponse`` into streamed Chatbot messages (tool steps, answer, sources).

``respond`` is a plain generator so it is tested without a browser; ``web.py`` wires it to components.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import gradio as gr

from advisor.contract import AdvisorResponse, ChatTurn, Source, ToolCall
from advisor.interfaces.ui_text import t
from knowledge.bilingual import AdvisorError

if TYPE_CHECKING:  # the agent package is heavy to import; this module only calls Advisor.answer
    from advisor.agent.service import Advisor

log = logging.getLogger(__name__)

MAX_HISTORY_TURNS = 20  # enough context for follow-ups, bounded so a long session stays cheap
ANSWER_CHUNK_CHARS = 120
MAX_SUMMARY_LINES = 10
COMPACT_ARGS_CHARS = 100
MAX_ARGS_CHARS = 1500  # a pasted log can be long; the step shows its start, the tool saw all of it
HIGHLIGHTS = ("verdict", "headroom_pct", "break_even_month", "wall_clock_days")  # headline fields of results


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return str(value)


def summarize_result(result: dict[str, Any], language: str) -> list[str]:
    """A few lines that say what a tool found: its headline fields, then its line items (or other scalars)."""
    lines = [f"{key}: {_short(result[key])}" for key in HIGHLIGHTS if result.get(key) is not None]
    items = [
        f"{_label(item, language)}: {_short(item['value'])} {item['unit']}"
        for item in result.get("items") or []
        if isinstance(item, dict) and {"label", "value", "unit"} <= item.keys()
    ]
    lines += items or [
        f"{key}: {_short(value)}" for key, value in result.items() if key not in HIGHLIGHTS and isinstance(value, str | int | float)
    ]
    extra = len(lines) - MAX_SUMMARY_LINES
    return lines[:MAX_SUMMARY_LINES] + ([f"… (+{extra})"] if extra > 0 else [])


def _label(item: dict[str, Any], language: str) -> str:
    label = item["label"]
    if isinstance(label, dict):
        return label.get(language) or label.get("en") or item.get("key", "")
    return str(label)


def tool_step(call: ToolCall, language: str) -> gr.ChatMessage:
    """One collapsible step: the arguments the tool got and a compact summary of what it returned."""
    args = json.dumps(call.args, ensure_ascii=False, default=str)
    if len(args) > COMPACT_ARGS_CHARS:  # one line reads best for a few arguments, one per line for many
        args = json.dumps(call.args, ensure_ascii=False, indent=1, default=str)
    if len(args) > MAX_ARGS_CHARS:
        args = args[:MAX_ARGS_CHARS] + " …"
    parts = [f"**{t('arguments', language)}**\n```json\n{args}\n```"]
    if call.error:
        error = AdvisorError(call.error.get("code", "error"), call.error.get("en", ""), call.error.get("zh", ""), call.error.get("suggestions", []))
        parts.append(f"**{t('tool_error', language)}**: {error.message(language)}")
    elif call.result is not None:
        parts.append(f"**{t('result', language)}**\n" + "\n".join(f"- {line}" for line in summarize_result(call.result, language)))
    return gr.ChatMessage(
        role="assistant",
        content="\n\n".join(parts),
        metadata={"title": f"🔧 {call.name}", "status": "done", "log": "⚠️" if call.error else "✓"},
    )


def source_line(source: Source) -> str:
    name = source.title + (f" · {source.section}" if source.section else "")
    links = " ".join(f"[{i + 1}]({url})" for i, url in enumerate(source.urls) if url.startswith(("http://", "https://")))
    return f"- {name} `{source.doc_id}`" + (f" {links}" if links else "")


def decorate_answer(response: AdvisorResponse) -> str:
    """The answer Markdown with the notice above it (unless already there) and the sources below it."""
    text = response.answer
    if response.notice and response.notice not in text:
        text = f"> ⚠️ {response.notice}\n\n{text}"
    if response.sources:
        text += f"\n\n**📚 {t('sources', response.language)}**\n" + "\n".join(source_line(s) for s in response.sources)
    return text


def chunks(text: str, size: int = ANSWER_CHUNK_CHARS) -> Iterator[str]:
    """Growing prefixes of ``text``, cut at line or word ends so half-rendered Markdown stays readable."""
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = max(text.rfind("\n", start, end), text.rfind(" ", start, end))
            end = cut + 1 if cut > start else end
        start = end
        yield text[:end]


def to_turns(turns: list[dict] | None) -> list[ChatTurn]:
    return [ChatTurn.model_validate(turn) for turn in (turns or [])][-MAX_HISTORY_TURNS:]


def respond(
    advisor: Advisor, message: str, messages: list | None, turns: list[dict] | None, ui_language: str
) -> Iterator[tuple[list, list[dict], str]]:
    """Stream one exchange: yields (chatbot messages, conversation turns, text left in the input box)."""
    messages = list(messages or [])
    turns = list(turns or [])
    if not message or not message.strip():
        yield messages + [gr.ChatMessage(role="assistant", content=t("empty_message", ui_language))], turns, ""
        return
    shown = messages + [gr.ChatMessage(role="user", content=message)]
    pending = gr.ChatMessage(role="assistant", content="", metadata={"title": f"⏳ {t('thinking', ui_language)}", "status": "pending"})
    yield shown + [pending], turns, ""
    try:
        response = advisor.answer(message, to_turns(turns))
    except Exception:  # the planner should never raise; if it does the user gets a sentence, the log gets the trace
        log.exception("advisor failed on a chat message")
        yield shown + [gr.ChatMessage(role="assistant", content=t("unexpected_error", ui_language))], turns, ""
        return
    for call in response.tool_calls:
        shown = shown + [tool_step(call, response.language)]
        yield shown, turns, ""
    turns = turns + [{"role": "user", "content": message}, {"role": "assistant", "content": response.answer}]
    for prefix in chunks(decorate_answer(response) or "…"):
        yield shown + [gr.ChatMessage(role="assistant", content=prefix)], turns, ""
