"""Per-call latency of the memory estimator and its inverse solver on the shipped catalog.

``measure_memory_tools()`` returns one row per scenario for ``make bench``. The estimator is
arithmetic over a cached model lookup, so a call should stay well under 1 ms; ``max_fit`` makes a
few dozen estimator evaluations at most.
"""

from __future__ import annotations

from collections.abc import Callable

from benchmarks.timing import print_rows, time_scenarios
from knowledge.catalog import Catalog, load_catalog
from tools.memory.estimator import MemoryLimitsRequest, MemoryRequest, estimate_memory, max_fit


def _scenarios(catalog: Catalog) -> dict[str, Callable[[], object]]:
    serve = MemoryRequest(model="llama-3.1-70b", precision="fp8", tp=4, context=32768, batch=16, gpu="h100-sxm", engine="vllm")
    lora = MemoryRequest(model="qwen2.5-7b", mode="training", method="qlora", context=4096, gpu="rtx-4090")
    zero = MemoryRequest(model="deepseek-v3", mode="training", zero_stage=3, tp=8, pp=8, num_gpus=2048, gpu="h800-sxm")
    limits = MemoryLimitsRequest(model="llama-3.1-8b", gpu="rtx-4090", context=8192, flash_attention=False)
    return {
        "estimate_memory (vLLM serving)": lambda: estimate_memory(serve, catalog),
        "estimate_memory (QLoRA)": lambda: estimate_memory(lora, catalog),
        "estimate_memory (ZeRO-3 + 3D)": lambda: estimate_memory(zero, catalog),
        "max_fit (batch and context)": lambda: max_fit(limits, catalog),
    }


def measure_memory_tools(repeats: int = 200, catalog: Catalog | None = None) -> list[dict[str, float | str | int]]:
    """Time each call ``repeats`` times after one warm-up call; milliseconds per call."""
    return time_scenarios(_scenarios(catalog or load_catalog()), repeats)


if __name__ == "__main__":
    print_rows(measure_memory_tools())
