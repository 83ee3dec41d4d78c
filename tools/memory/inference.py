"""Inference memory per GPU: weights, KV cache, prefill temporaries, logits and runtime overheads.

Engines differ in three ways that matter for memory:
* hf (transformers ≥ 4.45): the KV cache grows in place (one layer is copied while it grows),
  only the last position's logits are computed, the whole prompt is prefilled at once;
* hf_legacy (older transformers, trust_remote_code models such as Qwen-7B's): every step
  returns a new past_key_values tuple while the old one is still referenced, so the cache is
  held twice at the peak, and logits are computed (and upcast to fp32) for every prompt token;
* vllm: paged KV cache pre-allocated from `gpu_memory_utilization`; prefill is chunked to
  `max_num_batched_tokens`; CUDA graphs and NCCL/cuBLAS workspaces sit outside PyTorch.
"""

from __future__ import annotations

from knowledge.models import ModelSpec
from tools.memory.activations import eager_scores_bytes, prefill_bytes_per_token
from tools.memory.constants import (
    CUDA_GRAPH_BYTES,
    NON_TORCH_BYTES,
    VLLM_LARGE_GPU_GIB,
    VLLM_PREFILL_CHUNK_LARGE,
    VLLM_PREFILL_CHUNK_SMALL,
)
from tools.memory.items import CUDA_CONTEXT, MULTI_GPU_WORKSPACES, Part, count, divisor, gb, num
from tools.memory.setup import Setup
from tools.memory.shapes import cached_token_layers, kv_bytes_per_token_layer, kv_heads_per_gpu, sliding_layers, weight_split

LOGIT_BYTES_HF = 6  # bf16 logits + their fp32 upcast
SAMPLER_LOGIT_BYTES = 4  # vLLM samples from fp32 logits of the last position only
LEGACY_KV_COPIES = 2


def weights_part(s: Setup) -> Part:
    spec, fmt, shard = s.spec, s.weights, s.tp * s.pp
    split = weight_split(spec, fmt)
    value = split.bytes / shard
    where = divisor("tp×pp", shard)
    if fmt.scope == "all":
        formula = f"{count(split.quantized_params)} params × {fmt.bits:.4g} bits / 8{where} = {gb(value)}"
    else:
        kept = "non-MLP and first/last-layer weights" if fmt.scope == "mlp" else "embeddings, LM head, norms"
        formula = (f"({count(split.quantized_params)} × {fmt.bits:.4g} bits / 8 + {count(split.kept_params)} {kept} × 2 B)"
                   f"{where} = {gb(value)}")  # fmt: skip
    return Part("weights", f"Weights ({fmt.label})", f"模型权重（{fmt.label}）", value, formula)


def kv_bytes(s: Setup, seqs: float, context: int) -> float:
    """KV cache on one GPU for ``seqs`` sequences of ``context`` tokens (one copy)."""
    per = kv_bytes_per_token_layer(s.spec, s.kv, s.tp)
    return seqs * cached_token_layers(s.spec, context) / s.pp * per


def kv_per_token_formula(spec: ModelSpec, s: Setup) -> str:
    if spec.attention == "mla" and spec.kv_lora_rank:
        return f"({spec.kv_lora_rank} + {spec.qk_rope_dim or 0}) latent × {num(s.kv.bytes)} B (MLA: no K/V pair, replicated per TP rank)"
    heads = kv_heads_per_gpu(spec, s.tp)
    scale = f" + {4 / spec.head_dim:.3g} B scales" if s.kv.scaled else ""
    return f"2 (K,V) × {heads} KV heads × {spec.head_dim} × ({num(s.kv.bytes)} B{scale})"


def kv_part(s: Setup) -> Part:
    spec = s.spec
    copies = LEGACY_KV_COPIES if s.engine == "hf_legacy" else 1
    value = kv_bytes(s, s.batch, s.context) * copies
    window = sliding_layers(spec)
    if window:
        tokens = f"({spec.layers - window} full layers × {s.context:,} + {window} window layers × {min(s.context, spec.sliding_window or 0):,})"
    else:
        tokens = f"{s.context:,} tokens × {spec.layers} layers"
    legacy = f" × {copies} (old and new cache tuples coexist)" if copies > 1 else ""
    formula = f"{s.batch} seq × {tokens}{divisor('pp', s.pp)} × {kv_per_token_formula(spec, s)}{legacy} = {gb(value)}"
    label = f"KV cache ({s.kv.id})"
    return Part("kv_cache", label, f"KV 缓存（{s.kv.id}）", value, formula)


def vllm_default_chunk(s: Setup) -> int:
    """vLLM's default max_num_batched_tokens for the GPU (the larger one when no GPU is named)."""
    gpu = s.gpu
    if gpu is None or (gpu.memory_gb >= VLLM_LARGE_GPU_GIB and "a100" not in gpu.name.lower()):
        return VLLM_PREFILL_CHUNK_LARGE
    return VLLM_PREFILL_CHUNK_SMALL


