"""Traffic said over a period — daily or monthly users, users online at the peak, requests a day or a month — as the
peak load the answers size for.

The conversion is tools.serving.traffic (Little's law after the planning ratios of knowledge/traffic.yaml); this module
only says it: the chain in one line for the answer, and the ratios with their sources as an assumption that can be changed.
Its wording lives in knowledge/traffic.yaml beside the ratios (the slots read it, so it imports no answer module).
"""

from __future__ import annotations

from dataclasses import dataclass

from knowledge.audience import audience_kind
from knowledge.bilingual import Text
from knowledge.traffic import planning_ratios, sources, traffic_data
from knowledge.wording import shipped
from tools.serving.traffic import TrafficKind, TrafficRequest, TrafficResult, VolumeUnit, peak_concurrency

# Which ratios each kind of traffic goes through (the others are not said)
RATIOS_USED: dict[str, tuple[str, ...]] = {
    "daily_users": ("peak_hour_active_share", "requests_per_active_user_per_hour"),
    "monthly_users": ("daily_share_of_monthly_users", "peak_hour_active_share", "requests_per_active_user_per_hour"),
    "online_users": ("requests_per_active_user_per_hour",),
    "requests_per_day": ("peak_to_mean",),
    "requests_per_month": ("peak_to_mean",),
}
VOLUME_RATIOS_USED = {"conversations": ("requests_per_conversation",), "tokens": ("tokens_per_request",)}
PERCENT_RATIOS = ("peak_hour_active_share", "daily_share_of_monthly_users")
TEXT = shipped("traffic.yaml")  # the wording beside the ratios it says


def default_seconds_per_request() -> float:
    """A request's stay without a speed estimate: first token + output tokens ÷ a chat speed."""
    data = traffic_data()
    return data["first_token_s"] + data["output_tokens"] / data["speed_tokens_per_s"]


@dataclass(frozen=True)
class TrafficLoad:
    """Traffic the user stated, converted: ``concurrent`` sequences in flight at the default request time, and
    ``per_second`` requests arriving at the peak (the serving answers apply Little's law with their own speed)."""

    said: str
    kind: TrafficKind
    result: TrafficResult
    period_assumed: bool = False  # "10,000 requests" with no period, read as a month's
    volume_unit: VolumeUnit = "requests"  # what a volume counts: requests, conversations or tokens

    @property
    def concurrent(self) -> int:
        return self.result.concurrent or 1

    @property
    def per_second(self) -> float:
        return self.result.peak_requests_per_s

    def chain(self, to_rate: bool = False) -> Text:
        """"Peak load from '20k DAU': 20,000 × 18% → … requests/s (→ … in flight)", one line for the answer."""
        key = "chain_text_month_assumed" if self.period_assumed else "chain_text"
        return TEXT.text(key, said=self.said, chain=self.result.rate_chain if to_rate else self.result.chain)

    def assumption(self) -> Text:
        ratios = planning_ratios()
        used = (*VOLUME_RATIOS_USED.get(self.volume_unit, ()), *RATIOS_USED[self.kind])
        said = [TEXT.text(f"ratio_text.{key}", value=f"{ratios[key] * 100:g}" if key in PERCENT_RATIOS else f"{ratios[key]:g}") for key in used]
        data = traffic_data()
        return TEXT.text("assumption_text", ratios=Text(en="; ".join(t.en for t in said), zh="；".join(t.zh for t in said)),
                     seconds=f"{default_seconds_per_request():g}", output=data["output_tokens"], speed=data["speed_tokens_per_s"],
                     sources=sources(*used))  # fmt: skip


def traffic_load(amount: float, kind: TrafficKind, said: str, requests_per_user_per_day: float | None = None, period_assumed: bool = False,
                 volume_unit: VolumeUnit = "requests") -> TrafficLoad:
    request = TrafficRequest(amount=amount, kind=kind, seconds_per_request=default_seconds_per_request(), volume_unit=volume_unit,
                             requests_per_user_per_day=requests_per_user_per_day, **planning_ratios())  # fmt: skip
    return TrafficLoad(said=said, kind=kind, result=peak_concurrency(request), period_assumed=period_assumed, volume_unit=volume_unit)


def volume_unit(surface: str) -> VolumeUnit:
    """What a volume said as ``surface`` counts: conversations ("20k conversations a day") or requests."""
    folded = surface.lower()
    return "conversations" if any(word in folded for word in traffic_data()["conversation_words"]) else "requests"


def said_online(said: str, surface: str) -> bool:
    """"500 people online at the busiest hour" (or the same in Chinese): the online words stand right beside the number."""
    return _said_beside(said, surface, "online_words")


def said_per_user(said: str, surface: str) -> bool:
    """"each user sends 30 requests a day" (or the same in Chinese): a volume per user, not the service's total."""
    return _said_beside(said, surface, "per_user_words")


def _said_beside(said: str, surface: str, words: str) -> bool:
    if not said or not surface:
        return False
    folded = said.lower()
    at = folded.find(surface.lower())
    if at < 0:
        return False
    data = traffic_data()
    window = data["beside_window"]
    around = folded[max(0, at - window) : at + len(surface) + 2 * window]
    return any(word in around for word in data[words])


def period_of(said: str, surface: str) -> str:
    """'daily', 'monthly' or 'headcount' for users stated as ``surface``: its own words first, then the words written
    just before it (a Chinese "daily active" word written before the number is left out of the number's surface)."""
    kind = audience_kind(surface)
    if kind != "headcount" or not said or not surface:
        return kind
    folded = said.lower()
    at = folded.find(surface.lower())
    if at < 0:
        return kind
    return audience_kind(folded[max(0, at - traffic_data()["period_prefix_window"]) : at])
