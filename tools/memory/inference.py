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
    quantized, bits = count(split.quantized_params), f"{fmt.bits:.4g}"
    if fmt.scope == "all":
        formula = f"{quantized} params × {bits} bits / 8{where} = {gb(value)}"
        formula_zh = f"{quantized} 参数 × {bits} 位 / 8{where} = {gb(value)}"
    else:
        kept, kept_zh = (("non-MLP and first/last-layer weights", "非 MLP 及首末层权重") if fmt.scope == "mlp"
                         else ("embeddings, LM head, norms", "嵌入层、输出层与归一化层"))
        formula = f"({quantized} × {bits} bits / 8 + {count(split.kept_params)} {kept} × 2 B){where} = {gb(value)}"
        formula_zh = f"({quantized} × {bits} 位 / 8 + {count(split.kept_params)} {kept_zh} × 2 字节){where} = {gb(value)}"
    return Part("weights", f"Weights ({fmt.label})", f"模型权重（{fmt.name_zh}）", value, formula, formula_zh)  # fmt: skip


def kv_bytes(s: Setup, seqs: float, context: int) -> float:
    """KV cache on one GPU for ``seqs`` sequences of ``context`` tokens (one copy)."""
    per = kv_bytes_per_token_layer(s.spec, s.kv, s.tp)
    return seqs * cached_token_layers(s.spec, context) / s.pp * per


def kv_per_token_formula(spec: ModelSpec, s: Setup) -> tuple[str, str]:
    """(English, Chinese) bytes of KV cache per token and layer."""
    size = num(s.kv.bytes)
    if spec.attention == "mla" and spec.kv_lora_rank:
        latent = f"({spec.kv_lora_rank} + {spec.qk_rope_dim or 0})"
        return (f"{latent} latent × {size} B (MLA: no K/V pair, replicated per TP rank)",
                f"{latent} 维潜向量 × {size} 字节（MLA：没有 K/V 对，每个 TP 分片各存一份）")  # fmt: skip
    heads = kv_heads_per_gpu(spec, s.tp)
    scale = f"{4 / spec.head_dim:.3g}"
    scale_en, scale_zh = (f" + {scale} B scales", f" + {scale} 字节缩放因子") if s.kv.scaled else ("", "")
    return (f"2 (K,V) × {heads} KV heads × {spec.head_dim} × ({size} B{scale_en})",
            f"2 (K,V) × {heads} 个 KV 头 × {spec.head_dim} × ({size} 字节{scale_zh})")  # fmt: skip


