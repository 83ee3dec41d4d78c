"""Print every speed, quality and memory target as one table: `make bench`."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table


def _latency_rows(rows: list[dict], target_ms: float) -> list[dict]:
    return [
        {"name": r["name"], "result": f"mean {r['mean_ms']:.2f} ms, p95 {r['p95_ms']:.2f} ms", "target": f"< {target_ms:g} ms per call", "ok": r["mean_ms"] < target_ms}
        for r in rows
    ]


def _timed_rows(rows: list[dict]) -> list[dict]:
    return [
        {"name": r["name"], "result": f"median {r['median_ms']:.1f} ms", "target": f"< {r['target_ms']:g} ms", "ok": r["ok"]}
        for r in rows
    ]


def _retrieval_rows(rows: list[dict]) -> list[dict]:
    normalized = []
    for r in rows:
        if "seconds" in r:
            result, ok = f"{r['seconds']} s ({r['chunks']} chunks)", r["seconds"] < 60
        elif "p95_ms" in r:
            result, ok = f"p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms", r["p95_ms"] < 50
        else:
            result, ok = f"{r['recall']:.2f}", r["target"] == "reference" or r["recall"] >= 0.9
        normalized.append({"name": r["name"], "result": result, "target": r["target"], "ok": ok})
    return normalized


def _mark(row: dict) -> str:
    """A soft row only reports (no pass or fail); the others pass or fail `make bench`."""
    if row.get("soft"):
        return "·"
    return "✅" if row["ok"] else "❌"


def collect() -> list[dict]:
    from benchmarks.answers import measure_answers
    from benchmarks.calibration import held_out_summaries
    from benchmarks.calibration import points as calibration_points
    from benchmarks.code_size import rows as code_size_rows
    from benchmarks.cost_time import measure_cost_tools
    from benchmarks.error_stats import MEMORY_TARGET, SERVING_TARGET
    from benchmarks.llm_mode import measure_llm_mode
    from benchmarks.memory_latency import measure_memory_tools
    from benchmarks.proposal import bench_proposal
    from benchmarks.retrieval import measure_retrieval
    from benchmarks.server import measure_server
    from benchmarks.serving_calibration import held_out_summary as serving_held_out
    from benchmarks.serving_calibration import rows as serving_rows
    from benchmarks.serving_calibration import summary as serving_summary
    from benchmarks.serving_latency import measure_serving_tools
    from benchmarks.stops import rows as stops_rows
    from benchmarks.troubleshoot import bench_troubleshoot
    from benchmarks.understanding import rows as understanding_rows
    from benchmarks.understanding import scores as understanding_scores

    rows = understanding_rows(understanding_scores())
    rows += measure_server()
    rows += measure_answers()
    rows += _retrieval_rows(measure_retrieval())
    rows += _latency_rows(measure_memory_tools(), 1.0)
    rows += _latency_rows(measure_serving_tools(), 1.0)
    rows += _latency_rows(measure_cost_tools(), 5.0)
    rows += _timed_rows([bench_troubleshoot()])
    rows += _timed_rows(bench_proposal())
    rows += measure_llm_mode()
    memory_points = calibration_points()
    memory = held_out_summaries(memory_points)
    worst_memory = max(abs(p.error_pct) for p in memory_points)
    rows.append({
        "name": "memory estimator calibration",
        "result": "; ".join(f"{m.label}: median {m.median_pct:.1f}%, p90 {m.p90_pct:.1f}% ({m.points} held out)" for m in memory)
        + f"; worst of all {len(memory_points)} {worst_memory:.1f}%",
        "target": f"held out median ≤ {MEMORY_TARGET.median_pct:g}%, p90 ≤ {MEMORY_TARGET.p90_pct:g}%; every row within ±15%",
        "ok": all(m.meets(MEMORY_TARGET) for m in memory) and worst_memory <= 15,
    })  # fmt: skip
    speed_points = serving_rows()
    speed, held = serving_summary(speed_points), serving_held_out(speed_points)
    rows.append({
        "name": "serving speed calibration",
        "result": f"{speed['points']} measured speeds: held out ({held.points}) median {held.median_pct:.1f}%, p90 {held.p90_pct:.1f}%; "
        f"fitted ({speed['fitted']}) median {speed['median_fitted_pct']:.1f}%; worst {speed['worst_pct']:.1f}%",
        "target": f"held out median ≤ {SERVING_TARGET.median_pct:g}%, p90 ≤ {SERVING_TARGET.p90_pct:g}%; every point within ±30%",
        "ok": held.meets(SERVING_TARGET) and speed["worst_pct"] <= 30,
    })  # fmt: skip
    rows += code_size_rows()
    rows += stops_rows()
    return rows


def main() -> int:
    console = Console()
    rows = collect()
    table = Table(title="GPU Advisor benchmarks")
    for column in ("benchmark", "result", "target", "ok"):
        table.add_column(column)
    for row in rows:
        table.add_row(row["name"], str(row["result"]), str(row["target"]), _mark(row))
    console.print(table)
    from benchmarks.calibration import markdown_table
    from benchmarks.calibration import summary_table as memory_summary_table
    from benchmarks.understanding import confusion_markdown, scores

    console.print("\nIntent confusion on the held-out split (both languages)\n")
    console.print(confusion_markdown(scores()), markup=False)
    console.print("\nMemory estimator vs published measurements (held-out rows)\n")
    console.print(memory_summary_table(), markup=False)
    console.print()
    console.print(markdown_table(), markup=False)
    from benchmarks.serving_calibration import excluded_markdown
    from benchmarks.serving_calibration import markdown_table as serving_table
    from benchmarks.serving_calibration import summary_table as serving_summary_table

    console.print("\nServing-speed estimator vs published measurements (held-out points)\n")
    console.print(serving_summary_table(), markup=False)
    console.print()
    console.print(serving_table(), markup=False)
    console.print("\nLeft out, and why:\n" + excluded_markdown(), markup=False)
    return 0 if all(r["ok"] for r in rows if not r.get("soft")) else 1


if __name__ == "__main__":
    sys.exit(main())
