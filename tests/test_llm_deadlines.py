"""One deadline per answer (retries, Retry-After and tool rounds included) and a circuit breaker.

The deadline is configurable, so these tests use 1.5–2 s; the margins in the timing assertions
are generous (they check "within the deadline", not speed).
"""

from __future__ import annotations

import time

import pytest

from advisor.llm.resilience import CircuitBreaker
from advisor.service import Advisor
from advisor.testing import ScriptedOpenAIServer, Step, fail, reply, stall
from tests.llm_support import MEMORY_QUESTION, QWEN_7B, advisor_for

MARGIN_S = 1.5


# Scripted model servers listen on 127.0.0.1: no proxy; start-up costs are paid before any test times itself.
pytestmark = pytest.mark.usefixtures("no_proxy", "warm_llm_mode")


def timed(advisor: Advisor, question: str = MEMORY_QUESTION):
    started = time.monotonic()
    response = advisor.answer(question)
    return response, time.monotonic() - started


def test_a_model_that_takes_60_s_is_answered_within_the_deadline():
    with ScriptedOpenAIServer([stall(60)], repeat_last=True) as server:
        advisor = advisor_for(server.base_url, ADVISOR_LLM_DEADLINE="2", ADVISOR_LLM_TIMEOUT="60", ADVISOR_LLM_MAX_RETRIES="2")
        response, elapsed = timed(advisor)
    assert elapsed < 2 + MARGIN_S
    assert response.mode == "offline" and response.notice.startswith("The language-model endpoint could not answer (no answer within 2 s)")
    assert "GB" in response.answer


def test_a_retry_after_longer_than_the_deadline_is_not_waited_for():
    with ScriptedOpenAIServer([fail(429, retry_after=60)], repeat_last=True) as server:
        response, elapsed = timed(advisor_for(server.base_url, ADVISOR_LLM_MAX_RETRIES="2", ADVISOR_LLM_DEADLINE="5"))
    assert elapsed < MARGIN_S and len(server.requests) == 1
    assert response.mode == "offline" and "rate-limited" in response.notice


def test_a_short_retry_after_is_honoured():
    with ScriptedOpenAIServer([fail(429, retry_after=0.3), reply("Hello.")]) as server:
        response, elapsed = timed(advisor_for(server.base_url, ADVISOR_LLM_MAX_RETRIES="2"), "Hello there")
    assert response.mode == "llm" and response.answer == "Hello." and len(server.requests) == 2
    assert elapsed >= 0.3


def test_slow_tool_rounds_share_one_deadline():
    slow_round = Step(tool="estimate_memory", args=QWEN_7B, delay_s=0.5)
    with ScriptedOpenAIServer([slow_round], repeat_last=True) as server:
        response, elapsed = timed(advisor_for(server.base_url, ADVISOR_LLM_MAX_STEPS="8", ADVISOR_LLM_DEADLINE="1.5"))
    assert elapsed < 1.5 + MARGIN_S and len(server.requests) <= 4
    assert response.mode == "offline" and "no answer within 1.5 s" in response.notice


def test_an_answer_thread_that_ignores_its_deadline_is_abandoned(offline_advisor):
    class Hanging:  # stands for a request stuck past its own timeout
        def answer(self, *args, **kwargs):
            time.sleep(5)

    advisor = Advisor(offline_advisor.planner, Hanging(), deadline_s=0.5)
    response, elapsed = timed(advisor)
    assert elapsed < 0.5 + MARGIN_S and response.mode == "offline" and "0.5 s" in response.notice


def test_the_breaker_skips_a_failing_endpoint_reports_it_and_closes_after_a_good_probe():
    with ScriptedOpenAIServer([fail(500), fail(500), reply("Back.")]) as server:
        advisor = advisor_for(server.base_url, ADVISOR_LLM_BREAKER_FAILURES="2", ADVISOR_LLM_BREAKER_COOLDOWN="0.4")
        assert advisor.health().status == "ok"
        first, second = advisor.answer(MEMORY_QUESTION), advisor.answer(MEMORY_QUESTION)
        assert "server error" in first.notice and "server error" in second.notice
        health = advisor.health()
        assert health.status == "degraded" and "circuit open after 2 failures" in health.reason and "server_error" in health.reason
        skipped, elapsed = timed(advisor)
        assert "skipped for a while" in skipped.notice and len(server.requests) == 2 and elapsed < MARGIN_S
        time.sleep(0.5)
        probe = advisor.answer("Hello again")
    assert probe.mode == "llm" and probe.answer == "Back." and advisor.health().status == "ok"


def test_breaker_half_open_lets_one_probe_through_and_a_long_retry_after_stretches_the_cool_down():
    now = [0.0]
    breaker = CircuitBreaker(failures=1, cooldown_s=10, clock=lambda: now[0])
    breaker.record_failure("rate_limited", retry_after=60)
    assert not breaker.allow() and breaker.state()[0] == "open"
    now[0] = 30
    assert not breaker.allow()  # the endpoint asked for 60 s
    now[0] = 61
    assert breaker.allow() and not breaker.allow()  # one probe at a time
    breaker.record_failure("timeout")
    assert breaker.state()[0] == "open" and not breaker.allow()
    now[0] = 72
    assert breaker.allow()
    breaker.record_success()
    assert breaker.state() == ("closed", None, 0.0) and breaker.allow()


def test_model_mistakes_do_not_open_the_breaker():
    breaker = CircuitBreaker(failures=1)
    for reason in ("step_limit", "empty_answer", "ungrounded"):
        breaker.record_failure(reason)
    assert breaker.allow() and breaker.state()[0] == "closed"