def kv_part(s: Setup) -> Part:
    spec = s.spec
    copies = LEGACY_KV_COPIES if s.engine == "hf_legacy" else 1
    value = kv_bytes(s, s.batch, s.context) * copies
    window = sliding_layers(spec)
    if window:
        full, short = spec.layers - window, min(s.context, spec.sliding_window or 0)
        tokens = f"({full} full layers × {s.context:,} + {window} window layers × {short:,})"
        tokens_zh = f"({full} 个全注意力层 × {s.context:,} + {window} 个滑动窗口层 × {short:,})"
    else:
        tokens, tokens_zh = f"{s.context:,} tokens × {spec.layers} layers", f"{s.context:,} token × {spec.layers} 层"
    legacy, legacy_zh = (f" × {copies} (old and new cache tuples coexist)", f" × {copies}（新旧缓存元组同时存在）") if copies > 1 else ("", "")
    per_en, per_zh = kv_per_token_formula(spec, s)
    pp, total = divisor("pp", s.pp), gb(value)
    formula = f"{s.batch} seq × {tokens}{pp} × {per_en}{legacy} = {total}"
    formula_zh = f"{s.batch} 条序列 × {tokens_zh}{pp} × {per_zh}{legacy_zh} = {total}"
    return Part("kv_cache", f"KV cache ({s.kv.id})", f"KV 缓存（{s.kv.id}）", value, formula, formula_zh)


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
    parts = [Part("prefill_activations", "Prefill activations (transient)", "预填充激活（临时）", value,
                  f"{count(tokens)} prefill tokens × {per_token / 1e3:.1f} kB live per token (one layer at a time) = {gb(value)}",
                  f"{count(tokens)} 个预填充 token × 每 token {per_token / 1e3:.1f} kB 活跃激活（逐层计算）= {gb(value)}")]  # fmt: skip
    if not s.flash and s.engine != "vllm":
        seqs = max(tokens // s.prompt_tokens, 1)
        query = min(tokens, s.prompt_tokens)
        scores = eager_scores_bytes(spec, seqs, query, s.prompt_tokens, s.tp)
        shape = f"{divisor('tp', s.tp)} × {query:,} × {s.prompt_tokens:,}"
        parts.append(Part("attention_scores", "Attention score matrix (no FlashAttention)", "注意力分数矩阵（未用 FlashAttention）", scores,
                          f"{seqs} seq × {spec.heads} heads{shape} × 4 B = {gb(scores)}",
                          f"{seqs} 条序列 × {spec.heads} 个头{shape} × 4 字节 = {gb(scores)}"))  # fmt: skip
    parts.append(logits_part(s))
    if s.engine == "hf":
        layer_copy = kv_bytes(s, s.batch, s.context) / max(spec.layers / s.pp, 1)
        parts.append(Part("kv_growth_copy", "KV cache growth copy (one layer)", "KV 缓存扩展时的单层拷贝", layer_copy,
                          f"torch.cat copies one layer's cache as it grows: {gb(layer_copy)}",
                          f"缓存增长时 torch.cat 会复制一层的缓存：{gb(layer_copy)}"))  # fmt: skip
    return parts


def logits_part(s: Setup) -> Part:
    vocab = s.spec.vocab
    if s.engine == "hf_legacy":
        positions, per = s.batch * s.prompt_tokens, LOGIT_BYTES_HF
        what, what_zh = "every prompt position, bf16 + fp32", "提示词的每个位置，bf16 + fp32"
    elif s.engine == "hf":
        positions, per, what, what_zh = s.batch, LOGIT_BYTES_HF, "last position only, bf16 + fp32", "仅最后一个位置，bf16 + fp32"
    else:
        positions, per, what, what_zh = s.batch, SAMPLER_LOGIT_BYTES, "sampler, last position, fp32", "采样器，最后一个位置，fp32"
    value = positions * vocab * per / s.tp
    rest = f"{divisor('tp', s.tp)} = {gb(value)}"
    return Part("logits", "Output logits", "输出 logits", value,
                f"{count(positions)} position(s) ({what}) × {vocab:,} vocab × {per} B{rest}",
                f"{count(positions)} 个位置（{what_zh}）× 词表 {vocab:,} × {per} 字节{rest}")  # fmt: skip


def overhead_parts(s: Setup) -> list[Part]:
    if s.engine == "vllm":
        return [
            Part("non_torch", "NCCL/cuBLAS workspaces (outside PyTorch)", "NCCL/cuBLAS 工作区（PyTorch 之外）", NON_TORCH_BYTES,
                 f"vLLM start-up logs report 0.33–0.39 GiB non-torch memory: {gb(NON_TORCH_BYTES)}",
                 f"vLLM 启动日志报告 PyTorch 之外的显存 0.33–0.39 GiB：{gb(NON_TORCH_BYTES)}"),
            Part("cuda_graphs", "CUDA graphs", "CUDA 图", CUDA_GRAPH_BYTES,
                 f"vLLM 'Estimated CUDA graph memory: 0.36 GiB': {gb(CUDA_GRAPH_BYTES)}",
                 f"vLLM 日志估算的 CUDA 图显存 0.36 GiB：{gb(CUDA_GRAPH_BYTES)}"),
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
                 f"peak = max of them = {gb(peak)}",
                 f"−{gb(overlap)}：预填充的逐层临时显存、logits 与缓存拷贝先后出现；峰值取其中最大者 = {gb(peak)}")]  # fmt: skip
