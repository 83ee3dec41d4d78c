"""Remembers which component shows which text, so the zh/en toggle can relabel the whole UI in one event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from advisor.interfaces.ui_text import t

Choices = Callable[[str], list[tuple[str, Any]]]  # language → (label, value) pairs


class Relabeler:
    """Components registered with the text keys of their attributes (label, placeholder, value, info),
    and for dropdowns the function that lists their choices in a language."""

    def __init__(self) -> None:
        self._entries: list[tuple[Any, dict[str, str], Choices | None]] = []

    def add(self, component: Any, choices: Choices | None = None, **keys: str) -> Any:
        """Register ``component``; ``keys`` maps an attribute to a ``ui_text`` key, e.g. label="gpu"."""
        self._entries.append((component, keys, choices))
        return component

    @property
    def components(self) -> list[Any]:
        return [component for component, _, _ in self._entries]

    def updates(self, language: str) -> list[dict]:
        """One ``gr.update`` per registered component, in registration order (the event's outputs order)."""
        out = []
        for _, keys, choices in self._entries:
            attrs: dict[str, Any] = {attr: t(key, language) for attr, key in keys.items()}
            if choices is not None:
                attrs["choices"] = choices(language)  # values stay; only what people read changes
            out.append(gr.update(**attrs))
        return out
