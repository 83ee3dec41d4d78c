"""Training recipes: bytes each trainable parameter costs for weights, gradients and optimizer.

The literature disagrees on "mixed-precision Adam" (16, 18 or 20 B/param) because recipes
differ; each is named here with its source so users can pick theirs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from knowledge.bilingual import Text
from tools.memory.items import MEMORY_TEXT


@dataclass(frozen=True)
class Recipe:
    id: str
    weight: float  # bytes of the working copy used in forward/backward
    grad: float
    master: float  # fp32 master copy kept by the optimizer
    states: float  # optimizer moments
    label: str
    source: str
    paged: bool = False  # states in CUDA unified memory, outside PyTorch and evictable to CPU
    label_zh: str = ""

    @property
    def optimizer(self) -> float:
        return self.master + self.states

    @property
    def total(self) -> float:
        return self.weight + self.grad + self.optimizer


RECIPES: dict[str, Recipe] = {
    r.id: replace(r, label_zh=MEMORY_TEXT.pick(f"optimizers.{r.id}", "zh"))
    for r in (
        Recipe("adamw", 2, 4, 4, 8, "mixed-precision AdamW, fp32 gradients (18 B/param)",
               "HF Transformers docs, DeepSpeed estimator, Megatron-LM, llm-analysis: 2 + 4 + 4 + 8"),
        Recipe("adamw_fp16_grads", 2, 2, 4, 8, "mixed-precision AdamW, 16-bit gradients (16 B/param)",
               "ZeRO paper (arXiv:1910.02054) §3.1: (2 + 2 + K)Ψ with K = 12"),
        Recipe("adamw_bf16", 2, 2, 0, 4, "pure-bf16 AdamW, no master copy (8 B/param)",
               "LLaMA-Factory pure_bf16 (8x rule); torch AdamW on bf16 parameters"),
        Recipe("adamw_fp32", 4, 4, 0, 8, "fp32 AdamW (16 B/param)", "accelerate estimate-memory fp32 row: 4 + 4 + 8"),
        Recipe("adamw_8bit", 2, 2, 0, 4, "8-bit AdamW on bf16 weights (8 B/param)",
               "two uint8 moments (2 B) plus fp32 working buffers during the step: Unsloth Studio calibrates adamw_8bit "
               "at 4 B/param (vram_estimation.py); torchtune's Llama-3.2-3B ladder implies about 2.6"),
        Recipe("adamw_8bit_paged", 2, 2, 0, 4, "paged 8-bit AdamW (states in unified memory)",
               "bitsandbytes PagedAdamW8bit (torchtune single-device full fine-tune default): states page to CPU under pressure", True),
        Recipe("sgd", 2, 2, 4, 0, "mixed-precision SGD without momentum (8 B/param)",
               "fp32 master copy only; EleutherAI Transformer Math 101 accounting"),
        Recipe("sgd_momentum", 2, 2, 4, 4, "mixed-precision SGD with momentum (12 B/param)",
               "EleutherAI Transformer Math 101: SGD momentum 8 B/param optimizer incl. master"),
    )
}  # fmt: skip


def fp32_variant(recipe: Recipe) -> Recipe:
    """The same optimizer when the model itself is trained in fp32: no separate master copy."""
    full_adam = recipe.id.startswith("adamw") and "8bit" not in recipe.id
    states = 8.0 if full_adam else recipe.states  # fp32 moments for fp32 weights
    label = MEMORY_TEXT.text("optimizers.fp32_weights", label=Text(en=recipe.label, zh=recipe.label_zh))
    return Recipe(recipe.id, 4, 4, 0, states, label.en, recipe.source, recipe.paged, label.zh)
