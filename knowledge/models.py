"""Model catalog schema: the architecture figures the memory estimator needs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Text


class ModelSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Stable slug, e.g. 'llama-3.1-8b'.")
    name: str
    name_zh: str | None = Field(None, description="Chinese display name where it differs from `name` (generic stand-ins).")
    family: str
    current: bool = Field(False, description="One of the open models an engineer would name today when asked what a machine can run.")
    params_b: float = Field(gt=0, description="Total parameters in billions (all experts for MoE).")
    active_params_b: float | None = Field(None, gt=0, description="Parameters active per token (MoE), billions.")
    active_excludes_input_embedding: bool = Field(
        False, description="The publisher's active count leaves out the input embedding (a lookup, not a matmul), as gpt-oss's card does."
    )
    layers: int = Field(gt=0)
    hidden: int = Field(gt=0)
    heads: int = Field(gt=0)
    kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0)
    ffn: int = Field(gt=0, description="Dense MLP intermediate size (for MoE: each expert's).")
    vocab: int = Field(gt=0)
    tied_embeddings: bool = False
    attention: Literal["mha", "gqa", "mqa", "mla"]
    gated_mlp: bool = Field(True, description="SwiGLU/GeGLU-style MLP (3 matrices) vs classic 2-matrix MLP.")
    sliding_window: int | None = Field(None, gt=0, description="Window size for sliding-window layers.")
    full_attention_layers: int | None = Field(
        None, ge=0, description="Layers that attend over the full context when others use the sliding window."
    )
    kv_lora_rank: int | None = Field(None, gt=0, description="MLA latent KV size (DeepSeek-V2/V3).")
    qk_rope_dim: int | None = Field(None, gt=0, description="MLA decoupled RoPE key size.")
    q_lora_rank: int | None = Field(None, gt=0, description="MLA compressed query size; None means full-rank queries.")
    moe_experts: int | None = Field(None, gt=0, description="Routed experts per MoE layer.")
    moe_active: int | None = Field(None, gt=0, description="Routed experts used per token.")
    moe_shared_experts: int | None = Field(None, ge=0)
    dense_layers: int | None = Field(
        None, ge=0, description="MoE models: leading layers that keep a dense MLP (DeepSeek `first_k_dense_replace`)."
    )
    dense_ffn: int | None = Field(None, gt=0, description="Intermediate size of those dense layers, if not `ffn`.")
    max_context: int = Field(gt=0)
    shipped_precision: str | None = Field(
        None, description="Weight format the official checkpoint ships in when it is not BF16 (e.g. 'fp8' for DeepSeek-V3, "
        "'mxfp4' for gpt-oss); the default when the user names none."
    )
    shipped_precision_source: str | None = Field(None, description="Where the shipped format is stated (the checkpoint's config or card).")
    aliases: list[str] = Field(default_factory=list)
    source: str = Field(min_length=3)

    @property
    def label(self) -> Text:
        """The display name in both languages: catalog names are the same in both."""
        return Text(en=self.name, zh=self.name_zh or self.name)
