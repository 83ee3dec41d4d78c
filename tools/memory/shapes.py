"""Shape-derived quantities the memory estimator needs: what is quantised, KV bytes, LoRA sizes.

Totals come from ``ModelSpec.params_b`` (the published count); the shapes only split it into
parts (embeddings, MLP, per layer) and size the KV cache and adapters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from knowledge.bilingual import AdvisorError
from knowledge.models import ModelSpec
from tools.memory.items import MEMORY_TEXT
from tools.models.param_count import count_params
from tools.precision import KVFormat, WeightFormat

BF16_BYTES = 2  # weights a quantised checkpoint leaves unquantised are stored in 16-bit


@dataclass(frozen=True)
class WeightSplit:
    quantized_params: float
    kept_params: float  # stored at 2 bytes
    bytes: float


def weight_split(spec: ModelSpec, fmt: WeightFormat) -> WeightSplit:
    """Bytes of all weights in ``fmt``; the parts outside its scope stay 16-bit."""
    total = spec.params_b * 1e9
    if fmt.scope == "all":
        return WeightSplit(total, 0.0, total * fmt.bytes)
    counts = count_params(spec)
    share = counts.mlp / counts.total if fmt.scope == "mlp" else 1 - (counts.embeddings + counts.norms) / counts.total
    if fmt.scope == "mlp" and spec.layers > 2:
        share *= (spec.layers - 2) / spec.layers  # first and last layers stay 16-bit in that recipe
    quantized = total * share
    kept = total - quantized
    return WeightSplit(quantized, kept, quantized * fmt.bytes + kept * BF16_BYTES)


def embedding_params(spec: ModelSpec) -> float:
    return spec.vocab * spec.hidden * (1 if spec.tied_embeddings else 2)


def kv_heads_per_gpu(spec: ModelSpec, tp: int) -> int:
    """Tensor parallelism splits KV heads; with fewer heads than ranks each rank keeps one copy."""
    return max(math.ceil(spec.kv_heads / tp), 1)


def kv_bytes_per_token_layer(spec: ModelSpec, kv: KVFormat, tp: int = 1) -> float:
    """Cache bytes one token adds in one layer on one GPU.

    MLA (DeepSeek-V2/V3) caches one latent vector plus the shared RoPE key, no K/V pair,
    and every tensor-parallel rank keeps the whole latent.
    """
    if spec.attention == "mla" and spec.kv_lora_rank:
        return (spec.kv_lora_rank + (spec.qk_rope_dim or 0)) * kv.bytes_per_element(spec.kv_lora_rank)
    return 2 * kv_heads_per_gpu(spec, tp) * spec.head_dim * kv.bytes_per_element(spec.head_dim)


def sliding_layers(spec: ModelSpec) -> int:
    if not spec.sliding_window:
        return 0
    full = spec.full_attention_layers or 0
    return spec.layers - full


def cached_token_layers(spec: ModelSpec, context: int) -> float:
    """Σ over layers of tokens kept: sliding-window layers hold at most the window."""
    window_layers = sliding_layers(spec)
    window = min(context, spec.sliding_window or context)
    return (spec.layers - window_layers) * context + window_layers * window


# LoRA target modules; each maps to the (in, out) shapes of the matrices it adapts in one layer.
LORA_MODULES = ("q", "k", "v", "o", "gate", "up", "down")
LORA_GROUPS = {
    "all": LORA_MODULES, "all_linear": LORA_MODULES, "attention": ("q", "k", "v", "o"), "attn": ("q", "k", "v", "o"),
    "mlp": ("gate", "up", "down"), "ffn": ("gate", "up", "down"),
}  # fmt: skip
LORA_ALIASES = {
    "q_proj": "q", "k_proj": "k", "v_proj": "v", "o_proj": "o", "out_proj": "o", "output_proj": "o",
    "gate_proj": "gate", "w1": "gate", "up_proj": "up", "w3": "up", "down_proj": "down", "w2": "down",
    "c_attn": "qkv", "qkv_proj": "qkv", "query_key_value": "qkv", "c_proj": "o", "dense": "o",
    "gate_up_proj": "gate_up", "fc1": "up", "fc2": "down", "c_fc": "up",
}  # fmt: skip


def lora_targets(names: list[str]) -> tuple[str, ...]:
    """Normalise user target names ('q_proj', 'all', 'mlp', 'c_attn') to canonical modules."""
    found: list[str] = []
    for raw in names:
        name = raw.strip().lower()
        if name in LORA_GROUPS:
            found.extend(LORA_GROUPS[name])
        elif name in LORA_MODULES:
            found.append(name)
        elif LORA_ALIASES.get(name) == "qkv":
            found.extend(("q", "k", "v"))
        elif LORA_ALIASES.get(name) == "gate_up":
            found.extend(("gate", "up"))
        elif name in LORA_ALIASES:
            found.append(LORA_ALIASES[name])
        else:
            raise AdvisorError(
                "unknown_lora_target",
                **MEMORY_TEXT.text("errors.unknown_lora_target", name=raw).model_dump(),
                suggestions=[*LORA_GROUPS, *LORA_MODULES, *LORA_ALIASES][:12],
            )
    if not found:
        raise AdvisorError(
            "no_lora_targets", **MEMORY_TEXT.text("errors.no_lora_targets").model_dump(), suggestions=["all"]
        )
    return tuple(dict.fromkeys(found))


def _attention_shapes(spec: ModelSpec) -> dict[str, list[tuple[int, int]]]:
    h, heads, d = spec.hidden, spec.heads, spec.head_dim
    if spec.attention == "mla" and spec.kv_lora_rank:
        rope, latent, q_rank = spec.qk_rope_dim or 0, spec.kv_lora_rank, spec.q_lora_rank
        q_width = heads * (d + rope)
        query = [(h, q_rank), (q_rank, q_width)] if q_rank else [(h, q_width)]
        kv = [(h, latent + rope), (latent, heads * 2 * d)]  # k and v share the latent projections
        return {"q": query, "k": kv, "v": [], "o": [(heads * d, h)]}
    kv_width = spec.kv_heads * d
    return {"q": [(h, heads * d)], "k": [(h, kv_width)], "v": [(h, kv_width)], "o": [(heads * d, h)]}


def _mlp_count_and_width(spec: ModelSpec) -> list[tuple[int, int]]:
    """(number of layers, (experts incl. shared) per layer, width) groups for MLP LoRA."""
    if not spec.moe_experts:
        return [(spec.layers, 1, spec.ffn)]
    dense = spec.dense_layers or 0
    experts = spec.moe_experts + (spec.moe_shared_experts or 0)
    groups = [(spec.layers - dense, experts, spec.ffn)]
    if dense:
        groups.append((dense, 1, spec.dense_ffn or spec.ffn))
    return groups


def lora_params(spec: ModelSpec, rank: int, targets: tuple[str, ...]) -> float:
    """Adapter parameters: rank × (in + out) for every targeted matrix (all experts for MoE)."""
    attention = _attention_shapes(spec)
    per_layer_attention = sum(rank * (i + o) for name in targets if name in attention for i, o in attention[name])
    total = per_layer_attention * spec.layers
    h = spec.hidden
    mlp_shapes = {"gate": lambda f: (h, f), "up": lambda f: (h, f), "down": lambda f: (f, h)}
    if not spec.gated_mlp:
        mlp_shapes.pop("gate")
    for layers, experts, width in _mlp_count_and_width(spec):
        per_expert = sum(rank * sum(mlp_shapes[name](width)) for name in targets if name in mlp_shapes)
        total += per_expert * experts * layers
    return total


def per_layer_params(spec: ModelSpec) -> float:
    """Average parameters of one transformer block (everything but embeddings and head)."""
    return (spec.params_b * 1e9 - embedding_params(spec)) / spec.layers
