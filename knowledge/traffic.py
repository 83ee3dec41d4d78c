"""The planning ratios of knowledge/traffic.yaml, each with its source, for tools.serving.traffic; and the chat floor,
the one per-user speed both the serving sizing and the recommender hold a chat deployment to."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from knowledge.catalog import read_yaml
from knowledge.sources import DatedSource

DATA_FILE = Path(__file__).with_name("traffic.yaml")
RATIOS = ("peak_hour_active_share", "requests_per_active_user_per_hour", "daily_share_of_monthly_users", "peak_to_mean")
VOLUME_RATIOS = ("requests_per_conversation", "tokens_per_request")  # what a volume of conversations or tokens is in requests


@lru_cache(maxsize=1)
def traffic_data() -> dict:
    return read_yaml(DATA_FILE)


def planning_ratios() -> dict[str, float]:
    """The ratios as tool arguments."""
    data = traffic_data()
    return {**{key: float(data[key]["value"]) for key in (*RATIOS, *VOLUME_RATIOS)}, "days_per_month": float(data["days_per_month"])}


def sources(*keys: str) -> str:
    """"title, url" of each ratio used, once each."""
    data = traffic_data()
    seen = dict.fromkeys(f"{data[k]['source']['title']}, {data[k]['source']['url']}" for k in keys if "source" in data[k])  # a planning default has none
    return "; ".join(seen)


class ChatFloor(BaseModel):
    """The slowest streaming speed (tokens/s each user sees after the first token) a chat deployment may give when
    the question states no target: the same figure for a serving sizing and for a recommendation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tokens_per_s_per_user: float = Field(gt=0, alias="value")
    interactive_p99: float = Field(gt=0)
    source: DatedSource


@lru_cache(maxsize=1)
def chat_floor() -> ChatFloor:
    return ChatFloor.model_validate(traffic_data()["chat_floor"])
