"""How LLM mode reports that it could not answer (kept apart so offline mode never imports LangChain)."""


class LLMFailure(RuntimeError):
    """LLM mode could not answer. ``reason`` is a stable slug the facade turns into a bilingual notice.

    ``retry_after`` is the wait a rate-limited endpoint asked for (it stretches the breaker's
    cool-down); ``ungrounded`` lists the figures an answer could not back with a tool result.
    """

    def __init__(self, reason: str, detail: str = "", *, retry_after: float | None = None, ungrounded: list[str] | None = None):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
        self.retry_after = retry_after
        self.ungrounded = ungrounded or []
