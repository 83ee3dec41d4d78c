"""A request rate turned into the load a deployment carries (Little's law), and the decode ceiling of one user.

A rate ("50 requests per second") is not a concurrency: the requests in flight are the arrival rate times the
time each request stays (time to first token + the output tokens streamed at the speed each user sees after it). The prefill work is
the rate times the prompt tokens. Both are compared with what the configuration delivers at that load.
Pure functions: the caller passes the estimator's figures in.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Text
from knowledge.wording import shipped
from tools.common import LineItem
from tools.serving.report import g, line

TEXT = shipped("serving_text.yaml")


class RateLoad(BaseModel):
    """A stated request rate, the request shape, and a configuration's figures at some load."""

    model_config = ConfigDict(extra="forbid")

    requests_per_s: float = Field(gt=0, description="Requests arriving per second.")
    prompt_tokens: int = Field(ge=1, description="Input tokens per request.")
    output_tokens: int = Field(ge=1, description="Generated tokens per request.")
    ttft_ms: float = Field(ge=0, description="Time to first token at that load, ms.")
    output_tokens_per_s_total: float = Field(gt=0, description="Generated tokens/s of the whole deployment at that load.")
    in_flight: float = Field(gt=0, description="Requests running at once when these figures were measured.")
    tokens_per_s_per_user_streaming: float = Field(gt=0, description="Tokens/s each user sees after the first token at that load.")
    prefill_tokens_per_s: float = Field(gt=0, description="Prompt tokens/s the deployment prefills (all copies).")


class RateResult(BaseModel):
    """Little's law applied: the time a request stays, the requests in flight, and the work per second asked."""

    seconds_per_request: float = Field(description="TTFT + the remaining output tokens ÷ the streaming speed at that load.")
    tokens_per_s_per_user_streaming: float = Field(description="Output tokens/s each user sees after the first token (the estimator's figure).")
    in_flight: float = Field(description="Requests in flight = rate × seconds per request.")
    sustainable_requests_per_s: float = Field(description="Rate this load sustains: requests in flight ÷ seconds per request.")
    output_tokens_per_s_needed: float = Field(description="rate × output tokens.")
    prefill_tokens_per_s_needed: float = Field(description="rate × prompt tokens.")
    prefill_share: float = Field(description="Prefill tokens/s asked ÷ prefill tokens/s the deployment does (1 = saturated).")
    keeps_up: bool = Field(description="The load measured holds the rate's requests in flight (in flight ≥ rate × time).")
    lines: list[LineItem]


def _line(key: str, value: float, unit: str, **values: object) -> LineItem:
    """A figure of the rate check, its label and formula read from ``rate.<key>`` of the text file."""
    label, formula = TEXT.text(f"rate.{key}.label"), TEXT.text(f"rate.{key}.formula", **values)
    return line(key, label.en, label.zh, value, unit, formula.en, formula.zh)


def rate_load(load: RateLoad) -> RateResult:
    """Little's law at the measured load: L = λ × W with W = TTFT + the tokens after the first ÷ the streaming speed."""
    per_user = load.tokens_per_s_per_user_streaming
    seconds = load.ttft_ms / 1e3 + max(load.output_tokens - 1, 0) / per_user
    in_flight = load.requests_per_s * seconds
    sustainable = load.in_flight / seconds
    output_needed = load.requests_per_s * load.output_tokens
    prefill_needed = load.requests_per_s * load.prompt_tokens
    rate, out, ttft = g(load.requests_per_s), f"{load.output_tokens:,}", g(load.ttft_ms / 1e3)
    lines = [
        _line("seconds_per_request", seconds, "s", ttft=ttft, out=f"{max(load.output_tokens - 1, 0):,}", per_user=g(per_user), seconds=g(seconds)),
        _line("in_flight", in_flight, "requests", rate=rate, seconds=g(seconds), in_flight=g(in_flight)),
        _line("prefill_load", prefill_needed, "tokens/s", rate=rate, prompt=load.prompt_tokens, needed=g(prefill_needed),
              capacity=g(load.prefill_tokens_per_s)),
        _line("output_load", output_needed, "tokens/s", rate=rate, out=out, needed=g(output_needed), produced=g(load.output_tokens_per_s_total)),
    ]  # fmt: skip
    return RateResult(
        seconds_per_request=round(seconds, 4), tokens_per_s_per_user_streaming=round(per_user, 3), in_flight=round(in_flight, 3),
        sustainable_requests_per_s=round(sustainable, 4), output_tokens_per_s_needed=round(output_needed, 3),
        prefill_tokens_per_s_needed=round(prefill_needed, 3), prefill_share=round(prefill_needed / load.prefill_tokens_per_s, 4),
        keeps_up=in_flight <= load.in_flight * (1 + 1e-9), lines=lines,
    )  # fmt: skip


class DecodeCeiling(BaseModel):
    """The fastest one user can decode on a configuration: decode reads the weights once per token."""

    model_config = ConfigDict(extra="forbid")

    weights_read_gb: float = Field(gt=0, description="Weight bytes read per token, per GPU, GB.")
    bandwidth_gb_s: float = Field(gt=0, description="Peak memory bandwidth of one GPU, GB/s.")


class CeilingResult(BaseModel):
    tokens_per_s: float = Field(description="Peak bandwidth ÷ bytes per token: no engine gets above it.")
    formula: Text


def decode_ceiling(ceiling: DecodeCeiling) -> CeilingResult:
    """Bandwidth ÷ bytes per token: the roofline of single-user decode, before any real efficiency."""
    speed = ceiling.bandwidth_gb_s / ceiling.weights_read_gb
    figures = f"{g(ceiling.bandwidth_gb_s)} GB/s ÷ {g(ceiling.weights_read_gb)} GB"
    return CeilingResult(
        tokens_per_s=round(speed, 3),
        formula=TEXT.text("rate.ceiling", figures=figures, speed=g(speed)),
    )  # fmt: skip
