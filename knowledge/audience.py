"""Peak concurrent users from the size of an audience (knowledge/audience.yaml): a labelled planning share."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

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


@dataclass(frozen=True)
class PeakLoad:
    people: float
    said: str
    kind: str
    share: float

    @property
    def concurrent(self) -> int:
        return max(1, math.ceil(self.people * self.share))

    def assumption(self) -> Text:
        data = _data()
        low, high = data["ranges"][self.kind]
        kind = data["kinds"][self.kind]
        values = {"peak": f"{self.concurrent:,}", "share": f"{self.share * 100:g}", "people": self.said, "low": f"{low:g}", "high": f"{high:g}",
                  "title": data["source"]["title"], "url": data["source"]["url"]}  # fmt: skip
        return Text(en=data["text"]["en"].format(kind=kind["en"], **values), zh=data["text"]["zh"].format(kind=kind["zh"], **values))


def peak_load(people: float, said: str) -> PeakLoad:
    kind = audience_kind(said)
    return PeakLoad(people, said, kind, float(_data()["shares"][kind]))


def service_model(market: str, people: float) -> tuple[str, str]:
    """The model a team or company service of ``people`` with no model named is sized on, by market ("cn" or "global"),
    and its size class ("30B"); an assumption the answer states."""
    rows = _data()["service_model"]
    row = next((r for r in rows if r["up_to_people"] is None or people <= r["up_to_people"]), rows[-1])
    return row.get(market, row["global"]), row["size"]
