"""The chat tab's logic: turn an ``AdvisorResponse`` into streamed Chatbot messages (tool steps, then the answer).

``respond`` is a plain generator so it is tested without a browser; ``web.py`` wires it to components.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import gradio as gr
from pydantic import ValidationError

from advisor.contract import AdvisorResponse, ChatTurn, ToolCall
from advisor.events import AnswerOptions, ProgressEvent
from advisor.interfaces.door_text import TEXT
from advisor.interfaces.progress import progress_line, run_with_progress
from advisor.interfaces.ui_text import t
from advisor.interfaces.web_results import value_text
from advisor.labels import VERDICT, enum_label, pick, unit
from advisor.llm.history import compact_calls
from knowledge.bilingual import AdvisorError
from tools.common import LineItem

if TYPE_CHECKING:  # the agent package is heavy to import; this module only calls Advisor.answer
    from advisor.service import Advisor

log = logging.getLogger(__name__)

MAX_HISTORY_TURNS = 20  # enough context for follow-ups, bounded so a long session stays cheap
ANSWER_CHUNK_CHARS = 120
MAX_SUMMARY_LINES = 10
COMPACT_ARGS_CHARS = 100
MAX_ARGS_CHARS = 1500  # a pasted log can be long; the step shows its start, the tool saw all of it
# Headline fields of results, as people read them: (English, Chinese) with {} for the value.
HIGHLIGHTS = {field: (row["en"], row["zh"]) for field, row in TEXT.entry("highlights").items()}


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}" if abs(value) < 1e9 else f"{value:.3g}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _item(item: dict[str, Any], language: str) -> str:
    """'Depreciation per month: $5,271' — a line item as the calculator tabs show it."""
    try:
        shown = value_text(LineItem.model_validate(item), language)
    except ValidationError:  # a compacted result may have lost fields; the figure still shows
        shown = f"{_short(item['value'])} {unit(item['unit'], language)}".rstrip()
    return f"{_text(item['label'], language)}{pick(language, ': ', '：')}{shown}"


def _text(value: Any, language: str) -> str:
    """A bilingual ``Text`` dict (or a plain string) in ``language``."""
    if isinstance(value, dict):
        return str(value.get(language) or value.get("en") or "")
    return str(value)


def _findings(result: dict[str, Any], language: str) -> list[str]:
    """What a result without line items found: options, diagnoses, GPUs or documents, by name."""
    if result.get("options"):
        return [f"{o['count']}× {o['gpu_name']} · {_text(o.get('plan_label') or o['plan'], language)} · {_short(o['per_gpu_gb'])} GB"
                for o in result["options"]]  # fmt: skip
    if result.get("findings"):
        return [_text(f["title"], language) for f in result["findings"]]
    if result.get("hits"):
        return [str(h.get("title", "")) for h in result["hits"]]
    # "gpus" is a list of cards in a recommendation but a count in a cost result: only lists are rows
    rows = next((value for value in (result.get("rows"), result.get("gpus")) if isinstance(value, list)), [])
    gpus = [row.get("gpu", row) for row in rows if isinstance(row, dict)]
    return [str(g.get("name", "")) for g in gpus if isinstance(g, dict)]


def summarize_result(result: dict[str, Any], language: str) -> list[str]:
    """A few lines that say what a tool found, in ``language``: headline figures, then its line items
    (or the options, diagnoses, GPUs or documents it returned). Never field names."""
    lines = []
    for key, pair in HIGHLIGHTS.items():
        value = result.get(key)
        if value is not None:
            shown = enum_label(VERDICT, value, language) if key == "verdict" else _short(value)
            lines.append(pick(language, *pair).format(shown))
    items = [_item(item, language) for item in result.get("items") or [] if isinstance(item, dict) and {"label", "value", "unit"} <= item.keys()]
    lines += items or _findings(result, language)
    extra = len(lines) - MAX_SUMMARY_LINES
    return lines[:MAX_SUMMARY_LINES] + ([f"… (+{extra})"] if extra > 0 else [])


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


def decorate_answer(response: AdvisorResponse) -> str:
    """The answer Markdown with the notice above it (unless already there), and its details (formula
    tables, defaults, sources) folded under a "Details" toggle. The answer carries its own sources
    section; the chat adds none."""
    text = response.summary or response.answer
    if response.details:
        text += f"\n\n<details><summary>{t('details', response.language)}</summary>\n\n{response.details}\n\n</details>"
    if response.notice and response.notice not in text:
        text = f"> ⚠️ {response.notice}\n\n{text}"
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
    advisor: Advisor, message: str, messages: list | None, turns: list[dict] | None, ui_language: str, prices: str = ""
) -> Iterator[tuple[list, list[dict], str]]:
    """Stream one exchange: yields (chatbot messages, conversation turns, text left in the input box).
    ``prices``: the session's pasted prices YAML (validated in the settings), in force for this answer only."""
    messages = list(messages or [])
    turns = list(turns or [])
    if not message or not message.strip():
        yield messages + [gr.ChatMessage(role="assistant", content=t("empty_message", ui_language))], turns, ""
        return
    shown = messages + [gr.ChatMessage(role="user", content=message)]
    pending = gr.ChatMessage(role="assistant", content="", metadata={"title": f"⏳ {t('thinking', ui_language)}", "status": "pending"})
    yield shown + [pending], turns, ""
    live: dict[str, gr.ChatMessage] = {}  # steps of an answer in progress (LLM mode), by tool-call id
    response = None
    for item in run_with_progress(advisor, message, to_turns(turns), AnswerOptions(prices=prices) if prices else None):
        if isinstance(item, ProgressEvent):
            live[item.call_id or f"{item.kind}-{len(live)}"] = live_step(item, ui_language)
            yield shown + list(live.values()) + [pending], turns, ""
        elif isinstance(item, AdvisorResponse):
            response = item
        elif isinstance(item, BaseException):  # the planner should never raise; the user gets a sentence, the log the trace
            log.error("advisor failed on a chat message", exc_info=item)
    if response is None:
        yield shown + [gr.ChatMessage(role="assistant", content=t("unexpected_error", ui_language))], turns, ""
        return
    for call in response.tool_calls:
        shown = shown + [tool_step(call, response.language)]
        yield shown, turns, ""
    remembered = [c.model_dump() for c in compact_calls(response.tool_calls, response.language)]
    turns = turns + [{"role": "user", "content": message}, {"role": "assistant", "content": response.answer, "tool_calls": remembered}]
    for prefix in chunks(decorate_answer(response) or "…"):
        yield shown + [gr.ChatMessage(role="assistant", content=prefix)], turns, ""


def live_step(event: ProgressEvent, language: str) -> gr.ChatMessage:
    """A step while the answer is being worked out: a tool running (then its result), a retry, a check."""
    if event.kind == "tool_end" and event.call is not None:
        return tool_step(event.call, language)
    if event.kind == "tool_start":
        args = json.dumps(event.args, ensure_ascii=False, default=str)[:MAX_ARGS_CHARS]
        content = f"**{t('arguments', language)}**\n```json\n{args}\n```"
        return gr.ChatMessage(role="assistant", content=content, metadata={"title": f"🔧 {event.name}", "status": "pending"})
    return gr.ChatMessage(role="assistant", content="", metadata={"title": progress_line(event, language).strip(), "status": "done"})
