"""Compare an estimate with a GPU: capacity line, fits / tight / does-not-fit, and the main lever."""

from __future__ import annotations

import math

from knowledge.bilingual import Text
from knowledge.fact_notes import fact_note
from knowledge.gpus import GPU
from tools.common import LineItem
from tools.memory.constants import CAPACITY_UNIT_BYTES, GB, TIGHT_FRACTION
from tools.memory.items import Part, gb
from tools.memory.setup import STATED_CARD, Setup


def capacity_bytes(gpu: GPU) -> float:
    return gpu.memory_gb * CAPACITY_UNIT_BYTES


def capacity_line(s: Setup, gpu: GPU) -> tuple[LineItem, float]:
    """The usable memory per GPU: nominal capacity, or vLLM's utilisation budget of it."""
    raw = capacity_bytes(gpu)
    nominal = f"{gpu.memory_gb:g}"
    formula = f"{gpu.name}: sold as {nominal} GB = {nominal} GiB × 1.0737 = {gb(raw)}"
    formula_zh = f"{gpu.name}：标称 {nominal} GB，实为 {nominal} GiB × 1.0737 = {gb(raw)}"
    budget = raw
    label_en, label_zh = f"{gpu.name} memory (sold as {nominal} GB)", f"{gpu.name} 显存（标称 {nominal} GB）"
    fraction = getattr(gpu, "gpu_usable_fraction", 1.0)  # a card known by its memory alone has no such field
    if fraction < 1:  # Apple: macOS caps the GPU's share of unified memory
        budget = raw * fraction
        share = f"{fraction:.0%}"
        formula, formula_zh = fact_note("apple_capacity_formula", gpu=gpu.name, total=nominal, fraction=f"{fraction:g}", usable=gb(budget)).model_dump().values()
        label_en, label_zh = fact_note("apple_capacity_label", gpu=gpu.name, share=share, total=nominal).model_dump().values()
    if s.mode == "inference" and s.engine == "vllm":
        usable, budget = budget, budget * s.utilization
        formula += f"; vLLM budget {s.utilization:g} × {gb(usable)} = {gb(budget)}"
        formula_zh += f"；vLLM 可用 {s.utilization:g} × {gb(usable)} = {gb(budget)}"
        label_en, label_zh = f"{label_en} × vLLM utilisation", f"{label_zh} × vLLM 显存利用率"
    item = LineItem(key="gpu_capacity", label=Text(en=label_en, zh=label_zh), value=round(budget / GB, 4), unit="GB",
                    formula=formula, formula_zh=formula_zh)  # fmt: skip
    return item, budget


def usable_memory_note(gpu: GPU | None) -> Text | None:
    """What the user must know when the GPU cannot use all of the memory the machine is sold with (Apple)."""
    fraction = getattr(gpu, "gpu_usable_fraction", 1.0)
    if gpu is None or fraction >= 1:
        return None
    return fact_note("apple_usable_memory", gpu=gpu.name, share=f"{fraction:.0%}", total=f"{gpu.memory_gb:g}",
                     usable=f"{gpu.memory_gb * fraction * CAPACITY_UNIT_BYTES / GB:.1f}")  # fmt: skip


def unit_note(gpu: GPU | None) -> Text:
    """The one sentence on units shown with memory figures: decimal GB, cards sold in binary GiB, nvidia-smi in MiB."""
    nominal = gpu.memory_gb if gpu is not None else 80
    real = nominal * CAPACITY_UNIT_BYTES / GB
    named = gpu is not None and gpu.id != STATED_CARD  # a card known by its memory alone has no name to repeat
    card_en = f"{gpu.name} sold as {nominal:g} GB" if named else f"a card sold as {nominal:g} GB"
    card_zh = f"标称 {nominal:g} GB 的 {gpu.name} " if named else f"标称 {nominal:g} GB 的显卡"
    return Text(
        en=f"GB = 10⁹ bytes; {card_en} holds {nominal:g} GiB = {real:.1f} GB; nvidia-smi shows MiB (1 MiB = 1.049 MB).",
        zh=f"GB = 10⁹ 字节；{card_zh}实为 {nominal:g} GiB = {real:.1f} GB；nvidia-smi 显示的是 MiB（1 MiB = 1.049 MB）。",
    )


def verdict(total: float, budget: float) -> tuple[str, float]:
    headroom = (budget - total) / budget * 100
    if total <= TIGHT_FRACTION * budget:
        return "fits", headroom
    return ("tight" if total <= budget else "does_not_fit"), headroom


