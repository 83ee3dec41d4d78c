"""Peak concurrent users from the size of an audience (knowledge/audience.yaml): a labelled planning share."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from statistics import NormalDist

from knowledge.bilingual import Text
from knowledge.catalog import read_yaml

DATA_FILE = Path(__file__).with_name("audience.yaml")


@lru_cache(maxsize=1)
def _data() -> dict:
    return read_yaml(DATA_FILE)


def audience_kind(said: str) -> str:
    """'daily', 'monthly' or 'headcount', from the words said with the number ("500 daily users", "月活一万")."""
    folded = said.lower()
    for kind, words in _data()["period_words"].items():
        if any(word in folded for word in words):
            return kind
    return "headcount"


def names_a_period(said: str) -> bool:
    return audience_kind(said) != "headcount"


def coverage() -> float:
    """The share of busy moments a peak load is planned to cover (audience.yaml ``peak_coverage``)."""
    return float(_data()["peak_coverage"])


EXACT_UP_TO = 10_000  # audiences summed term by term; above it the normal approximation is within a user of the sum


def binomial_quantile(trials: int, chance: float, level: float) -> int:
    """The smallest k with P(X <= k) >= level for X ~ Binomial(trials, chance)."""
    if trials <= 0 or chance <= 0:
        return 0
    if chance >= 1:
        return trials
    if trials > EXACT_UP_TO:
        spread = math.sqrt(trials * chance * (1 - chance))
        return min(trials, math.ceil(trials * chance + NormalDist().inv_cdf(level) * spread))
    # log-space start: (1 - p)^n underflows for a large audience
    term = math.exp(trials * math.log1p(-chance))
    total, k = term, 0
    while total < level and k < trials:
        term *= (trials - k) / (k + 1) * chance / (1 - chance)
        k += 1
        total += term
    return k


@dataclass(frozen=True)
class PeakLoad:
    people: float
    said: str
    kind: str
    share: float

    @property
    def mean(self) -> float:
        """The users at once at the busiest moment on average: the planning share of the audience."""
        return self.people * self.share

    @property
    def mean_text(self) -> str:
        return f"{self.mean:,.0f}" if self.mean >= 10 else f"{self.mean:.1f}".rstrip("0").rstrip(".")

    @property
    def concurrent(self) -> int:
        """The users at once the plan covers: the ``peak_coverage`` quantile of the binomial count at the busiest moment
        (each of the audience there with the share's chance), never fewer than the mean rounded up nor than one."""
        return max(1, math.ceil(self.mean), binomial_quantile(round(self.people), self.share, coverage()))

    def assumption(self) -> Text:
        data = _data()
        low, high = data["ranges"][self.kind]
        kind = data["kinds"][self.kind]
        source = data.get("kind_sources", {}).get(self.kind, data["source"])
        values = {"peak": f"{self.concurrent:,}", "share": f"{self.share * 100:g}", "people": self.said, "low": f"{low:g}", "high": f"{high:g}",
                  "title": source["title"], "url": source["url"], "mean": self.mean_text, "coverage": f"{coverage() * 100:g}"}  # fmt: skip
        return Text(en=data["text"]["en"].format(kind=kind["en"], **values), zh=data["text"]["zh"].format(kind=kind["zh"], **values))


ONLINE = "online"  # sessions said to be open at once (audience.yaml ``shares.online``)


def peak_load(people: float, said: str, kind: str | None = None) -> PeakLoad:
    """The users at once of an audience said as ``said``; ``kind`` when the caller knows it from words outside the number
    (``ONLINE`` for "200 online at once"), else read from the number's own words."""
    kind = kind or audience_kind(said)
    return PeakLoad(people, said, kind, float(_data()["shares"][kind]))


def service_model(market: str, people: float) -> tuple[str, str]:
    """The model a team or company service of ``people`` with no model named is sized on, by market ("cn" or "global"),
    and its size class ("30B"); an assumption the answer states."""
    rows = _data()["service_model"]
    row = next((r for r in rows if r["up_to_people"] is None or people <= r["up_to_people"]), rows[-1])
    return row.get(market, row["global"]), row["size"]