def prefill_tokens(s: Setup) -> int:
    """Prompt tokens that go through the model in one step."""
    if s.engine == "vllm":
        return s.prefill_chunk or vllm_default_chunk(s)  # vLLM reserves activation memory for a full chunk
    total = s.batch * s.prompt_tokens
    return min(total, s.prefill_chunk) if s.prefill_chunk else total


def transient_parts(s: Setup) -> list[Part]:
    spec = s.spec
    tokens = prefill_tokens(s)
    per_token = prefill_bytes_per_token(spec, s.tp)
    value = tokens * per_token
    formula = f"{count(tokens)} prefill tokens × {per_token / 1e3:.1f} kB live per token (one layer at a time) = {gb(value)}"
    parts = [Part("prefill_activations", "Prefill activations (transient)", "预填充激活（临时）", value, formula)]
    if not s.flash and s.engine != "vllm":
        seqs = max(tokens // s.prompt_tokens, 1)
        query = min(tokens, s.prompt_tokens)
        scores = eager_scores_bytes(spec, seqs, query, s.prompt_tokens, s.tp)
        parts.append(Part("attention_scores", "Attention score matrix (no FlashAttention)", "注意力分数矩阵（未用 FlashAttention）", scores,
                          f"{seqs} seq × {spec.heads} heads{divisor('tp', s.tp)} × {query:,} × {s.prompt_tokens:,} × 4 B = {gb(scores)}"))  # fmt: skip
    parts.append(logits_part(s))
    if s.engine == "hf":
        layer_copy = kv_bytes(s, s.batch, s.context) / max(spec.layers / s.pp, 1)
        parts.append(Part("kv_growth_copy", "KV cache growth copy (one layer)", "KV 缓存扩展时的单层拷贝", layer_copy,
                          f"torch.cat copies one layer's cache as it grows: {gb(layer_copy)}"))  # fmt: skip
    return parts


def logits_part(s: Setup) -> Part:
    vocab = s.spec.vocab
    if s.engine == "hf_legacy":
        positions, per, what = s.batch * s.prompt_tokens, LOGIT_BYTES_HF, "every prompt position, bf16 + fp32"
    elif s.engine == "hf":
        positions, per, what = s.batch, LOGIT_BYTES_HF, "last position only, bf16 + fp32"
    else:
        positions, per, what = s.batch, SAMPLER_LOGIT_BYTES, "sampler, last position, fp32"
    value = positions * vocab * per / s.tp
    return Part("logits", "Output logits", "输出 logits", value,
                f"{count(positions)} position(s) ({what}) × {vocab:,} vocab × {per} B{divisor('tp', s.tp)} = {gb(value)}")  # fmt: skip


def overhead_parts(s: Setup) -> list[Part]:
    if s.engine == "vllm":
        return [
            Part("non_torch", "NCCL/cuBLAS workspaces (outside PyTorch)", "NCCL/cuBLAS 工作区", NON_TORCH_BYTES,
                 f"vLLM start-up logs report 0.33–0.39 GiB non-torch memory: {gb(NON_TORCH_BYTES)}"),
            Part("cuda_graphs", "CUDA graphs", "CUDA 图", CUDA_GRAPH_BYTES,
                 f"vLLM 'Estimated CUDA graph memory: 0.36 GiB': {gb(CUDA_GRAPH_BYTES)}"),
        ]  # fmt: skip
    return [CUDA_CONTEXT, MULTI_GPU_WORKSPACES] if s.num_gpus > 1 else [CUDA_CONTEXT]


def inference_parts(s: Setup) -> list[Part]:
    transient = transient_parts(s)
    return [weights_part(s), kv_part(s), *transient, *not_simultaneous(transient), *overhead_parts(s)]


def not_simultaneous(transient: list[Part]) -> list[Part]:
    """Prefill temporaries, the logits after the last layer and the decode-time cache copy come one
    after another; only the largest phase counts toward the peak."""
    by_key = {p.key: p.bytes for p in transient}
    layer_phase = by_key.get("prefill_activations", 0.0) + by_key.get("attention_scores", 0.0)
    peak = max(layer_phase, by_key.get("logits", 0.0), by_key.get("kv_growth_copy", 0.0))
    overlap = sum(by_key.values()) - peak
    if overlap <= 0:
        return []
    return [Part("peak_overlap", "Not simultaneous (overlap)", "不同时出现的部分（重叠扣除）", -overlap,
                 f"−{gb(overlap)}: prefill layer temporaries, logits and the cache copy happen at different times; "
                 f"peak = max of them = {gb(peak)}")]  # fmt: skip
