"""The throughput estimator against published measured speeds (tests/data/serving_calibration.yaml).

``rows()`` returns one ``Point`` per calibration point (measured, estimated, error %); ``make bench``
prints the table and the README embeds it, with ``summary_table()``: the median and p90 error on the
points no figure was fitted on (``fitted: false`` in the YAML). Errors are signed so that positive means the estimate is
faster than the measurement (for TTFT, the estimate's latency is shorter).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from benchmarks.error_stats import SERVING_TARGET, ErrorSummary, error_summary, summary_markdown
from knowledge.catalog import Catalog, load_catalog
from knowledge.gpus import GPU
from knowledge.serving import ServingData, load_serving_data
from tools.serving.estimator import ThroughputRequest, ThroughputResult, estimate_throughput

CALIBRATION_FILE = Path(__file__).resolve().parent.parent / "tests" / "data" / "serving_calibration.yaml"
TOLERANCE_PCT = 30.0


@dataclass(frozen=True)
class Point:
    id: str
    fitted: bool
    metric: str
    measured: float
    estimated: float
    setup: str

    @property
    def error_pct(self) -> float:
        """Signed speed error: + when the estimate is faster than measured."""
        if self.metric == "ttft_ms":
            return (self.measured / self.estimated - 1) * 100
        return (self.estimated / self.measured - 1) * 100


@lru_cache(maxsize=1)
def load_calibration() -> dict:
    return yaml.safe_load(CALIBRATION_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def calibration_catalog() -> Catalog:
    """The shipped catalog plus the devices a few points need that it lacks (M3 Max, M1)."""
    base = load_catalog()
    extra = []
    for row in load_calibration().get("gpu_rows", []):
        fields = dict(row)
        template = base.gpu(fields.pop("base"))
        extra.append(
            # the row's own dated source, never the template's: those sources describe another chip
            GPU.model_validate({**template.model_dump(), "spec_sources": [], **fields})
        )
    return Catalog([*base.gpus, *extra], base.models)


def request_for(point: dict) -> ThroughputRequest:
    args = dict(point["request"])
    models = load_calibration().get("models", {})
    args["model"] = models.get(args["model"], args["model"])
    return ThroughputRequest(**args)


def comparable(result: ThroughputResult, metric: str) -> float:
    if metric == "output_total":
        return result.output_tokens_per_s_total
    if metric == "output_per_gpu":
        return result.output_tokens_per_s_total / result.num_gpus
    if metric == "total_tokens":
        return result.output_tokens_per_s_total * (result.prompt_tokens + result.output_tokens) / result.output_tokens
    if metric == "decode_per_seq":  # a decode-only run (llama-bench tg): the step's own rate
        return result.decode_tokens_per_s_per_seq
    if metric == "tpot_per_user":  # 1 / TPOT measured under load: the streaming speed, other requests' prefills included
        return result.tokens_per_s_per_user_streaming
    if metric == "prefill_tps":
        return result.prefill_tokens_per_s
    if metric == "ttft_ms":
        return result.ttft_ms
    raise ValueError(f"unknown serving calibration metric {metric!r}")


def estimate(point: dict, catalog: Catalog | None = None, serving: ServingData | None = None) -> float:
    result = estimate_throughput(request_for(point), catalog or calibration_catalog(), serving or load_serving_data())
    return comparable(result, point["metric"])


def rows(serving: ServingData | None = None) -> list[Point]:
    return [
        Point(p["id"], bool(p["fitted"]), p["metric"], float(p["measured"]), estimate(p, serving=serving), p["setup"])
        for p in load_calibration()["points"]
    ]


def excluded() -> list[tuple[str, str]]:
    return [(row["id"], row["reason"]) for row in load_calibration()["excluded"]]


def summary(points: list[Point] | None = None) -> dict[str, float]:
    points = points if points is not None else rows()
    fitted = [abs(p.error_pct) for p in points if p.fitted]
    held = held_out_summary(points)
    return {
        "points": len(points), "fitted": len(fitted), "held_out": held.points,
        "median_fitted_pct": statistics.median(fitted), "median_held_out_pct": held.median_pct,
        "p90_held_out_pct": held.p90_pct, "worst_pct": max(abs(p.error_pct) for p in points),
    }  # fmt: skip


def held_out_summary(points: list[Point] | None = None) -> ErrorSummary:
    points = points if points is not None else rows()
    return error_summary("serving speed (tok/s, TTFT)", [p.error_pct for p in points if not p.fitted])


def summary_table(points: list[Point] | None = None) -> str:
    return summary_markdown([held_out_summary(points)], SERVING_TARGET)


UNITS = {"ttft_ms": "ms", "prefill_tps": "prompt tok/s", "decode_per_seq": "tok/s per seq", "tpot_per_user": "tok/s per user (1/TPOT)"}


def markdown_table(points: list[Point] | None = None) -> str:
    points = points if points is not None else rows()
    lines = ["| Point | Setup | Metric | Measured | Estimated | Error | Used to fit |", "|---|---|---|---:|---:|---:|---|"]
    for p in points:
        unit = UNITS.get(p.metric, "tok/s")
        lines.append(
            f"| {p.id} | {p.setup} | {unit} | {p.measured:,.4g} | {p.estimated:,.4g} | {p.error_pct:+.1f}% | {'fitted' if p.fitted else 'held out'} |"
        )
    return "\n".join(lines)


def excluded_markdown() -> str:
    return "\n".join(f"- **{point}**: {reason}" for point, reason in excluded())


if __name__ == "__main__":
    table = rows()
    print(summary_table(table))
    print()
    print(markdown_table(table))
    print(summary(table))