LEVERS: dict[tuple[str, str], tuple[str, str]] = {
    ("inference", "weights"): (
        "Weights dominate: quantise them (fp8/int8 halves them, AWQ/GPTQ int4 quarters them) or split them with tensor parallelism over more GPUs.",
        "权重占大头：量化权重（fp8/int8 减半，AWQ/GPTQ int4 降到四分之一），或用张量并行拆到更多 GPU 上。",
    ),
    ("inference", "kv_cache"): (
        "The KV cache dominates: use an fp8 KV cache (halves it), fewer concurrent sequences or a shorter context.",
        "KV 缓存占大头：改用 fp8 KV 缓存（减半），减少并发序列数或缩短上下文。",
    ),
    ("inference", "prefill"): (
        "Prefill temporaries dominate: use chunked prefill (e.g. vLLM max_num_batched_tokens), FlashAttention, and last-token-only logits.",
        "预填充临时显存占大头：启用分块预填充（如 vLLM 的 max_num_batched_tokens）、FlashAttention，并只计算最后位置的 logits。",
    ),
    ("training", "weights"): (
        "Weights dominate: train adapters on a quantised base (QLoRA), or shard weights with ZeRO-3/FSDP FULL_SHARD or tensor parallelism.",
        "权重占大头：改用量化基座加适配器（QLoRA），或用 ZeRO-3/FSDP FULL_SHARD、张量并行切分权重。",
    ),
    ("training", "optimizer_states"): (
        "Optimizer states dominate: shard them with ZeRO-1/2 across GPUs, use 8-bit AdamW, offload them to CPU, or switch to LoRA.",
        "优化器状态占大头：用 ZeRO-1/2 在多卡间分片、改用 8-bit AdamW、卸载到 CPU，或改用 LoRA。",
    ),
    ("training", "gradients"): (
        "Gradients dominate: shard them with ZeRO-2 or fuse the optimizer step into backward.",
        "梯度占大头：用 ZeRO-2 分片梯度，或把优化器更新融合进反向传播。",
    ),
    ("training", "activations"): (
        "Activations dominate: enable activation checkpointing (full recompute), lower the micro-batch and raise gradient accumulation, or use sequence parallelism.",
        "激活值占大头：开启激活检查点（全量重计算），减小 micro-batch 并增加梯度累积，或使用序列并行。",
    ),
    ("training", "logits"): (
        "The loss over the vocabulary dominates: use a chunked/fused cross-entropy (Liger, torchtune chunked loss) or a smaller micro-batch.",
        "词表上的 logits/交叉熵占大头：使用分块/融合交叉熵（Liger、torchtune 分块损失）或减小 micro-batch。",
    ),
}
LEVER_GROUP = {
    "prefill_activations": "prefill", "attention_scores": "prefill", "logits": "logits", "kv_growth_copy": "kv_cache",
    "recompute_working_set": "activations",
}  # fmt: skip


SHARDED_FROM_STAGE = {"optimizer_states": 1, "gradients": 2, "weights": 3}  # the ZeRO stage that shards each part


def main_lever(s: Setup, parts: list[Part], total: float, budget: float | None) -> Text:
    largest = max((p for p in parts if p.bytes > 0), key=lambda p: p.bytes)
    group = LEVER_GROUP.get(largest.key, largest.key)
    if s.mode == "inference" and group == "logits":
        group = "prefill"
    en, zh = LEVERS.get((s.mode, group), LEVERS[(s.mode, "weights")])
    if s.mode == "training" and s.dp > 1 and s.zero_stage >= SHARDED_FROM_STAGE.get(group, 4):  # the usual lever is already pulled
        en = f"{largest.en} dominate although ZeRO-{s.zero_stage} already shards them over {s.dp} GPUs: add GPUs, offload optimizer states to CPU (ZeRO-Offload), use 8-bit AdamW, or switch to LoRA/QLoRA."
        zh = f"{largest.zh}占大头，而 ZeRO-{s.zero_stage} 已在 {s.dp} 张卡上切分：需要加卡、把优化器状态卸载到 CPU（ZeRO-Offload）、改用 8-bit AdamW，或改用 LoRA/QLoRA。"
    if budget and total > budget and s.gpu is not None and math.isfinite(total):
        needed = math.ceil(total * s.num_gpus / (budget * TIGHT_FRACTION))
        en += f" As a rough bound, the same job sharded evenly would need about {needed} × {s.gpu.name}."
        zh += f" 粗略估计，若能均匀切分，同样的任务约需 {needed} 张 {s.gpu.name}。"
    return Text(en=en, zh=zh)


RULE_OF_THUMB = Text(
    en="The rule of thumb '≈4 GB per 1B parameters' counts fp32 weights only (4 bytes × 10^9). Training with Adam needs "
    "about 16–18 bytes per parameter plus activations; bf16 inference needs about 2 bytes per parameter plus the KV cache.",
    zh="“每10亿参数约4GB”的经验法则只计算了 fp32 权重（每参数 4 字节）。用 Adam 训练约需每参数 16–18 字节，再加激活值；"
    "bf16 推理约需每参数 2 字节，再加 KV 缓存。",
)
