"""Model catalog schema: the architecture figures the memory estimator needs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Text


class Reasoning(BaseModel):
    """A model that writes a hidden thinking block before its visible answer: the first token a user sees waits for
    the thinking tokens at the streaming speed, however fast the prefill."""

    model_config = ConfigDict(extra="forbid")

    thinking_tokens: int = Field(gt=0, description="Typical thinking length of one chat question, tokens.")
    assumed: bool = Field(description="True when the length is an assumption (answers say so and how it scales), not a measurement.")
    source: str = Field(min_length=3, description="URL and title behind the length, or behind the assumption's reasoning.")
    switch: Literal["none", "enable_thinking"] = Field(
        description="How thinking is turned off: 'enable_thinking' (a chat-template switch, hybrid models such as Qwen3) or 'none' "
        "(always thinks: R1, its distills, QwQ; only a budget on the thinking shortens it)."
    )
    switch_source: str = Field(min_length=3, description="Where the switch (or its absence) is documented.")
    variants: list[str] = Field(
        default_factory=list, description="Aliases of this row that are its reasoning variant (R1 distills share a base model's "
        "shapes); empty when the whole row thinks."
    )


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
    reasoning: Reasoning | None = Field(None, description="Set for models that think before answering (see Reasoning).")
    aliases: list[str] = Field(default_factory=list)
    source: str = Field(min_length=3)

    def reasoning_as_named(self, surface: str) -> Reasoning | None:
        """The row's reasoning when the name the user wrote is a thinking model: any name of a row that thinks as a
        whole, only the listed variant names ("DeepSeek-R1-Distill-Qwen-32B") of a row whose base model does not."""
        if self.reasoning is None:
            return None
        if not self.reasoning.variants:
            return self.reasoning
        folded = _fold(surface)
        return self.reasoning if any(_fold(variant) in folded for variant in self.reasoning.variants) else None

    @property
    def label(self) -> Text:
        """The display name in both languages: catalog names are the same in both."""
        return Text(en=self.name, zh=self.name_zh or self.name)


def _fold(name: str) -> str:
    """A model name without case, spaces, dashes or underscores, so "r1 distill qwen 32b" meets "R1-Distill-Qwen-32B"."""
    return "".join(ch for ch in name.casefold() if ch.isalnum())
