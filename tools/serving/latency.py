"""What a user waits for before the first token they can read: the hidden thinking of a reasoning model, and the
queue of prompts waiting for prefill under load. Pure functions: the caller passes the estimator's figures in.

First visible token (a reasoning model writes its thinking block first, and a chat UI hides it):
    visible = TTFT + thinking tokens ÷ streaming tokens/s per user

Prefill queue (M/M/c: requests arrive at random at rate λ, each replica prefills one prompt at a time in S seconds,
c replicas). With a = λ·S and ρ = a / c < 1, Erlang C gives the chance a request waits at all,
    C(c, a) = (a^c / c!) / (1 − ρ) ÷ [Σ_{k<c} a^k / k! + (a^c / c!) / (1 − ρ)],
and the waiting time is exponential beyond that: P(wait > t) = C · e^(−(c/S − λ)·t), so the p-quantile of the wait is
    t_p = ln(C / (1 − p)) ÷ (c/S − λ)   (0 when C ≤ 1 − p).
The p99 TTFT is the idle TTFT plus t_0.99. The queue "builds" past the rate where that p99 reaches the budget (the
user's first-token target, else the caller's default); at λ = c/S it grows without bound. Engines interleave prefill chunks with decode steps, so the real service time
is somewhat longer than an idle prefill: the rates found are upper bounds.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from knowledge.wording import shipped
from tools.common import LineItem
from tools.serving.report import g, line

TEXT = shipped("serving_text.yaml")
TAIL = 0.99  # the quantile users complain about
BISECTION_ROUNDS = 60


def _line(key: str, value: float, unit: str, **values: object) -> LineItem:
    """A figure of the latency check, its label and formula read from ``latency.<key>`` of the text file."""
    label, formula = TEXT.text(f"latency.{key}.label"), TEXT.text(f"latency.{key}.formula", **values)
    return line(key, label.en, label.zh, value, unit, formula.en, formula.zh)


class VisibleToken(BaseModel):
    """A reasoning model's thinking length and the speeds it streams at."""

    model_config = ConfigDict(extra="forbid")

    ttft_ms: float = Field(ge=0, description="Time to the first token the engine emits (the first thinking token), ms.")
    thinking_tokens: int = Field(ge=0, description="Thinking tokens written before the visible answer.")
    tokens_per_s_per_user_streaming: float = Field(gt=0, description="Tokens/s each user sees after the first token.")


class VisibleTokenResult(BaseModel):
    thinking_s: float = Field(description="Thinking tokens ÷ streaming speed, s.")
    first_visible_s: float = Field(description="TTFT + the thinking time: when the first readable token appears, s.")
    per_thousand_s: float = Field(description="Seconds each 1,000 thinking tokens add, to scale the assumption.")
    lines: list[LineItem]


def first_visible_token(request: VisibleToken) -> VisibleTokenResult:
    """TTFT + thinking tokens ÷ streaming speed."""
    speed = request.tokens_per_s_per_user_streaming
    thinking = request.thinking_tokens / speed
    visible = request.ttft_ms / 1e3 + thinking
    formula = {"ttft": g(request.ttft_ms / 1e3), "thinking": f"{request.thinking_tokens:,}", "speed": g(speed), "visible": g(visible)}
    return VisibleTokenResult(
        thinking_s=round(thinking, 4), first_visible_s=round(visible, 4), per_thousand_s=round(1000 / speed, 4),
        lines=[_line("first_visible", visible, "s", **formula)],
    )  # fmt: skip


class PrefillQueue(BaseModel):
    """The prefill time of one prompt, the replicas that prefill in parallel, and optionally the arrival rate."""

    model_config = ConfigDict(extra="forbid")

    prefill_s: float = Field(gt=0, description="Seconds one replica takes to prefill one prompt (the service time S).")
    replicas: int = Field(ge=1, description="Copies of the model, each prefilling one prompt at a time (c).")
    ttft_ms: float = Field(ge=0, description="TTFT without queueing (the p50 users see at light load), ms.")
    p99_budget_ms: float = Field(gt=0, description="The p99 TTFT the deployment should stay under, ms.")
    requests_per_s: float | None = Field(None, gt=0, description="Arrival rate to judge, requests/s; None: only the thresholds.")


