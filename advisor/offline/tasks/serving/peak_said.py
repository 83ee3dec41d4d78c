"""The load an answer was sized or timed at, when it was taken from what the user said rather than stated as a count: a
team's or a company's peak as a planning share of its head count (knowledge/audience.yaml), or a request count read as a
month's. A default that can change the verdict, so the lead says it beside the figure, in the same words for every answer
that sizes by it (the recommendation's verdict, the serving lead); one rule, here."""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.tasks.serving.serving_traffic import TrafficLoad
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.audience import ONLINE, PeakLoad, coverage

WORDING = Wording("serving", "peak_said")


def peak_said(turn: Turn, users: int | None) -> str:
    """" Sized for ≈ 4 users at once: an assumed 10% of “40 engineers” …" when ``users`` (the load the answer used, read
    from ``turn.slots.concurrency``) was taken from a head count or an undated request count; "" for a load stated as a
    count or none. A small team's peak of one is said too: the team was heard, and its real peak may differ."""
    if not users:
        return ""
    peak = turn.slots.peak_load
    if isinstance(peak, PeakLoad) and peak.concurrent == users:
        key = "share_online" if peak.kind == ONLINE else "share_one" if users == 1 else "share"
        return WORDING.say(turn, key, users=number(users), share=f"{peak.share * 100:g}", people=peak.said, mean=peak.mean_text,
                           coverage=f"{coverage() * 100:g}")
    if isinstance(peak, TrafficLoad) and peak.period_assumed:  # "200,000 requests": read as a month's, a default that moves the count
        return WORDING.say(turn, "month_assumed", users=number(users), said=peak.said)
    return ""
