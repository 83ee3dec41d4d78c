"""Shared fixtures. Tests run offline: no model downloads, no outside network."""

from __future__ import annotations

import os
import tempfile

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# One throw-away knowledge index per test session, never the user's .advisor-data.
os.environ["ADVISOR_DATA_DIR"] = tempfile.mkdtemp(prefix="advisor-test-index-")
for secret in ("ADVISOR_LLM_BASE_URL", "ADVISOR_LLM_API_KEY", "OPENAI_API_KEY", "ADVISOR_API_TOKEN"):
    os.environ.pop(secret, None)


@pytest.fixture(scope="session")
def offline_advisor():
    from advisor.config import Settings
    from advisor.deps import build_advisor

    return build_advisor(Settings.from_env({}))


@pytest.fixture(scope="session")
def warm_llm_mode(offline_advisor):
    """One-off start-up costs (planner training, LangChain imports) paid before LLM-mode timings."""
    from tests.llm_support import warm_up_llm_mode

    warm_up_llm_mode(offline_advisor)


@pytest.fixture
def no_proxy(monkeypatch):
    """Reach scripted model servers on 127.0.0.1 directly even where an HTTP proxy is configured."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def routes_taken(monkeypatch):
    """The routes each answer took, in order: the router's choice recorded, the choice itself unchanged."""
    from advisor.offline import router  # imported when asked for, so tests that never route do not load the router

    taken: list[list[str]] = []
    chosen = router.chosen

    def recorded(routing):
        found = chosen(routing)
        taken.append(list(routing.taken))
        return found

    monkeypatch.setattr(router, "chosen", recorded)
    return taken
