"""Fixed costs and conventions of the memory estimator, each with where it comes from.

Every figure the estimator reports is in GB = 10^9 bytes. GPU capacities in the catalog are
vendors' nominal sizes, which for HBM/GDDR parts are binary (an "80 GB" A100 holds 80 GiB).
"""

from __future__ import annotations

GB = 1e9
GIB = 2**30

# GPU memory: the catalog's `memory_gb` is the nominal size; NVIDIA/AMD nominal sizes are GiB
# (A100 80GB: nvidia-smi reports 81920 MiB; RTX 4090: 24564 MiB).
CAPACITY_UNIT_BYTES = GIB

# CUDA context + PyTorch kernels, outside the torch allocator: 1343 MiB measured by nvidia-smi after
# `torch.ones((1,1)).to("cuda")` (transformers docs, model_memory_anatomy.md); Unsloth Studio's
# calibrated constant is 1.4 GB (vram_estimation.py). gpu_poor uses 650 MB for lazily loaded kernels.
CUDA_CONTEXT_BYTES = 1343 * 2**20

# vLLM start-up logs: "non_torch_memory takes 0.33GiB / 0.39GiB" (vllm-project/vllm #14452, #11251)
# covers NCCL and cuBLAS workspaces; "Estimated CUDA graph memory: 0.36 GiB total" (gpustack/runner #251),
# 0.21 GiB for Llama-3.2-1B (vllm PR #11349).
NON_TORCH_BYTES = 0.39 * GIB
CUDA_GRAPH_BYTES = 0.36 * GIB

# vLLM default `max_num_batched_tokens` for the OpenAI server (EngineArgs.get_batch_defaults in
# vllm/engine/arg_utils.py): 8192 on GPUs with ≥ 70 GiB that are not A100s, else 2048. Chunked
# prefill processes at most this many prompt tokens per step, and profiling reserves that much.
VLLM_PREFILL_CHUNK_LARGE = 8192
VLLM_PREFILL_CHUNK_SMALL = 2048
VLLM_LARGE_GPU_GIB = 70
VLLM_DEFAULT_UTILIZATION = 0.9  # `gpu_memory_utilization` default

# DeepSpeed ZeRO defaults, in elements (runtime/zero/config.py): reduce/allgather buckets 5e8,
# stage-3 max live parameters 1e9; the EleutherAI cookbook counts each at 2 bytes/element.
ZERO_BUCKET_ELEMENTS = 5e8
ZERO3_LIVE_PARAMS = 1e9

# Allocator fragmentation on activation-heavy training: Megatron-LM's theoretical memory report
# applies a 1.05 factor; measured torch "allocated" figures exclude it, "reserved"/nvidia-smi include it.
FRAGMENTATION = 0.05

# Line items that live outside PyTorch's caching allocator, so `torch.cuda.max_memory_allocated`
# never sees them. Calibration against allocator-reported peaks leaves these out.
OUTSIDE_TORCH_ALLOCATOR = frozenset({"cuda_context", "non_torch", "cuda_graphs", "fragmentation"})

# Verdict bands: below 90% of capacity "fits"; 90–100% "tight" (allocator spikes can still OOM).
TIGHT_FRACTION = 0.9

MAX_CONTEXT_TOKENS = 10_000_000
MAX_BATCH = 1_000_000
MAX_GPUS = 100_000
