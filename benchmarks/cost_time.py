"""Per-call latency of the cost calculators (training time, TCO) on the shipped catalog.

``measure_cost_tools()`` returns one row per scenario; ``make bench`` prints them in its table.
Both tools are pure arithmetic, so anything above a few milliseconds per call is a regression
(the TCO call includes its ±20% sensitivity re-runs, ~26 evaluations).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from knowledge.catalog import Catalog, load_catalog
from tools.tco import TcoRequest, compute_tco
from tools.training_time import TrainingTimeRequest, estimate_training_time


def _scenarios(catalog: Catalog) -> dict[str, Callable[[], object]]:
    forward = TrainingTimeRequest(model="llama-3.1-8b", tokens=15e12, gpu="h100-sxm", num_gpus=1024)
    deadline = TrainingTimeRequest(model="llama-3.1-405b", tokens=15e12, gpu="h100-sxm", deadline_days=60)
    tco_usd = TcoRequest(gpu="h100-sxm", servers=4)
    tco_cny = TcoRequest(gpu="h100-sxm", currency="CNY", cloud_price_per_gpu_hour=13)
    return {
        "training_time (GPUs given)": lambda: estimate_training_time(forward, catalog),
        "training_time (deadline → GPUs)": lambda: estimate_training_time(deadline, catalog),
        "tco (USD, catalog defaults)": lambda: compute_tco(tco_usd, catalog),
        "tco (CNY)": lambda: compute_tco(tco_cny, catalog),
    }


def measure_cost_tools(repeats: int = 200, catalog: Catalog | None = None) -> list[dict[str, float | str | int]]:
    """Time each calculator ``repeats`` times after one warm-up call; milliseconds per call."""
    catalog = catalog or load_catalog()
    rows: list[dict[str, float | str | int]] = []
    for name, call in _scenarios(catalog).items():
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


if __name__ == "__main__":
    for row in measure_cost_tools():
        print(f"{row['name']:<34} {row['mean_ms']:8.3f} ms mean  {row['p95_ms']:8.3f} ms p95  ({row['calls']} calls)")
