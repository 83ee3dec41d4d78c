"""Per-call latency of the cost calculators (training time, TCO) on the shipped catalog.

``measure_cost_tools()`` returns one row per scenario; ``make bench`` prints them in its table.
Both tools are pure arithmetic, so anything above a few milliseconds per call is a regression
(the TCO call includes its ±20% sensitivity re-runs, ~26 evaluations).
"""

from __future__ import annotations

from collections.abc import Callable

from benchmarks.timing import print_rows, time_scenarios
from knowledge.catalog import Catalog, load_catalog
from tools.cost.tco import TcoRequest, compute_tco
from tools.cost.training_time import TrainingTimeRequest, estimate_training_time


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
    return time_scenarios(_scenarios(catalog or load_catalog()), repeats)


if __name__ == "__main__":
    print_rows(measure_cost_tools())
