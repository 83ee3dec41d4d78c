"""Offline answer latency (warm, retrieval included) and the golden question-set pass rate."""

from __future__ import annotations

import statistics
import time

from advisor.config import Settings
from advisor.deps import build_advisor
from advisor.nlu.meaning import SENTENCE_VECTORS
from benchmarks.golden import history, load_cases, problems, question


def measure_answers(rounds: int = 3) -> list[dict]:
    advisor = build_advisor(Settings.from_env({}))
    cases = load_cases()
    for case in cases:  # warm-up: first calls load the embedder, index and catalogs
        advisor.answer(question(case), history(case, advisor))
    timings: list[float] = []
    passed = 0
    for round_ in range(rounds):
        for case in cases:
            turns = history(case, advisor)
            SENTENCE_VECTORS.forget()  # every message is new to the classifier, as a user's would be
            start = time.perf_counter()
            response = advisor.answer(question(case), turns)
            timings.append((time.perf_counter() - start) * 1000)
            if round_ == 0 and not problems(case, response):
                passed += 1
    p95 = statistics.quantiles(timings, n=20)[-1]
    return [
        {"name": "offline answer latency (warm)", "result": f"p50 {statistics.median(timings):.1f} ms, p95 {p95:.1f} ms", "target": "p95 < 100 ms", "ok": p95 < 100},
        {"name": "offline golden questions", "result": f"{passed}/{len(cases)} pass", "target": "all pass", "ok": passed == len(cases)},
    ]
