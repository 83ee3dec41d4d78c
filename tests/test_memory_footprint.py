"""The recommender's bytes-only path (tools.memory.estimator.footprint) gives the figures of the full estimate it
stands for: per-GPU need and usable capacity, equal across a grid of models, tasks, precisions, cards and plans, and
an error exactly where estimate_memory raises one. The recommender weighs hundreds of layouts with it per answer."""

from __future__ import annotations

import itertools

import pytest

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from tools.memory.estimator import MemoryRequest, estimate_memory, footprint
from tools.recommend import RecommendRequest, recommend_gpus

CATALOG = load_catalog()
MODELS = ["llama-3.1-8b", "qwen2.5-72b", "mixtral-8x7b", "deepseek-v2", "qwen2.5-7b"]
GPUS = [None, "h100-sxm", "rtx-4090", "a100-40gb", "mi300x", "t4", "apple-m3-ultra"]  # FP8, GeForce, no FP8, AMD, no BF16, a GPU share
INFERENCE = [  # (precision, engine, layout tp × pp over num_gpus)
    (None, "vllm", (1, 1, 1)), ("fp8", "vllm", (4, 1, 4)), ("int4", "hf", (2, 1, 2)), ("bf16", "vllm", (8, 2, 16)),
    (None, "hf", (2, 1, 4)),
]  # fmt: skip
TRAINING = [  # (method, precision, zero stage, num_gpus)
    ("full", None, 0, 1), ("full", None, 3, 8), ("lora", None, 3, 4), ("qlora", "nf4", 0, 1), ("full", "fp32", 2, 2),
]  # fmt: skip


def _requests() -> list[dict]:
    grid = []
    for model, gpu in itertools.product(MODELS, GPUS):
        for precision, engine, (tp, pp, count) in INFERENCE:
            grid.append({"model": model, "mode": "inference", "precision": precision, "engine": engine, "tp": tp, "pp": pp,
                         "num_gpus": count, "gpu": gpu, "batch": 4, "context": 8192})  # fmt: skip
        for method, precision, zero, count in TRAINING:
            grid.append({"model": model, "mode": "training", "method": method, "precision": precision, "zero_stage": zero,
                         "num_gpus": count, "gpu": gpu})  # fmt: skip
    return grid


def _known_gpu(args: dict) -> bool:
    return args["gpu"] is None or CATALOG.find_gpu(args["gpu"]) is not None


@pytest.mark.parametrize("args", [a for a in _requests() if _known_gpu(a)], ids=lambda a: "-".join(str(v) for v in a.values()))
def test_footprint_equals_the_full_estimate(args):
    request = MemoryRequest(**args)
    try:
        full = estimate_memory(request, CATALOG)
    except AdvisorError as error:
        with pytest.raises(AdvisorError) as raised:
            footprint(request, CATALOG)
        assert raised.value.code == error.code
        return
    light = footprint(request, CATALOG)
    assert light.total_per_gpu_gb == full.total_per_gpu_gb
    assert light.gpu_capacity_gb == full.gpu_capacity_gb


def test_the_grid_covers_fits_errors_and_cards():
    """The grid is not vacuous: most requests estimate, some raise, and cards of several capacities are weighed."""
    outcomes = []
    for args in filter(_known_gpu, _requests()):
        try:
            outcomes.append(estimate_memory(MemoryRequest(**args), CATALOG).verdict)
        except AdvisorError:
            outcomes.append("error")
    assert outcomes.count("error") < len(outcomes) / 2
    assert {"fits", "does_not_fit", "error", None} <= set(outcomes)


def test_the_recommendation_still_carries_the_full_estimate_of_its_top_option():
    result = recommend_gpus(RecommendRequest(model="qwen2.5-72b", task="inference"), CATALOG, load_serving_data())
    top = result.options[0]
    assert result.estimate is not None and result.estimate.items  # itemised, with words
    assert result.estimate.total_per_gpu_gb == top.per_gpu_gb
    assert result.estimate.gpu == top.gpu_name and result.estimate.num_gpus == top.count
