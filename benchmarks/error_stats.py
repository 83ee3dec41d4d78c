"""Median and 90th-percentile absolute error of an estimator on the points it was not fitted on.

The memory and serving calibrations (benchmarks/calibration.py, benchmarks/serving_calibration.py) both
report through ``error_summary``, and the tests, ``make bench`` and the README tables read the same numbers.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    median_pct: float
    p90_pct: float


# Issue #37's targets on the held-out points
MEMORY_TARGET = Target(median_pct=8.0, p90_pct=15.0)
SERVING_TARGET = Target(median_pct=12.0, p90_pct=30.0)


@dataclass(frozen=True)
class ErrorSummary:
    label: str  # what was compared ("PyTorch-allocated peak", "serving speed"...)
    points: int
    median_pct: float
    p90_pct: float
    worst_pct: float

    def meets(self, target: Target) -> bool:
        return self.median_pct <= target.median_pct and self.p90_pct <= target.p90_pct


def percentile(values: list[float], share: float) -> float:
    """Linear interpolation between the two nearest ranks (numpy's default), so p90 of a short list is not its maximum."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    rank = share * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def error_summary(label: str, errors_pct: list[float]) -> ErrorSummary:
    """Summary of signed percentage errors by their absolute size."""
    sizes = [abs(e) for e in errors_pct]
    return ErrorSummary(label, len(sizes), statistics.median(sizes), percentile(sizes, 0.9), max(sizes))


def summary_markdown(summaries: list[ErrorSummary], target: Target) -> str:
    lines = [
        "| Compared | Held-out points | Median abs. error | p90 abs. error | Worst | Target (median / p90) |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for s in summaries:
        mark = "met" if s.meets(target) else "missed"
        lines.append(
            f"| {s.label} | {s.points} | {s.median_pct:.1f}% | {s.p90_pct:.1f}% | {s.worst_pct:.1f}% | "
            f"≤ {target.median_pct:g}% / ≤ {target.p90_pct:g}%: {mark} |"
        )
    return "\n".join(lines)
