"""Offline mode: a deterministic bilingual planner that calls the same tools as the LLM agent."""

from __future__ import annotations

from advisor.contract import AdvisorResponse, ChatTurn
from advisor.language import analyze_language
from advisor.registry import Registry


class OfflinePlanner:
    def __init__(self, registry: Registry):
        self.registry = registry

    def answer(self, message: str, history: list[ChatTurn]) -> AdvisorResponse:
        info = analyze_language(message)
        return AdvisorResponse(answer="…", language=info.language, mode="offline")
