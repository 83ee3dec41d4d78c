"""How LLM mode reports that it could not answer (kept apart so offline mode never imports LangChain)."""


class LLMFailure(RuntimeError):
    """LLM mode could not answer. ``reason`` is a stable slug the facade turns into a bilingual notice."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
