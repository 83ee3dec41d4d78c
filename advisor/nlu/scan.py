"""One pass over a message's text: the extractors, run in the order ``pipeline.yaml`` declares (``extractors:``),
each claim a span for a value, and the first to claim a span keeps it.

An extractor is a function of a ``Scan`` registered under a name with ``@extractor``; it lives in the module of
the kind of value it reads (``extractors/names.py``, ``counts.py``, ``money.py``, ``times.py``, ``claims.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from advisor.nlu.number_values import DAILY_BEFORE, Value
from knowledge.catalog import Catalog

Extractor = Callable[["Scan"], None]
REGISTRY: dict[str, Extractor] = {}
GPU_KINDS = ("gpu", "other_gpu")


def extractor(name: str) -> Callable[[Extractor], Extractor]:
    """Register ``function`` as the extractor ``name`` (the name pipeline.yaml lists it by)."""

    def register(function: Extractor) -> Extractor:
        if name in REGISTRY:
            raise ValueError(f"two extractors are named {name}")
        REGISTRY[name] = function
        return function

    return register


class Scan:
    """The text, the values claimed so far and which characters they cover."""

    def __init__(self, text: str, catalog: Catalog):
        self.text, self.catalog = text, catalog
        self.taken = [False] * len(text)
        self.found: list[Value] = []

    def claim(self, value: Value) -> None:
        """Keep ``value`` unless a value claimed earlier covers part of its span."""
        # "2000 dollars a month", "3M requests a month", "runs about 10 hours a day": a span of time read earlier is the period of the amount
        if value.kind in ("money", "request_rate"):
            periods = [v for v in self.found if v.kind == "duration" and value.start <= v.start and v.end <= value.end]
        elif value.kind == "daily":
            periods = [v for v in self.found if v.kind == "duration" and DAILY_BEFORE.match(self.text, v.start, value.start)]
        else:
            periods = []
        for period in periods:
            self.found.remove(period)
            self.taken[period.start : period.end] = [False] * (period.end - period.start)
        if value.end > value.start and not any(self.taken[value.start : value.end]):
            self.block(value.start, value.end)
            self.found.append(value)

    def block(self, start: int, end: int) -> None:
        """Keep any later value out of ``start:end`` (a PCI address, a setting the advisor has no slot for)."""
        self.taken[start:end] = [True] * (end - start)

    def gpu_starts(self) -> set[int]:
        """Where the cards named so far start: a number right before one counts it."""
        return {v.start for v in self.found if v.kind in GPU_KINDS}


def run(text: str, catalog: Catalog, names: Iterable[str]) -> list[Value]:
    """The values the extractors ``names`` find in ``text``, in that order of claiming, sorted by position."""
    scan = Scan(text, catalog)
    for name in names:
        REGISTRY[name](scan)
    return sorted(scan.found, key=lambda v: v.start)
