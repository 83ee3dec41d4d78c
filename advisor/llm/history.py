"""Earlier turns for the model: their tool results in compact form, so follow-ups reuse the figures.

Clients are stateless. REST and the web chat send each assistant turn's ``tool_calls`` back;
OpenAI-compatible clients only send the text, so the advisor also remembers the tool calls of
its recent answers by their text (``ToolMemory``) and finds them again when a follow-up quotes
that answer. A multi-process deployment simply misses more often: the model then calls the
tools again.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from advisor.contract import ChatTurn, ToolCall

MAX_COMPACT_CHARS = 1500
MAX_LIST_ITEMS = 8
MAX_STRING_CHARS = 160
MAX_DEPTH = 4
TOOL_RESULT_CHARS = 6000  # what the model reads back from one tool call in the current turn
TURNS_WITH_TOOLS = 3  # only the latest few assistant turns bring their tool results along
# Big arrays no answer quotes (a monthly cost series, the whole MFU table) never go to the model;
# in earlier turns' results, formulas and provenance go too.
BULKY_KEYS = frozenset({"series", "mfu_table", "sensitivity_details", "aliases", "availability_en", "availability_zh", "meta", "spec_sources"})
DROPPED_KEYS = BULKY_KEYS | {"mfu_row", "formula", "sources", "actions", "evidence", "source", "urls", "note", "estimate"}
GPU_MARKERS = {"memory_gb", "bandwidth_gbs"}
GPU_KEYS = {
    "id",
    "name",
    "memory_gb",
    "bandwidth_gbs",
    "bf16_tflops",
    "fp8_tflops",
    "tdp_w",
    "china",
    "inference_only",
    "purchase_price",
    "cloud_price",
}
PRICE_KEYS = {"amount", "currency", "date"}


def _pick_language(value: dict[str, Any], language: str) -> dict[str, Any]:
    """``formula`` / ``formula_zh`` pairs: keep the one in ``language`` under the plain key."""
    if not any(k.endswith("_zh") for k in value):
        return value
    picked = {k: v for k, v in value.items() if not k.endswith("_zh")}
    if language == "zh":
        picked.update({k[:-3]: v for k, v in value.items() if k.endswith("_zh") and v})
    return picked


def _compact(value: Any, language: str, items: int, chars: int, dropped: frozenset[str], depth: int = 0) -> Any:
    if isinstance(value, dict):
        if set(value) == {"en", "zh"}:  # bilingual text: the user's language only
            return _compact(value.get(language) or value.get("en"), language, items, chars, dropped, depth)
        if GPU_MARKERS <= value.keys():  # a catalog GPU: its headline specs, prices without their notes
            value = {
                k: ({p: q for p, q in v.items() if p in PRICE_KEYS} if isinstance(v, dict) else v)
                for k, v in value.items()
                if k in GPU_KEYS
            }
        value = _pick_language(value, language)
        if depth >= MAX_DEPTH:
            return {k: v for k, v in value.items() if isinstance(v, (int, float, bool)) and k not in dropped}
        return {k: _compact(v, language, items, chars, dropped, depth + 1) for k, v in value.items() if k not in dropped and v is not None}
    if isinstance(value, list):
        return [_compact(v, language, items, chars, dropped, depth + 1) for v in value[:items]]
    if isinstance(value, str) and len(value) > chars:
        return value[: chars - 1] + "…"
    if isinstance(value, float) and dropped is DROPPED_KEYS:  # earlier turns: 4 significant digits are plenty
        return float(f"{value:.4g}") if abs(value) < 1e6 else round(value)
    return value


def _fits(value: Any, limit: int) -> bool:
    return len(json.dumps(value, ensure_ascii=False, default=str)) <= limit


def compact_result(result: dict[str, Any] | None, language: str = "en", limit: int = MAX_COMPACT_CHARS) -> dict[str, Any] | None:
    """A tool result within ``limit`` characters of JSON, in one language: fewer list items and shorter
    texts until it fits. Past ``MAX_COMPACT_CHARS`` (a result the model reads now) formulas stay."""
    if result is None:
        return None
    dropped = BULKY_KEYS if limit > MAX_COMPACT_CHARS else DROPPED_KEYS
    widest = max(MAX_LIST_ITEMS, limit // 300)
    steps = (
        (widest, 400),
        (widest, MAX_STRING_CHARS),
        (max(MAX_LIST_ITEMS, widest // 2), 80),
        (MAX_LIST_ITEMS, MAX_STRING_CHARS),
        (3, 80),
        (2, 40),
        (1, 24),
    )
    for items, chars in steps:
        compact = _compact(result, language, items, chars, dropped)
        compact.update({f"{k}_total": len(v) for k, v in result.items() if isinstance(v, list) and len(v) > items})
        if _fits(compact, limit):
            return compact
    return {k: v for k, v in compact.items() if isinstance(v, (int, float, bool)) or (isinstance(v, str) and len(v) < 40)}


def compact_calls(calls: Sequence[ToolCall], language: str = "en") -> list[ToolCall]:
    return [
        ToolCall(
            name=c.name,
            args={k: v for k, v in c.args.items() if len(str(v)) <= MAX_STRING_CHARS},
            result=compact_result(c.result, language),
            error=c.error and {"code": c.error.get("code")},
        )
        for c in calls
    ]


def _key(text: str) -> str:
    return hashlib.sha256(text.strip().encode()).hexdigest()


class ToolMemory:
    """The compact tool calls behind the last ``capacity`` answers, found again by the answer's text."""

    def __init__(self, capacity: int = 512):
        self.capacity = capacity
        self._items: OrderedDict[str, list[ToolCall]] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, answer: str, calls: Sequence[ToolCall], language: str = "en") -> None:
        if not answer.strip() or not calls:
            return
        with self._lock:
            self._items[_key(answer)] = compact_calls(calls, language)
            self._items.move_to_end(_key(answer))
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def recall(self, answer: str) -> list[ToolCall]:
        with self._lock:
            return list(self._items.get(_key(answer), []))


