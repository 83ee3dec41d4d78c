"""Activation memory: what a layer saves for backward (training) or holds briefly (inference).

Training follows Korthikanti et al. 2022 (arXiv:2205.05198, Table 2), written per token so it
generalises to GQA/MQA, gated MLPs and MoE. With 16-bit activations, h = hidden size:

* kept on every tensor-parallel rank unless sequence parallelism splits them: the two norm
  inputs (4h), the attention and MLP block inputs (2h + 2h), residual-dropout masks (1h + 1h);
* split across TP ranks: Q, K, V (2 bytes × their widths), the attention output feeding the
  output projection (2 × q width), and the MLP intermediates;
* attention scores without FlashAttention: 5 bytes per head per attended position (softmax
  output 2, dropout mask 1, dropout output 2) — the paper's 5as/h term.

For GPT-3-style models (MHA, ffn = 4h, GeLU, dropout) this is exactly sbh(34 + 5as/h).
A GeLU MLP saves its two ffn-wide tensors (4·ffn bytes/token). A gated MLP in eager PyTorch saves
four (gate and up outputs, the activation output and the product feeding the down projection:
8·ffn); Megatron's report uses sbh(18 + 4·ffn/h), which undercounts gated MLPs run unfused.
Modern LLMs fine-tune without dropout, so the masks are off unless asked for.

Gated-MLP decoders (Llama, Qwen, Mistral, DeepSeek, Gemma) use RMSNorm, which HF transformers and
torchtune compute in fp32 when run eagerly: each norm also keeps its fp32 input (4h) — 8h more per
layer than a fused norm. torch.compile fuses the norm and drops that extra. Calibrated on the
torchtune Llama-3.2-3B ladder (packed → +compile: −9 GiB, of which the loss upcast is ~4 GB).
"""

from __future__ import annotations

from dataclasses import dataclass

from knowledge.models import ModelSpec

ACT_BYTES = 2  # bf16/fp16 activations
SCORE_BYTES = 5  # Korthikanti: softmax output 2 + dropout mask 1 + dropout output 2
ROUTER_BYTES = 4  # MoE router logits are kept in fp32
FP32_NORM_EXTRA = 8  # × h bytes per token per layer: two eager RMSNorms keep fp32 copies of their inputs

# Cross-entropy over the vocabulary, bytes per (token × vocab entry), unfused (HF transformers,
# torchtune without compile): bf16 logits 2 + fp32 upcast 4 + log-softmax output 4 + its gradient 4.
LOGIT_BYTES_UNFUSED = 14
# torch.compile fuses the fp32 upcast into the loss kernel: bf16 logits, log-softmax and gradient stay.
LOGIT_BYTES_COMPILED = LOGIT_BYTES_UNFUSED - 4
# Chunked/fused loss (torchtune CEWithChunkedOutputLoss under compile, Liger, Unsloth): the bf16 logits
# stay materialised, the loss kernel works one chunk at a time and only that chunk's bf16 gradient is
# live. torchtune's ladder: compiled full loss → chunked saves 8.1 GiB on 1.05e9 logits (≈ 8 B each).
LOSS_CHUNKS = 8
LOGIT_BYTES_CHUNKED = 2 + 2 / LOSS_CHUNKS


@dataclass(frozen=True)
class LayerActivations:
    """Bytes one token leaves behind in one (average) layer."""

    replicated: float  # not split by tensor parallelism unless sequence parallelism is on
    split: float  # divided across tensor-parallel ranks
    score: float  # per head per attended position; 0 with FlashAttention
    heads: int

    def per_token(self, tp: int, sequence_parallel: bool) -> float:
        return self.replicated / (tp if sequence_parallel else 1) + self.split / tp

    def per_layer(self, tokens: float, seq: int, tp: int, sequence_parallel: bool) -> float:
        """Bytes for ``tokens`` tokens in sequences of length ``seq`` (scores grow with seq)."""
        return tokens * (self.per_token(tp, sequence_parallel) + self.score * self.heads * seq / tp)

    def coefficient(self, hidden: int) -> float:
        """The Korthikanti-style constant: bytes per token per layer in units of h."""
        return (self.replicated + self.split) / hidden


