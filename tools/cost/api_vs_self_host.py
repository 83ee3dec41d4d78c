"""An API bill against serving the same traffic on dedicated GPUs: which is cheaper each month, by how much, and the
daily volume at which they cost the same.

The API bills every token. Dedicated GPUs bill every hour whether busy or not, and traffic has peaks, so the
deployments are sized for the average output rate at a planned load (the share of their full-load speed the average
traffic uses); whole deployments only. Pure arithmetic: the speed comes from the serving estimator, the rates from
the rental market, the API price from a dated table or the user."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DAYS_PER_MONTH = 30.4  # 365 / 12
HOURS_PER_MONTH = 730
TOKENS_PER_QUOTE = 1_000_000
SECONDS_PER_DAY = 86_400
CLOSE_CALL = 0.15  # within 15% either way the answer turns on the assumptions, not the arithmetic


class ApiVsSelfHostRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tokens_per_day: float = Field(gt=0, le=1e15, description="Input plus output tokens a day sent to the API.")
    output_share: float = Field(gt=0, lt=1, description="Share of those tokens that are generated (output).")
    api_input_per_m: float = Field(ge=0, description="API price per million input tokens.")
    api_output_per_m: float = Field(ge=0, description="API price per million output tokens.")
    deployment_output_tokens_per_s: float = Field(gt=0, description="Generated tokens/s of one deployment at full load.")
    gpus_per_deployment: int = Field(ge=1, le=1024)
    price_per_gpu_hour: float = Field(gt=0, description="What one GPU costs an hour, billed every hour (dedicated).")
    planned_load: float = Field(gt=0, le=1, description="Average traffic as a share of the deployments' full-load speed.")


class ApiVsSelfHost(BaseModel):
    api_monthly: float
    api_per_m_blended: float = Field(description="The API's price per million tokens, input and output mixed as used.")
    output_tokens_per_s_needed: float = Field(description="Average generated tokens/s the traffic needs.")
    deployments: int
    gpus: int
    self_host_monthly: float
    self_host_per_m_at_load: float = Field(description="Self-hosting's cost per million tokens (input and output) at the planned load.")
    self_host_per_m_at_volume: float = Field(description="Self-hosting's cost per million tokens at the volume stated: the month's cost ÷ the "
                                             "month's tokens (the deployments are paid every hour, busy or not).")
    utilisation_at_volume_pct: float = Field(description="How busy the deployments are at the volume stated: tokens/s needed ÷ their full-load "
                                             "tokens/s, in %.")
    saving_monthly: float = Field(description="API bill minus self-hosting's cost; negative when the API is cheaper.")
    break_even_tokens_per_day: float | None = Field(
        description="Daily tokens at which one deployment costs what the API bill would; None when self-hosting never wins."
    )
    verdict: Literal["self_host", "api", "close"]


def api_vs_self_host(r: ApiVsSelfHostRequest) -> ApiVsSelfHost:
    """API bill = tokens/day × 30.4 × (input share × input price + output share × output price) ÷ 1M;
    deployments = ⌈average output tokens/s ÷ (deployment tokens/s × planned load)⌉;
    self-hosting = deployments × GPUs × 730 h × price per GPU-hour; its cost per million tokens at the volume stated =
    self-hosting ÷ (tokens/day × 30.4) × 1M, at utilisation = tokens/s needed ÷ (deployments × deployment tokens/s)."""
    blended = (1 - r.output_share) * r.api_input_per_m + r.output_share * r.api_output_per_m
    api_monthly = r.tokens_per_day * DAYS_PER_MONTH * blended / TOKENS_PER_QUOTE
    needed = r.tokens_per_day * r.output_share / SECONDS_PER_DAY
    deployments = max(1, math.ceil(needed / (r.deployment_output_tokens_per_s * r.planned_load) - 1e-9))
    gpus = deployments * r.gpus_per_deployment
    one_deployment = r.gpus_per_deployment * HOURS_PER_MONTH * r.price_per_gpu_hour
    self_monthly = deployments * one_deployment
    tokens_at_load = r.deployment_output_tokens_per_s * r.planned_load * SECONDS_PER_DAY / r.output_share  # all tokens a day one deployment carries
    per_m_at_load = one_deployment / (tokens_at_load * DAYS_PER_MONTH) * TOKENS_PER_QUOTE
    # one deployment costs what the API would at this volume; past it, self-hosting wins only if its cost per token is lower
    break_even = one_deployment / (DAYS_PER_MONTH * blended) * TOKENS_PER_QUOTE if blended > 0 and per_m_at_load < blended else None
    per_m_at_volume = self_monthly / (r.tokens_per_day * DAYS_PER_MONTH) * TOKENS_PER_QUOTE
    busy_pct = needed / (deployments * r.deployment_output_tokens_per_s) * 100
    saving = api_monthly - self_monthly
    verdict = "close" if abs(saving) <= CLOSE_CALL * max(api_monthly, self_monthly) else "self_host" if saving > 0 else "api"
    return ApiVsSelfHost(api_monthly=api_monthly, api_per_m_blended=blended, output_tokens_per_s_needed=needed, deployments=deployments,
                         gpus=gpus, self_host_monthly=self_monthly, self_host_per_m_at_load=per_m_at_load, saving_monthly=saving,
                         self_host_per_m_at_volume=per_m_at_volume, utilisation_at_volume_pct=busy_pct,
                         break_even_tokens_per_day=break_even, verdict=verdict)  # fmt: skip