def with_tool_calls(history: Sequence[ChatTurn], memory: ToolMemory | None) -> list[ChatTurn]:
    """``history`` with each assistant turn's tool calls filled in from memory when the client sent none."""
    if memory is None:
        return list(history)
    turns = []
    for turn in history:
        if turn.role == "assistant" and not turn.tool_calls:
            recalled = memory.recall(turn.content)
            turn = turn.model_copy(update={"tool_calls": recalled}) if recalled else turn
        turns.append(turn)
    return turns


def carried_calls(history: Sequence[ChatTurn]) -> set[int]:
    """Indexes of the assistant turns whose tool results go to the model (the latest few)."""
    with_calls = [i for i, turn in enumerate(history) if turn.role == "assistant" and turn.tool_calls]
    return set(with_calls[-TURNS_WITH_TOOLS:])


def history_messages(history: Sequence[ChatTurn], language: str) -> list[Any]:
    """LangChain messages for ``history``: user and assistant turns, each recent answer preceded by its tool calls."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    carried = carried_calls(history)
    messages: list[Any] = []
    for i, turn in enumerate(history):
        if turn.role == "user":
            messages.append(HumanMessage(content=turn.content))
            continue
        if i in carried:
            calls = [c for c in turn.tool_calls if c.result is not None][:MAX_LIST_ITEMS]
            ids = [f"history_{i}_{j}" for j in range(len(calls))]
            if calls:
                messages.append(
                    AIMessage(
                        content="",
                        tool_calls=[{"name": c.name, "args": c.args, "id": id_, "type": "tool_call"} for c, id_ in zip(calls, ids)],
                    )
                )
                for call, id_ in zip(calls, ids):
                    content = json.dumps(compact_result(call.result, language), ensure_ascii=False, default=str)
                    messages.append(ToolMessage(content=content, tool_call_id=id_, name=call.name))
        messages.append(AIMessage(content=turn.content))
    return messages


def history_results(history: Sequence[ChatTurn]) -> list[dict[str, Any]]:
    """The (compact) results the model saw from earlier turns: they ground figures as well as new ones."""
    carried = carried_calls(history)
    return [c.result for i in sorted(carried) for c in history[i].tool_calls if c.result is not None]
