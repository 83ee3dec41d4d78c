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
