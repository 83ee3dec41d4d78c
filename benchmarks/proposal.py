"""Time to make a procurement proposal from a question: read the need, call the tools, draw the charts, render.

Target: < 2 s per proposal on this machine, warm (the understanding model trained and the catalogs loaded, as
in a running server). One row per format; the median of a few runs so one slow scheduling blip does not decide it.
"""

from __future__ import annotations

import statistics
import time

from advisor.config import Settings
from advisor.deps import shared_registry
from advisor.offline.planner import OfflinePlanner
from advisor.proposal.service import make_proposal, render

TARGET_MS = 2000.0
QUESTION = "Qwen2.5-72B 部署给50个人同时用，预算200万人民币"
RUNS = 3


def bench_proposal(runs: int = RUNS) -> list[dict]:
    planner = OfflinePlanner(shared_registry(), cache_dir=Settings.from_env().data_dir)
    render(make_proposal(planner, QUESTION), "pdf")  # warm-up: font, matplotlib and catalog loads
    rows = []
    for fmt in ("html", "pdf", "markdown"):
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            render(make_proposal(planner, QUESTION), fmt)
            samples.append((time.perf_counter() - start) * 1000)
        median = statistics.median(samples)
        rows.append({"name": f"proposal build time ({fmt})", "median_ms": median, "target_ms": TARGET_MS, "ok": median < TARGET_MS})
    return rows


if __name__ == "__main__":
    for row in bench_proposal():
        print(f"{row['name']:<34} median {row['median_ms']:8.1f} ms  target < {row['target_ms']:g} ms  {'ok' if row['ok'] else 'SLOW'}")
