"""Remembers which component shows which text, so the zh/en toggle can relabel the whole UI in one event."""

from __future__ import annotations

from typing import Any

import gradio as gr

from advisor.interfaces.ui_text import t


class Relabeler:
    """Components registered with the text keys of their attributes (label, placeholder, value, info)."""

    def __init__(self) -> None:
        self._entries: list[tuple[Any, dict[str, str]]] = []

    def add(self, component: Any, **keys: str) -> Any:
        """Register ``component``; ``keys`` maps an attribute to a ``ui_text`` key, e.g. label="gpu"."""
        self._entries.append((component, keys))
        return component

    @property
    def components(self) -> list[Any]:
        return [component for component, _ in self._entries]

    def updates(self, language: str) -> list[dict]:
        """One ``gr.update`` per registered component, in registration order (the event's outputs order)."""
        return [gr.update(**{attr: t(key, language) for attr, key in keys.items()}) for _, keys in self._entries]
