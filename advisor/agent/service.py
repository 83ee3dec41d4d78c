"""The facade every interface calls: LLM mode when an endpoint is configured, offline planner otherwise."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from advisor.agent.failure import LLMFailure
from advisor.agent.planner import OfflinePlanner
from advisor.contract import AdvisorResponse, ChatTurn
from advisor.labels import label
from advisor.language import detect_language

if TYPE_CHECKING:  # LangChain is imported only when an LLM endpoint is configured
    from advisor.agent.llm import LLMAgent

log = logging.getLogger(__name__)

FALLBACK_NOTICE = {
    "en": "The language-model endpoint could not answer ({reason}); this answer comes from the built-in offline planner.",
    "zh": "大模型接口暂时无法回答（{reason}），以下回答来自内置的离线规划器。",
}
# Human words for ``LLMFailure.reason``; never the exception text, which may name hosts or keys.
FALLBACK_REASONS = {
    "timeout": ("timed out", "响应超时"),
    "unreachable": ("unreachable", "无法连接"),
    "auth": ("API key rejected", "API 密钥被拒绝"),
    "rate_limited": ("rate-limited", "请求过于频繁，已被限流"),
    "server_error": ("server error", "服务端出错"),
    "step_limit": ("too many tool steps", "工具调用步数超过上限"),
    "empty_answer": ("empty answer", "返回了空回答"),
    "error": ("unexpected error", "发生意外错误"),
}


def fallback_notice(reason: str, language: str) -> str:
    return FALLBACK_NOTICE[language].format(reason=label(FALLBACK_REASONS.get(reason, FALLBACK_REASONS["error"]), language))


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
        except Exception as exc:  # any endpoint failure (or agent bug): the user still gets an answer
            reason = exc.reason if isinstance(exc, LLMFailure) else "error"
            log.warning("LLM endpoint failed (%s: %s); falling back to offline mode", reason, exc)
            response = self.planner.answer(message, history)
            notice = fallback_notice(reason, response.language)
            return response.model_copy(update={"notice": notice, "answer": f"> {notice}\n\n{response.answer}"})
