"""What one token costs a model, independent of the hardware: bytes to read and FLOPs to do.

* Weights read per forward pass exclude the input-embedding table (a lookup touches one row per
  token); a tied table is read in full because it is also the LM head.
* MoE: routed experts are counted apart. A step of T tokens touches, per MoE layer, on average
  E·(1 − (1 − k/E)^T) of the E experts (each token picks k), so a single sequence streams about the
  active experts and a large batch streams nearly all of them.
* FLOPs per token are 2 × the parameters a token goes through (input embedding excluded); causal
  attention adds 2 × (heads × head_dim) × S × min(S, window) per layer for an S-token prompt.
"""

from __future__ import annotations

from dataclasses import dataclass

from knowledge.models import ModelSpec
from tools.memory.shapes import BF16_BYTES, cached_token_layers, kv_bytes_per_token_layer, weight_split
from tools.models.param_count import mlp_params
from tools.precision import KVFormat, WeightFormat


@dataclass(frozen=True)
class Workload:
    stored_bytes: float  # every weight as stored, the whole model
    dense_read_bytes: float  # non-routed weights read by one forward pass (input embedding excluded)
    input_embedding_bytes: float  # the untied input table, only looked up
    expert_bytes: float  # one routed expert in one layer
    moe_layers: int
    experts: int  # routed experts per MoE layer (0 for dense models)
    active_experts: int
    dense_flops_per_token: float
    expert_flops_per_token: float
    attention_width: int  # heads × head_dim

    @property
    def moe(self) -> bool:
        return self.experts > 0

    def experts_touched(self, tokens: float) -> float:
        """Expected distinct routed experts one MoE layer reads for ``tokens`` routed tokens."""
        if not self.moe:
            return 0.0
        share = self.active_experts / self.experts
        return self.experts * (1 - (1 - share) ** max(tokens, 1.0))

    def expert_read_bytes(self, tokens: float) -> float:
        return self.moe_layers * self.experts_touched(tokens) * self.expert_bytes

    def flops_per_token(self) -> float:
        return self.dense_flops_per_token + self.expert_flops_per_token


def workload(spec: ModelSpec, fmt: WeightFormat) -> Workload:
    stored = weight_split(spec, fmt).bytes
    table_params = spec.vocab * spec.hidden
    untied_input = 0.0 if spec.tied_embeddings else table_params
    input_bytes = untied_input * (fmt.bytes if fmt.scope == "all" else BF16_BYTES)
    active_params = (spec.active_params_b or spec.params_b) * 1e9
    experts = spec.moe_experts or 0
    if experts:
        moe_layers = spec.layers - (spec.dense_layers or 0)
        per_expert = mlp_params(spec.hidden, spec.ffn, spec.gated_mlp)
        routed_bytes = min(moe_layers * experts * per_expert * fmt.bytes, 0.95 * stored)
        expert_bytes = routed_bytes / (moe_layers * experts)
        active = min(spec.moe_active or 1, experts)
        expert_params_active = min(moe_layers * active * per_expert, 0.95 * active_params)
    else:
        moe_layers, routed_bytes, expert_bytes, active, expert_params_active = 0, 0.0, 0.0, 0, 0.0
    dense_params_active = max(active_params - expert_params_active - untied_input, 0.05 * active_params)
    return Workload(
        stored_bytes=stored,
        dense_read_bytes=max(stored - routed_bytes - input_bytes, 0.0),
        input_embedding_bytes=input_bytes,
        expert_bytes=expert_bytes,
        moe_layers=moe_layers,
        experts=experts,
        active_experts=active,
        dense_flops_per_token=2 * dense_params_active,
        expert_flops_per_token=2 * expert_params_active,
        attention_width=spec.heads * spec.head_dim,
    )


def attention_flops(spec: ModelSpec, prompt: int) -> float:
    """Causal attention over an S-token prompt: 2 × width × Σ_layers S × min(S, window)."""
    return 2 * spec.heads * spec.head_dim * prompt * cached_token_layers(spec, prompt)


def kv_bytes_per_token(spec: ModelSpec, kv: KVFormat, tp: int) -> float:
    """KV-cache bytes one token adds on one GPU, all layers of the model."""
    return kv_bytes_per_token_layer(spec, kv, tp) * spec.layers


def kv_bytes_per_sequence(spec: ModelSpec, kv: KVFormat, tp: int, tokens: float) -> float:
    """KV cache of one sequence of ``tokens`` on one tensor-parallel rank (sliding windows capped)."""
    return kv_bytes_per_token_layer(spec, kv, tp) * cached_token_layers(spec, int(tokens))
