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
from knowledge.wording import shipped

MFU_DEFAULTS = shipped("mfu_defaults.yaml")

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
GOODPUT_SOURCE = Text(**MFU_DEFAULTS.entry("goodput_source"))


class MfuRow(BaseModel):
    """One row of the default-MFU table."""

    gpu_class: GpuClass
    min_gpus: int = Field(description="Smallest cluster (GPUs) this row applies to.")
    max_gpus: int | None = Field(description="Largest cluster this row applies to; None = no limit.")
    mfu: float = Field(description="Default BF16 MFU as a fraction of dense peak.")
    basis: Text = Field(description="Where the figure comes from (published run or stated assumption).")


MFU_TABLE: list[MfuRow] = [MfuRow(**row) for row in MFU_DEFAULTS.entry("rows")]


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