def _mlp_saved(spec: ModelSpec, width: int) -> float:
    """Bytes per token the MLP intermediates of one expert (or dense MLP) save in eager mode."""
    return ACT_BYTES * width * (4 if spec.gated_mlp else 2)


def mlp_bytes_per_token(spec: ModelSpec, saved) -> float:
    """Average MLP activation bytes per token per layer, MoE routing included.

    ``saved(spec, width)`` gives one expert's bytes. Routed experts contribute their top-k share,
    plus permuted copies of the token (2h each) and the router logits.
    """
    if not spec.moe_experts:
        return saved(spec, spec.ffn)
    active = spec.moe_active or 1
    routed = (active + (spec.moe_shared_experts or 0)) * saved(spec, spec.ffn)
    moe_layer = routed + active * ACT_BYTES * spec.hidden + ROUTER_BYTES * spec.moe_experts
    dense = spec.dense_layers or 0
    dense_layer = saved(spec, spec.dense_ffn or spec.ffn)
    return (moe_layer * (spec.layers - dense) + dense_layer * dense) / spec.layers


def attention_widths(spec: ModelSpec) -> tuple[int, int]:
    """(query width, key+value width) of the attention projections' outputs."""
    d = spec.head_dim
    if spec.attention == "mla" and spec.qk_rope_dim:
        q = spec.heads * (d + spec.qk_rope_dim)
        return q, q + spec.heads * d  # decompressed keys (with RoPE part) and values per head
    return spec.heads * d, 2 * spec.kv_heads * d


def training_layer(spec: ModelSpec, flash_attention: bool, dropout: bool = False, compiled: bool = False) -> LayerActivations:
    h = spec.hidden
    q_width, kv_width = attention_widths(spec)
    masks = 2 * h if dropout else 0  # 1 byte each after attention and after the MLP
    replicated = 4 * h + 2 * h + 2 * h + masks  # two norm inputs, attention input, MLP input
    attention = ACT_BYTES * (q_width + kv_width) + ACT_BYTES * spec.heads * spec.head_dim
    split = attention + mlp_bytes_per_token(spec, _mlp_saved)
    if spec.gated_mlp and not compiled:
        replicated += FP32_NORM_EXTRA * h
    # Korthikanti's 5as/h even without dropout: eager kernels keep an fp32 softmax copy instead.
    score = 0.0 if flash_attention else SCORE_BYTES
    return LayerActivations(replicated, split, score, spec.heads)


def logit_bytes(chunked: bool, compiled: bool) -> float:
    """Bytes per (token × vocab entry) of the output layer and loss."""
    if chunked:
        return LOGIT_BYTES_CHUNKED
    return LOGIT_BYTES_COMPILED if compiled else LOGIT_BYTES_UNFUSED


def logits_bytes(tokens: float, vocab: int, tp: int, chunked: bool, compiled: bool = False) -> float:
    return tokens * vocab * logit_bytes(chunked, compiled) / tp  # vocab-parallel output layer under TP


# --- inference: nothing is saved, one layer's temporaries are alive at a time -----------------


def _mlp_transient(spec: ModelSpec, width: int) -> float:
    """Gate and up outputs plus their product (gated) or the up output and activation (GeLU)."""
    return ACT_BYTES * width * (3 if spec.gated_mlp else 2)


def prefill_bytes_per_token(spec: ModelSpec, tp: int) -> float:
    """Live bytes per prompt token while one layer runs: residual in/out plus the larger block."""
    q_width, kv_width = attention_widths(spec)
    attention = ACT_BYTES * (q_width + kv_width + spec.heads * spec.head_dim) / tp
    mlp = mlp_bytes_per_token(spec, _mlp_transient) / tp
    return 2 * ACT_BYTES * spec.hidden + max(attention, mlp)


EAGER_SCORE_BYTES = 4  # inference without FlashAttention: 16-bit scores and probabilities per head


def eager_scores_bytes(spec: ModelSpec, seqs: float, query_tokens: int, key_tokens: int, tp: int) -> float:
    return seqs * spec.heads / tp * query_tokens * key_tokens * EAGER_SCORE_BYTES
