"""The memory estimator against published measured peaks (tests/data/calibration.yaml).

``points()`` returns one ``MemoryPoint`` per calibration row (scope, fitted or held out, measured, estimated,
error %); ``rows()`` the same as tuples. ``held_out_summaries()`` gives the median and p90 error on the held-out
rows of each scope, which the README, ``make bench`` and the tests share. ``excluded()`` lists rows left out and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from benchmarks.error_stats import MEMORY_TARGET, ErrorSummary, error_summary, summary_markdown
from knowledge.catalog import Catalog, load_catalog
from tools.memory.constants import GB, GIB
from tools.memory.estimator import MemoryEstimate, MemoryRequest, estimate_memory

CALIBRATION_FILE = Path(__file__).resolve().parent.parent / "tests" / "data" / "calibration.yaml"
UNITS = {"GB": GB, "GiB": GIB}
# The two figures people compare with a card: what PyTorch's allocator reports, and what nvidia-smi shows
ALLOCATOR, NVIDIA_SMI = "PyTorch-allocated peak", "nvidia-smi total"
SCOPE_OF_METRIC = {"allocated": ALLOCATOR, "allocated_all_gpus": ALLOCATOR, "weights": ALLOCATOR, "total": NVIDIA_SMI}


@dataclass(frozen=True)
class MemoryPoint:
    case: str
    scope: str  # ALLOCATOR or NVIDIA_SMI
    fitted: bool
    measured: float  # GB
    estimated: float  # GB

    @property
    def error_pct(self) -> float:
        return (self.estimated - self.measured) / self.measured * 100


@lru_cache(maxsize=1)
def load_calibration() -> dict:
    return yaml.safe_load(CALIBRATION_FILE.read_text(encoding="utf-8"))


def measured_gb(row: dict) -> float:
    return row["measured"]["value"] * UNITS[row["measured"]["unit"]] / GB


def estimated_gb(row: dict, catalog: Catalog) -> float:
    """The estimate comparable with the row's metric (see the YAML header)."""
    result = estimate_memory(MemoryRequest(**row["request"]), catalog)
    return comparable(result, row["metric"])


def comparable(result: MemoryEstimate, metric: str) -> float:
    if metric == "weights":
        return next(item.value for item in result.items if item.key == "weights")
    if metric == "total":
        return result.nvidia_smi_total_gb
    if metric == "allocated_all_gpus":
        return result.torch_allocated_peak_gb * result.num_gpus
    if metric == "allocated":
        return result.torch_allocated_peak_gb
    raise ValueError(f"unknown calibration metric {metric!r}")


def points(catalog: Catalog | None = None) -> list[MemoryPoint]:
    catalog = catalog or load_catalog()
    return [
        MemoryPoint(row["case"], SCOPE_OF_METRIC[row["metric"]], bool(row["fitted"]), measured_gb(row), estimated_gb(row, catalog))
        for row in load_calibration()["rows"]
    ]


def rows(catalog: Catalog | None = None) -> list[tuple[str, float, float, float]]:
    """(case, measured GB, estimated GB, error % of the estimate relative to the measurement)."""
    return [(p.case, round(p.measured, 2), round(p.estimated, 2), round(p.error_pct, 1)) for p in points(catalog)]


def held_out_summaries(table: list[MemoryPoint] | None = None) -> list[ErrorSummary]:
    """Median and p90 |error| on the rows no constant was fitted on: each scope, then both together."""
    table = table if table is not None else points()
    held = [p for p in table if not p.fitted]
    by_scope = [error_summary(scope, [p.error_pct for p in held if p.scope == scope]) for scope in (ALLOCATOR, NVIDIA_SMI)]
    return [*by_scope, error_summary("both scopes", [p.error_pct for p in held])]


def summary_table(table: list[MemoryPoint] | None = None) -> str:
    return summary_markdown(held_out_summaries(table), MEMORY_TARGET)


def excluded() -> list[tuple[str, str]]:
    return [(row["case"], row["reason"]) for row in load_calibration()["excluded"]]


def markdown_table(catalog: Catalog | None = None) -> str:
    lines = ["| Case | Scope | Measured (GB) | Estimated (GB) | Error | Used to fit |", "|---|---|---:|---:|---:|---|"]
    lines += [
        f"| {p.case} | {p.scope} | {p.measured:.2f} | {p.estimated:.2f} | {p.error_pct:+.1f}% | {'fitted' if p.fitted else 'held out'} |"
        for p in points(catalog)
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary_table())
    print()
    print(markdown_table())