class PrefillQueueResult(BaseModel):
    saturation_requests_per_s: float = Field(description="c ÷ S: above this rate the prefill queue grows without bound.")
    builds_requests_per_s: float = Field(description="Rate at which the p99 TTFT reaches the budget (0 when even one request misses it).")
    utilisation: float | None = Field(None, description="ρ = λ·S ÷ c at the stated rate.")
    wait_probability: float | None = Field(None, description="Erlang C: the share of requests that wait for a prefill slot.")
    p99_ttft_ms: float | None = Field(None, description="Idle TTFT + the 99th-percentile queueing wait at the stated rate, ms; None past saturation.")
    lines: list[LineItem]


def erlang_c(servers: int, offered: float) -> float:
    """Probability that an arrival waits in an M/M/c queue with ``offered`` = λ·S erlangs (1 at or past saturation)."""
    if offered >= servers:
        return 1.0
    term, total = 1.0, 1.0  # a^0/0!, summed from k = 0
    for k in range(1, servers):
        term *= offered / k
        total += term
    top = term * offered / servers / (1 - offered / servers)  # a^c/c! ÷ (1 − ρ)
    return top / (total + top)


def wait_quantile(prefill_s: float, replicas: int, rate: float, quantile: float = TAIL) -> float:
    """Seconds of queueing wait that ``quantile`` of requests stay under (infinite at or past saturation)."""
    drain = replicas / prefill_s - rate
    if drain <= 0:
        return math.inf
    waits = erlang_c(replicas, rate * prefill_s)
    return max(math.log(waits / (1 - quantile)), 0.0) / drain


def prefill_queue(request: PrefillQueue) -> PrefillQueueResult:
    """The rate at which the prefill queue takes the p99 TTFT past its budget, the rate it saturates at, and the p99 at a
    stated rate."""
    s, c, idle = request.prefill_s, request.replicas, request.ttft_ms / 1e3
    saturation = c / s
    room = request.p99_budget_ms / 1e3 - idle  # the queueing wait the budget leaves
    low, high = 0.0, saturation
    for _ in range(BISECTION_ROUNDS if room > 0 else 0):  # the wait grows with the rate, so the crossing is unique
        middle = (low + high) / 2
        low, high = (middle, high) if wait_quantile(s, c, middle) < room else (low, middle)
    builds = low
    figures = {"prefill": g(s * 1e3), "replicas": c, "saturation": g(saturation), "builds": g(builds), "budget": g(request.p99_budget_ms),
               "rho": g(builds * s / c * 100)}  # fmt: skip
    lines = [_line("saturation", saturation, "requests/s", **figures), _line("builds", builds, "requests/s", **figures)]
    utilisation = waits = p99 = None
    if request.requests_per_s is not None:
        rate = request.requests_per_s
        utilisation = rate * s / c
        waits = erlang_c(c, rate * s)
        wait = wait_quantile(s, c, rate)
        p99 = None if math.isinf(wait) else (idle + wait) * 1e3
        at = {"rate": g(rate), "rho": g(utilisation * 100), "waits": g(waits * 100), "idle": g(idle * 1e3),
              "p99": g(p99) if p99 is not None else "∞"}  # fmt: skip
        lines.append(_line("p99_at_rate", p99 if p99 is not None else 0.0, "ms", **at))
    return PrefillQueueResult(
        saturation_requests_per_s=round(saturation, 4), builds_requests_per_s=round(builds, 4),
        utilisation=None if utilisation is None else round(utilisation, 4), wait_probability=None if waits is None else round(waits, 4),
        p99_ttft_ms=None if p99 is None else round(p99, 3), lines=lines,
    )  # fmt: skip
