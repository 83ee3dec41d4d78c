"""Default model-FLOPs utilisation (MFU) by GPU class and cluster size, with where each figure comes from.

MFU = useful model FLOPs per second / dense peak FLOPs. Real runs land far below peak because of
communication, memory-bound kernels (norms, attention softmax), the optimizer step and stalls. The
table below is deliberately coarse; users who know their stack should pass their own ``mfu``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from knowledge.bilingual import Text
from knowledge.gpus import GPU

GpuClass = Literal["nvidia-linked", "non-nvidia", "pcie-only", "consumer"]

# A GPU-to-GPU link this fast (GB/s per GPU) lets tensor/data-parallel traffic stay off PCIe;
# A40/RTX A6000 bridges (112.5 GB/s) pair only two cards, so they count as PCIe-only.
FAST_LINK_GBS = 300

# FP8 speeds up the matmuls only; attention, norms, optimizer and communication stay in higher
# precision, so end-to-end gains are well below the 2x peak ratio. We assume 1.3x BF16 throughput
# (the conservative end of the 1.3-1.5x commonly reported), i.e. MFU against the FP8 peak is
# 1.3 / 2 = 0.65 of the BF16 figure.
FP8_MFU_FACTOR = 0.65


# Goodput: the share of the booked GPU time that moves training forward. Restarts from checkpoints after
# failures, evaluation passes and stalls eat the rest. Meta reports "higher than 90% effective training time"
# over a 54-day snapshot with 466 job interruptions on up to 16K H100 (The Llama 3 Herd of Models, §3.3.4,
# https://arxiv.org/abs/2407.21783, 2024-07-23), so planning answers allow 0.9; a smaller, well-run job
# may do better, a first run on a new cluster worse.
DEFAULT_GOODPUT = 0.9
GOODPUT_SOURCE = Text(
    en="Meta, The Llama 3 Herd of Models §3.3.4 (2024-07-23, https://arxiv.org/abs/2407.21783): over 90% effective training time with 466 interruptions in 54 days",
    zh="Meta《The Llama 3 Herd of Models》§3.3.4（2024-07-23，https://arxiv.org/abs/2407.21783）：54 天中断 466 次，有效训练时间仍高于 90%",
)


class MfuRow(BaseModel):
    """One row of the default-MFU table."""

    gpu_class: GpuClass
    min_gpus: int = Field(description="Smallest cluster (GPUs) this row applies to.")
    max_gpus: int | None = Field(description="Largest cluster this row applies to; None = no limit.")
    mfu: float = Field(description="Default BF16 MFU as a fraction of dense peak.")
    basis: Text = Field(description="Where the figure comes from (published run or stated assumption).")


def _row(gpu_class: GpuClass, min_gpus: int, max_gpus: int | None, mfu: float, en: str, zh: str) -> MfuRow:
    return MfuRow(gpu_class=gpu_class, min_gpus=min_gpus, max_gpus=max_gpus, mfu=mfu, basis=Text(en=en, zh=zh))


MFU_TABLE: list[MfuRow] = [
    _row("nvidia-linked", 1, 8192, 0.42,
         "Published NVLink A100/H100 runs: LLaMA-65B ≈47% (380 tokens/s/GPU on 2,048 A100-80GB, LLaMA paper); "
         "Llama-2-7B/70B ≈39%/43% (implied by their reported GPU-hours); Llama-3-405B 43% on 8,192 H100 (Llama 3 paper).",
         "公开的 NVLink A100/H100 训练记录：LLaMA-65B 约 47%（2048 张 A100-80GB，每卡 380 token/s）；"
         "Llama-2-7B/70B 约 39%/43%（由论文公布的 GPU 小时数反推）；Llama-3-405B 在 8192 张 H100 上为 43%。"),
    _row("nvidia-linked", 8193, None, 0.40,
         "Llama-3-405B fell to 38–41% BF16 MFU at 16,384 H100 (Llama 3 paper): very large jobs lose a little to communication and failures.",
         "Llama-3-405B 在 16384 张 H100 上降到 38–41%（Llama 3 论文）：超大规模作业会因通信和故障多损失一些效率。"),
    _row("non-nvidia", 1, 8192, 0.32,
         "AMD Instinct / Gaudi 3 reach 51–74% of peak on their best matmul vs 80–87% for H100/A100 (stas00 MAMF), "
         "so we scale the NVIDIA figure: 0.42 × 63/84 ≈ 0.32. TPU, Gaudi 2 and Ascend 910B (84–87% GEMM) may do better: override when you know.",
         "AMD Instinct / Gaudi 3 的最佳矩阵乘只能达到峰值的 51–74%，而 H100/A100 为 80–87%（stas00 MAMF 实测），"
         "因此按比例折算：0.42 × 63/84 ≈ 0.32。TPU、Gaudi 2、昇腾 910B（GEMM 实测 84–87%）可能更好，如有实测请直接填写。"),
    _row("non-nvidia", 8193, None, 0.30,
         "Same ratio applied to the 16k-GPU NVIDIA figure (0.40 × 63/84 ≈ 0.30).",
         "对 16k 卡规模的 NVIDIA 数字按同一比例折算（0.40 × 63/84 ≈ 0.30）。"),
    _row("pcie-only", 1, 8, 0.35,
         "Assumption: without NVLink the gradient all-reduce crosses PCIe, so we take ~15% off the NVLink figure (0.42 → 0.35).",
         "假设：没有 NVLink 时梯度 all-reduce 走 PCIe，比 NVLink 机型打约 85 折（0.42 → 0.35）。"),
    _row("pcie-only", 9, None, 0.25,
         "Assumption: multi-node training without NVLink also pays for Ethernet/RoCE between nodes; expect a large drop.",
         "假设：没有 NVLink 的多机训练还要经过以太网/RoCE 跨节点通信，效率下降明显。"),
    _row("consumer", 1, 8, 0.30,
         "Assumption: GeForce peak is already the FP32-accumulate rate, there is no NVLink (3090 bridge aside) and "
         "24–32 GB forces offload or recompute; workstation-class boards do better.",
         "假设：GeForce 的峰值已按 FP32 累加折半，没有 NVLink（3090 桥接除外），24–32 GB 显存常需卸载或重计算。"),
    _row("consumer", 9, None, 0.20,
         "Assumption: consumer cards across nodes talk over Ethernet only; multi-node consumer training is rarely efficient.",
         "假设：消费级卡跨节点只能走以太网，多机训练效率很低。"),
]  # fmt: skip


def gpu_class(gpu: GPU) -> GpuClass:
    """Consumer/Apple first; every non-NVIDIA accelerator shares the MAMF-scaled row (their
    software stack, not the link, is what the public measurements show as the limit)."""
    if gpu.segment in ("consumer", "apple"):
        return "consumer"
    if gpu.vendor != "NVIDIA":
        return "non-nvidia"
    return "nvidia-linked" if gpu.nvlink_gbs and gpu.nvlink_gbs >= FAST_LINK_GBS else "pcie-only"


def default_mfu_row(gpu: GPU, num_gpus: int) -> MfuRow:
    cls = gpu_class(gpu)
    for row in MFU_TABLE:
        if row.gpu_class == cls and row.min_gpus <= num_gpus and (row.max_gpus is None or num_gpus <= row.max_gpus):
            return row
    raise LookupError(f"MFU table has no row for {cls} at {num_gpus} GPUs")  # table covers 1..∞ per class
