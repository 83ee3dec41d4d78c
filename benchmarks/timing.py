"""Per-call latency of named scenarios: one warm-up call, then ``repeats`` timed calls."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def time_scenarios(scenarios: dict[str, Callable[[], object]], repeats: int) -> list[dict[str, float | str | int]]:
    rows: list[dict[str, float | str | int]] = []
    for name, call in scenarios.items():
        call()  # warm-up: first-call imports and catalog lookups are not what we measure
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            call()
            samples.append((time.perf_counter() - start) * 1000)
        samples.sort()
        rows.append({
            "name": name,
            "calls": repeats,
            "mean_ms": statistics.fmean(samples),
            "p95_ms": samples[min(len(samples) - 1, int(0.95 * len(samples)))],
        })  # fmt: skip
    return rows


def print_rows(rows: list[dict[str, float | str | int]]) -> None:
    for row in rows:
        print(f"{row['name']:<34} mean {row['mean_ms']:8.3f} ms  p95 {row['p95_ms']:8.3f} ms  ({row['calls']} calls)")
