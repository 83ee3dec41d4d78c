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

from knowledge.bilingual import Text
from knowledge.models import ModelSpec
from tools.memory.activations import eager_scores_bytes, prefill_bytes_per_token
from tools.memory.constants import (
    CUDA_GRAPH_BYTES,
    NON_TORCH_BYTES,
    VLLM_LARGE_GPU_GIB,
    VLLM_PREFILL_CHUNK_LARGE,
    VLLM_PREFILL_CHUNK_SMALL,
)
from tools.memory.items import CUDA_CONTEXT, MULTI_GPU_WORKSPACES, Part, count, divisor, gb, num, text_part, worded_part
from tools.memory.items import MEMORY_TEXT as TEXT
from tools.memory.setup import Setup
from tools.memory.shapes import cached_token_layers, kv_bytes_per_token_layer, kv_heads_per_gpu, sliding_layers, weight_split

LOGIT_BYTES_HF = 6  # bf16 logits + their fp32 upcast
SAMPLER_LOGIT_BYTES = 4  # vLLM samples from fp32 logits of the last position only
LEGACY_KV_COPIES = 2


def weights_part(s: Setup) -> Part:
    spec, fmt, shard = s.spec, s.weights, s.tp * s.pp
    split = weight_split(spec, fmt)
    value = split.bytes / shard

    def texts() -> tuple[Text, Text]:
        where = divisor("tp×pp", shard)
        quantized, bits = count(split.quantized_params), f"{fmt.bits:.4g}"
        if fmt.scope == "all":
            formula = TEXT.text("inference.weights.all", quantized=quantized, bits=bits, where=where, size=gb(value))
        else:
            kept_what = TEXT.text("inference.weights.kept_mlp" if fmt.scope == "mlp" else "inference.weights.kept_linear")
            formula = TEXT.text("inference.weights.split", quantized=quantized, bits=bits, kept=count(split.kept_params), kept_what=kept_what,
                                where=where, size=gb(value))  # fmt: skip
        return TEXT.text("inference.weights.label", name=Text(en=fmt.label, zh=fmt.name_zh)), formula

    return worded_part("weights", value, texts)


def kv_bytes(s: Setup, seqs: float, context: int) -> float:
    """KV cache on one GPU for ``seqs`` sequences of ``context`` tokens (one copy)."""
    per = kv_bytes_per_token_layer(s.spec, s.kv, s.tp)
    return seqs * cached_token_layers(s.spec, context) / s.pp * per


def kv_per_token_formula(spec: ModelSpec, s: Setup) -> tuple[str, str]:
    """(English, Chinese) bytes of KV cache per token and layer."""
    size = num(s.kv.bytes)
    if spec.attention == "mla" and spec.kv_lora_rank:
        latent = f"({spec.kv_lora_rank} + {spec.qk_rope_dim or 0})"
        mla = TEXT.text("inference.kv_per_token.mla", latent=latent, size=size)
        return mla.en, mla.zh
    heads = kv_heads_per_gpu(spec, s.tp)
    scale = f"{4 / spec.head_dim:.3g}"
    scales = TEXT.text("inference.kv_per_token.scales", scale=scale) if s.kv.scaled else Text(en="", zh="")
    per = TEXT.text("inference.kv_per_token.heads", heads=heads, head_dim=spec.head_dim, size=size, scales=scales)
    return per.en, per.zh


def kv_part(s: Setup) -> Part:
    spec = s.spec
    copies = LEGACY_KV_COPIES if s.engine == "hf_legacy" else 1
    value = kv_bytes(s, s.batch, s.context) * copies

    def texts() -> tuple[Text, Text]:
        window = sliding_layers(spec)
        if window:
            full, short = spec.layers - window, min(s.context, spec.sliding_window or 0)
            tokens = TEXT.text("inference.kv.windowed", full=full, context=s.context, window=window, short=short)
        else:
            tokens = TEXT.text("inference.kv.layers", context=s.context, layers=spec.layers)
        legacy = TEXT.text("inference.kv.legacy", copies=copies) if copies > 1 else Text(en="", zh="")
        per_en, per_zh = kv_per_token_formula(spec, s)
        per = Text(en=per_en, zh=per_zh)
        formula = TEXT.text("inference.kv.formula", batch=s.batch, tokens=tokens, pp=divisor("pp", s.pp), per=per, legacy=legacy, total=gb(value))
        return TEXT.text("inference.kv.label", kv=s.kv.id), formula

    return worded_part("kv_cache", value, texts)


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
    parts = [text_part("prefill_activations", value, "inference.prefill_activations", tokens=count(tokens), per_token=per_token / 1e3, size=gb(value))]
    if not s.flash and s.engine != "vllm":
        seqs = max(tokens // s.prompt_tokens, 1)
        query = min(tokens, s.prompt_tokens)
        scores = eager_scores_bytes(spec, seqs, query, s.prompt_tokens, s.tp)
        shape = f"{divisor('tp', s.tp)} × {query:,} × {s.prompt_tokens:,}"
        parts.append(text_part("attention_scores", scores, "inference.attention_scores", seqs=seqs, heads=spec.heads, shape=shape, size=gb(scores)))
    parts.append(logits_part(s))
    if s.engine == "hf":
        layer_copy = kv_bytes(s, s.batch, s.context) / max(spec.layers / s.pp, 1)
        parts.append(text_part("kv_growth_copy", layer_copy, "inference.kv_growth_copy", size=gb(layer_copy)))
    return parts


def logits_part(s: Setup) -> Part:
    vocab = s.spec.vocab
    if s.engine == "hf_legacy":
        positions, per = s.batch * s.prompt_tokens, LOGIT_BYTES_HF
        what = TEXT.text("inference.logits.every_position")
    elif s.engine == "hf":
        positions, per, what = s.batch, LOGIT_BYTES_HF, TEXT.text("inference.logits.last_position")
    else:
        positions, per, what = s.batch, SAMPLER_LOGIT_BYTES, TEXT.text("inference.logits.sampler")
    value = positions * vocab * per / s.tp
    rest = f"{divisor('tp', s.tp)} = {gb(value)}"
    return text_part("logits", value, "inference.logits", positions=count(positions), what=what, vocab=vocab, per=per, rest=rest)


def overhead_parts(s: Setup) -> list[Part]:
    if s.engine == "vllm":
        return [
            text_part("non_torch", NON_TORCH_BYTES, "inference.non_torch", size=gb(NON_TORCH_BYTES)),
            text_part("cuda_graphs", CUDA_GRAPH_BYTES, "inference.cuda_graphs", size=gb(CUDA_GRAPH_BYTES)),
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
    return [text_part("peak_overlap", -overlap, "inference.peak_overlap", overlap=gb(overlap), peak=gb(peak))]
