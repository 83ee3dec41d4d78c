"""The memory estimator against published measured peaks (tests/data/calibration.yaml).

``rows()`` returns (case, measured GB, estimated GB, error %) for every calibration row; the README
embeds the table and ``make bench`` prints it. ``excluded()`` lists rows left out and why.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

from knowledge.catalog import Catalog, load_catalog
from tools.memory.constants import GB, GIB, OUTSIDE_TORCH_ALLOCATOR
from tools.memory.estimator import MemoryEstimate, MemoryRequest, estimate_memory

CALIBRATION_FILE = Path(__file__).resolve().parent.parent / "tests" / "data" / "calibration.yaml"
UNITS = {"GB": GB, "GiB": GIB}


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
        return result.total_per_gpu_gb
    allocated = sum(item.value for item in result.items if item.key not in OUTSIDE_TORCH_ALLOCATOR)
    if metric == "allocated_all_gpus":
        return allocated * result.num_gpus
    if metric == "allocated":
        return allocated
    raise ValueError(f"unknown calibration metric {metric!r}")


def rows(catalog: Catalog | None = None) -> list[tuple[str, float, float, float]]:
    """(case, measured GB, estimated GB, error % of the estimate relative to the measurement)."""
    catalog = catalog or load_catalog()
    table = []
    for row in load_calibration()["rows"]:
        measured = measured_gb(row)
        estimated = estimated_gb(row, catalog)
        table.append((row["case"], round(measured, 2), round(estimated, 2), round((estimated - measured) / measured * 100, 1)))
    return table


def excluded() -> list[tuple[str, str]]:
    return [(row["case"], row["reason"]) for row in load_calibration()["excluded"]]


def markdown_table(catalog: Catalog | None = None) -> str:
    lines = ["| Case | Measured (GB) | Estimated (GB) | Error |", "|---|---:|---:|---:|"]
    lines += [f"| {case} | {m:.2f} | {e:.2f} | {err:+.1f}% |" for case, m, e, err in rows(catalog)]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
