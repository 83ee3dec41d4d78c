"""The facade every interface calls: LLM mode when an endpoint is configured, offline planner otherwise."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from advisor.agent.llm import LLMAgent
from advisor.agent.planner import OfflinePlanner
from advisor.contract import AdvisorResponse, ChatTurn
from advisor.language import detect_language

log = logging.getLogger(__name__)

FALLBACK_NOTICE = {
    "en": "The language-model endpoint could not answer ({reason}); this answer comes from the built-in offline planner.",
    "zh": "大模型接口暂时无法回答（{reason}），以下回答来自内置的离线规划器。",
}


class Advisor:
    def __init__(self, planner: OfflinePlanner, llm: LLMAgent | None = None):
        self.planner = planner
        self.llm = llm

    @property
    def mode(self) -> str:
        return "llm" if self.llm else "offline"

    def answer(self, message: str, history: Sequence[ChatTurn] = ()) -> AdvisorResponse:
        history = list(history)
        if self.llm is None or not message.strip():
            return self.planner.answer(message, history)
        language = detect_language(message)
        try:
            return self.llm.answer(message, history, language)
        except Exception as exc:  # any endpoint failure: the user still gets an answer
            reason = type(exc).__name__
            log.warning("LLM endpoint failed (%s); falling back to offline mode", reason)
            response = self.planner.answer(message, history)
            notice = FALLBACK_NOTICE[response.language].format(reason=reason)
            return response.model_copy(update={"notice": notice, "answer": f"> {notice}\n\n{response.answer}"})
