"""Entity extraction speed: a 100 KB message (pasted log plus a question) must extract in < 50 ms."""

from __future__ import annotations

import statistics
import time

from advisor.entities import extract
from advisor.intents import classify_intent
from knowledge.catalog import load_catalog

TARGET_MS = 50.0
QUESTION_ZH = "两台8卡A800训练700亿模型要多久？预算50万，电费0.8元/度。\n"
QUESTION_EN = "Rent or buy 8×H100 for Llama 3.1 70B at 32k context? $1.8/GPU-hr, 60% utilisation.\n"
LOG_LINE = "[rank3] 2025-01-07 12:00:01 NCCL WARN NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129 on GPU 3 (A100-SXM4-80GB)\n"


def messages() -> dict[str, str]:
    """Realistic worst cases of about 100 KB each."""
    size = 100_000
    log = LOG_LINE * (size // len(LOG_LINE))
    chinese = ("我们在国内用4090跑LoRA微调，显存经常不够，利用率只有30%，不知道怎么办。" * 4000)[:size]
    return {
        "zh question + 100 KB log": QUESTION_ZH + log,
        "100 KB log + en question": log + QUESTION_EN,
        "100 KB Chinese prose": chinese,
    }


def bench_entities(repeats: int = 10) -> list[dict[str, float | str | bool]]:
    """Median and worst time of extract + classify_intent per 100 KB message (catalog and matcher built first)."""
    catalog = load_catalog()
    extract("warm up the name matcher", catalog)
    rows: list[dict[str, float | str | bool]] = []
    for label, text in messages().items():
        timings = []
        for _ in range(repeats):
            start = time.perf_counter()
            classify_intent(text, extract(text, catalog))
            timings.append((time.perf_counter() - start) * 1000)
        median = statistics.median(timings)
        rows.append({
            "name": f"entities: {label}",
            "median_ms": round(median, 2),
            "max_ms": round(max(timings), 2),
            "target_ms": TARGET_MS,
            "ok": median < TARGET_MS,
        })  # fmt: skip
    return rows


if __name__ == "__main__":
    for row in bench_entities():
        print(row)
