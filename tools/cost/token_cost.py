"""What a generated token costs on rented GPUs: the hourly price of the cards over the tokens they produce in an hour."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

TOKENS_PER_QUOTE = 1_000_000  # serving prices are quoted per million tokens
SECONDS_PER_HOUR = 3600


class TokenCostRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    price_per_gpu_hour: float = Field(gt=0, description="Rental price of one card for one hour.")
    gpus: int = Field(ge=1, description="Cards in the deployment.")
    output_tokens_per_s: float = Field(gt=0, description="Generated tokens per second of the whole deployment at its load.")


class TokenCost(BaseModel):
    per_million_tokens: float = Field(description="Price of one million generated tokens, in the rental price's currency.")
    tokens_per_hour: float


def token_cost(request: TokenCostRequest) -> TokenCost:
    """Cost per million tokens = price per GPU-hour × GPUs ÷ (tokens/s × 3600) × 1,000,000."""
    tokens_per_hour = request.output_tokens_per_s * SECONDS_PER_HOUR
    return TokenCost(per_million_tokens=request.price_per_gpu_hour * request.gpus / tokens_per_hour * TOKENS_PER_QUOTE,
                     tokens_per_hour=tokens_per_hour)  # fmt: skip


class TokenCostRangeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    low_per_gpu_hour: float = Field(gt=0, description="Cheapest rental price of one card for one hour in the tier.")
    high_per_gpu_hour: float = Field(gt=0, description="Dearest rental price of one card for one hour in the tier.")
    gpus: int = Field(ge=1, description="Cards in the deployment.")
    output_tokens_per_s: float = Field(gt=0, description="Generated tokens per second of the whole deployment at its load.")


class TokenCostRange(BaseModel):
    low: float = Field(description="Price of one million generated tokens at the tier's cheapest rate.")
    high: float = Field(description="The same at the tier's dearest rate.")
    tokens_per_hour: float


def token_cost_range(request: TokenCostRangeRequest) -> TokenCostRange:
    """A tier's cost per million tokens as a range: a rental tier is quoted as a band of rates, so its token
    cost is a band too, never a single figure picked from it."""
    low, high = sorted((request.low_per_gpu_hour, request.high_per_gpu_hour))
    cheap = token_cost(TokenCostRequest(price_per_gpu_hour=low, gpus=request.gpus, output_tokens_per_s=request.output_tokens_per_s))
    dear = token_cost(TokenCostRequest(price_per_gpu_hour=high, gpus=request.gpus, output_tokens_per_s=request.output_tokens_per_s))
    return TokenCostRange(low=cheap.per_million_tokens, high=dear.per_million_tokens, tokens_per_hour=cheap.tokens_per_hour)
