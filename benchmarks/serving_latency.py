"""Per-call latency of the serving-speed estimator on the shipped catalog and engine data.

``measure_serving_tools()`` returns one row per scenario for ``make bench``. A call is arithmetic over
cached model and GPU lookups (a latency-target search adds a dozen step evaluations), so it should
stay well under 1 ms.
"""

from __future__ import annotations

from collections.abc import Callable

from benchmarks.timing import print_rows, time_scenarios
from knowledge.catalog import Catalog, load_catalog
from knowledge.serving import ServingData, load_serving_data
from tools.serving.estimator import ThroughputRequest, estimate_throughput


def _scenarios(catalog: Catalog, serving: ServingData) -> dict[str, Callable[[], object]]:
    chat = ThroughputRequest(model="llama-3.1-8b", gpu="h100-sxm", batch=16)
    tp = ThroughputRequest(model="llama-3.1-70b", gpu="h100-sxm", num_gpus=8, tp=4, precision="fp8", batch=256,
                           target_ttft_ms=500, target_tokens_per_s_per_user=20)  # fmt: skip
    moe = ThroughputRequest(model="deepseek-v3", gpu="h200-sxm", num_gpus=8, precision="fp8", batch=64, prompt_tokens=4096)
    local = ThroughputRequest(model="qwen2.5-32b", gpu="rtx-4090", num_gpus=2, engine="llamacpp", precision="q4_k_m")
    return {
        "estimate_throughput (vLLM, 1 GPU)": lambda: estimate_throughput(chat, catalog, serving),
        "estimate_throughput (TP4 × 2 + targets)": lambda: estimate_throughput(tp, catalog, serving),
        "estimate_throughput (MoE, 8 GPUs)": lambda: estimate_throughput(moe, catalog, serving),
        "estimate_throughput (llama.cpp split)": lambda: estimate_throughput(local, catalog, serving),
    }


def measure_serving_tools(repeats: int = 500, catalog: Catalog | None = None) -> list[dict[str, float | str | int]]:
    """Time each call ``repeats`` times after one warm-up call; milliseconds per call."""
    return time_scenarios(_scenarios(catalog or load_catalog(), load_serving_data()), repeats)


if __name__ == "__main__":
    print_rows(measure_serving_tools())
