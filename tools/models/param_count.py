"""Count a decoder's parameters from its shapes, so configs and catalog rows can be checked.

Counted: token embeddings (plus a separate LM head unless tied), per-layer attention
projections (MHA/GQA/MQA or DeepSeek MLA), dense or MoE MLPs with router and shared
experts, and RMSNorm weights. Left out because they are below 0.5% of any catalog
model: biases, QK-norms, learned position tables and vision encoders.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from knowledge.models import ModelSpec


class ParamCount(BaseModel):
    """Parameter totals computed from a model's shapes (counts, not billions)."""

    total: float = Field(description="All parameters, every expert included.")
    active: float = Field(description="Parameters used per token: total minus the routed experts left idle.")
    embeddings: float = Field(description="Input embedding plus output head (once if tied).")
    attention: float = Field(description="Attention projections over all layers.")
    mlp: float = Field(description="MLP / expert weights and routers over all layers.")
    norms: float = Field(description="Normalisation weights.")


def attention_params(spec: ModelSpec) -> float:
    """Weights of one layer's attention block."""
    h, heads, d = spec.hidden, spec.heads, spec.head_dim
    if spec.attention == "mla" and spec.kv_lora_rank and spec.qk_rope_dim:
        rope, latent = spec.qk_rope_dim, spec.kv_lora_rank
        q_width = heads * (d + rope)  # per head: non-rotary part (head_dim) + rotary part
        if spec.q_lora_rank:  # down-projection, its norm, then up-projection to every head
            query = h * spec.q_lora_rank + spec.q_lora_rank + spec.q_lora_rank * q_width
        else:
            query = h * q_width
        kv_down = h * (latent + rope) + latent  # latent projection and its norm
        kv_up = latent * heads * (d + d)  # keys' non-rotary part and values, head_dim each
        return query + kv_down + kv_up + heads * d * h
    return h * heads * d + 2 * h * spec.kv_heads * d + heads * d * h


def mlp_params(hidden: int, ffn: int, gated: bool) -> float:
    """One MLP (or one expert): gate+up+down when gated, up+down otherwise."""
    return (3 if gated else 2) * hidden * ffn


def count_params(spec: ModelSpec) -> ParamCount:
    """Total and per-token-active parameters implied by ``spec``'s shapes."""
    h = spec.hidden
    embeddings = spec.vocab * h * (1 if spec.tied_embeddings else 2)
    attention = attention_params(spec) * spec.layers
    norms = (2 * spec.layers + 1) * h
    expert = mlp_params(h, spec.ffn, spec.gated_mlp)
    if spec.moe_experts:
        dense_layers = spec.dense_layers or 0
        moe_layers = spec.layers - dense_layers
        dense_mlp = mlp_params(h, spec.dense_ffn or spec.ffn, spec.gated_mlp) * dense_layers
        shared = spec.moe_shared_experts or 0
        per_moe_layer = (spec.moe_experts + shared) * expert + h * spec.moe_experts  # experts + router
        mlp = dense_mlp + moe_layers * per_moe_layer
        idle = moe_layers * (spec.moe_experts - (spec.moe_active or spec.moe_experts)) * expert
    else:
        mlp, idle = expert * spec.layers, 0.0
    total = embeddings + attention + mlp + norms
    if spec.active_excludes_input_embedding:
        idle += spec.vocab * h  # counted the publisher's way: the input lookup does no arithmetic per token
    return ParamCount(
        total=total, active=total - idle, embeddings=embeddings, attention=attention, mlp=mlp, norms=norms
    )
