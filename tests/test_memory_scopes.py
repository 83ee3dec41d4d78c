"""The memory estimate in the unit the user compares: PyTorch's allocator peak and nvidia-smi's per-process total,
with the runtime between them reported on its own, and the answer saying which one is held against the card."""

from __future__ import annotations

import pytest

from advisor.markdown import number
from knowledge.catalog import load_catalog
from tools.memory.estimator import estimate_memory
from tools.memory.schema import MemoryRequest


@pytest.mark.parametrize("request_args", [
    {"model": "qwen2.5-7b", "mode": "inference", "gpu": "rtx-4090"},
    {"model": "llama-3.1-8b", "mode": "training", "method": "lora"},
    {"model": "llama-3.1-70b", "mode": "inference", "engine": "vllm", "gpu": "h100-sxm", "num_gpus": 4, "tp": 4},
])  # fmt: skip
def test_the_two_totals_differ_by_the_runtime_outside_the_allocator(request_args):
    r = estimate_memory(MemoryRequest(**request_args), load_catalog())
    assert r.outside_allocator_gb > 0.4  # the CUDA context alone is ~0.5–1.4 GB
    assert r.torch_allocated_peak_gb + r.outside_allocator_gb == pytest.approx(r.nvidia_smi_total_gb, abs=0.002)
    assert r.compared_with_card == "nvidia_smi_total" and r.nvidia_smi_total_gb == pytest.approx(r.total_per_gpu_gb)


def test_the_headroom_is_worked_on_the_nvidia_smi_total():
    r = estimate_memory(MemoryRequest(model="qwen2.5-7b", mode="inference", gpu="rtx-4090"), load_catalog())
    assert r.headroom_pct == pytest.approx((1 - r.nvidia_smi_total_gb / r.gpu_capacity_gb) * 100, abs=0.1)


@pytest.mark.parametrize("question, words", [
    ("How much GPU memory does Qwen2.5-7B inference take on a 4090?", ("torch.cuda.max_memory_allocated", "nvidia-smi shows", "compares the nvidia-smi figure")),
    ("在 4090 上做 Qwen2.5-7B 推理，显存占用多少？", ("torch.cuda.max_memory_allocated", "nvidia-smi 显示", "按 nvidia-smi 口径")),
])  # fmt: skip
def test_the_answer_gives_both_totals_and_names_the_one_compared(offline_advisor, question, words):
    response = offline_advisor.answer(question, [])
    text = response.summary + response.details
    estimate = next(c for c in response.tool_calls if c.name == "estimate_memory").result
    assert all(word in text for word in words)
    for key in ("torch_allocated_peak_gb", "nvidia_smi_total_gb", "outside_allocator_gb"):
        assert f"{number(estimate[key])} GB" in text, key
