"""How LLM mode survives real endpoints: failure reasons, retry waits, provider quirks, a circuit breaker."""

from __future__ import annotations

import email.utils
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr

from advisor.failure import LLMFailure

# Failures of the endpoint itself (as opposed to a confused model): they count towards the breaker.
ENDPOINT_FAILURES = {"timeout", "unreachable", "auth", "rate_limited", "server_error", "bad_response", "deadline"}
MAX_BACKOFF_S = 4.0


def secret_values(model: Any) -> list[str]:
    """The keys a chat model holds (its ``SecretStr`` fields, e.g. ChatOpenAI's API key)."""
    values = (v.get_secret_value() for v in vars(model).values() if isinstance(v, SecretStr))
    return [v for v in values if len(v) >= 4]  # a one-letter "key" would blank out ordinary text


def redact(text: str, secrets: list[str]) -> str:
    """``text`` without the keys: providers may quote a rejected key in their error message."""
    for secret in secrets:
        text = text.replace(secret, "[redacted]")
    return text


def failure_reason(exc: BaseException) -> str:
    """A stable slug for an exception raised while calling the model."""
    if isinstance(exc, LLMFailure):
        return exc.reason
    openai = sys.modules.get("openai")  # not imported yet: the error cannot be the SDK's, skip the slow import
    if openai is not None:
        if isinstance(exc, openai.APITimeoutError):  # before APIConnectionError: it is a subclass
            return "timeout"
        if isinstance(exc, openai.APIConnectionError):
            return "unreachable"
        if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
            return "auth"
        if isinstance(exc, openai.RateLimitError):
            return "rate_limited"
        if isinstance(exc, openai.APIStatusError):
            return "server_error"
        if isinstance(exc, openai.APIResponseValidationError):
            return "bad_response"
    if isinstance(exc, (ValueError, KeyError, TypeError)):  # a 200 whose body is no chat completion
        return "bad_response"
    return "error"


def status_code(exc: BaseException) -> int | None:
    code = getattr(exc, "status_code", None)
    return code if isinstance(code, int) else None


def is_retryable(exc: BaseException) -> bool:
    reason = failure_reason(exc)
    if reason == "server_error":
        code = status_code(exc)
        return code is None or code >= 500 or code == 408
    return reason in {"timeout", "unreachable", "rate_limited", "bad_response"}


def retry_after_s(exc: BaseException) -> float | None:
    """The wait a 429/503 asks for (``retry-after-ms``, ``retry-after`` seconds or HTTP date), if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        if (ms := headers.get("retry-after-ms")) is not None:
            return max(0.0, float(ms) / 1000)
        raw = headers.get("retry-after")
        if raw is None:
            return None
        try:
            return max(0.0, float(raw))
        except ValueError:
            when = email.utils.parsedate_to_datetime(raw)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def backoff_s(attempt: int) -> float:
    """Exponential back-off with jitter: about 0.5, 1, 2, 4 s."""
    return min(MAX_BACKOFF_S, 0.5 * 2**attempt) * random.uniform(0.8, 1.2)


def brief(exc: BaseException) -> str:
    """What the log may say about an endpoint's error: its HTTP status and the error's type, never its
    body or message (providers quote keys, URLs with credentials and prompts back in them)."""
    code = status_code(exc)
    return f"HTTP {code} {type(exc).__name__}" if code is not None else type(exc).__name__


def error_text(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc)
    body = getattr(exc, "body", None)
    return f"{message} {body}".lower() if body else str(message).lower()


def quirk_of(exc: BaseException) -> str | None:
    """A 400 that says how to talk to this server instead: switch and try again at once."""
    if status_code(exc) != 400:
        return None
    text = error_text(exc)
    if any(
        hint in text
        for hint in (
            "tool-call-parser",
            "enable-auto-tool-choice",
            "does not support tools",
            "tool choice",
            "tools are not supported",
            "tool_choice",
        )
    ):
        return "text_tools"
    if "enable_thinking" in text:
        return "no_thinking"
    if "max_tokens" in text and "max_completion_tokens" in text:
        return "completion_tokens"
    return None


@dataclass
class Quirks:
    """What this process learned about the endpoint; shared by all answers, set once and kept."""

    text_tools: bool = False
    no_thinking: bool = False
    completion_tokens: bool = False

    def learn(self, quirk: str) -> bool:
        """Record ``quirk``; False when it was known already (then retrying would not help)."""
        if getattr(self, quirk):
            return False
        setattr(self, quirk, True)
        return True


class CircuitBreaker:
    """After ``failures`` endpoint failures in a row, skip the endpoint for ``cooldown_s``.

    When the cool-down is over one answer tries the endpoint again (half-open); its success closes
    the breaker, its failure opens it for another cool-down. A 429 asking for a longer wait than
    the cool-down stretches it.
    """

    def __init__(self, failures: int = 3, cooldown_s: float = 30.0, clock: Callable[[], float] = time.monotonic):
        self.failures = failures
        self.cooldown_s = cooldown_s
        self.clock = clock
        self._streak = 0
        self._last_reason: str | None = None
        self._open_until: float | None = None
        self._probing = False
        self._lock = threading.Lock()

    def allow(self) -> bool:
        with self._lock:
            if self._open_until is None:
                return True
            if self.clock() < self._open_until or self._probing:
                return False
            self._probing = True  # half-open: this answer is the probe
            return True

    def record_success(self) -> None:
        with self._lock:
            self._streak, self._open_until, self._probing, self._last_reason = 0, None, False, None

    def record_failure(self, reason: str, retry_after: float | None = None) -> None:
        if reason not in ENDPOINT_FAILURES:
            return
        with self._lock:
            self._streak += 1
            self._last_reason = reason
            if self._probing or self._streak >= self.failures:
                self._open_until = self.clock() + max(self.cooldown_s, retry_after or 0.0)
            self._probing = False

    def state(self) -> tuple[str, str | None, float]:
        """("closed" | "open" | "half_open", last failure reason, seconds until the next try)."""
        with self._lock:
            if self._open_until is None:
                return "closed", self._last_reason, 0.0
            wait = self._open_until - self.clock()
            return ("open" if wait > 0 else "half_open"), self._last_reason, max(0.0, wait)

    @property
    def streak(self) -> int:
        return self._streak
