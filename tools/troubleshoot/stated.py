"""The setup a user states beside a symptom ("on 2 nodes", "batch 1", "num_workers=2"), as rule conditions read it.

A description without a log names a symptom ("utilisation is 30-40%") whose causes are many; what the user says
about the setup is what tells them apart. Rules put conditions on these fields (``likely_when``) in their YAML.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.troubleshoot.parsers import Value


class StatedSetup(BaseModel):
    """What the user said about the job, each field optional; a field nobody stated never fires a condition."""

    model_config = ConfigDict(extra="forbid")

    nodes: int | None = Field(None, ge=1, description="Servers / nodes the job runs on.")
    gpus: int | None = Field(None, ge=1, description="GPUs the job runs on, all nodes together.")
    batch: int | None = Field(None, ge=1, description="Micro-batch per GPU.")
    dataloader_workers: int | None = Field(None, ge=0, description="DataLoader worker processes (num_workers).")
    params_b: float | None = Field(None, gt=0, description="Model size in billions of parameters.")
    gpu_memory_gb: float | None = Field(None, gt=0, description="Memory of one card, as sold.")
    method: str | None = Field(None, description="What the job does: inference, lora, qlora, full_finetune, pretrain…")
    interconnect: str | None = Field(None, description="How the GPUs of a node talk: 'pcie' (no NVLink between them) or 'nvlink'.")
    nics_per_node: int | None = Field(None, ge=1, description="Network cards (HCAs) per node used for inter-node traffic.")
    nic_gbps: float | None = Field(None, gt=0, description="Line rate of one of those cards, Gb/s (200 for HDR/200G).")
    mfu_percent: float | None = Field(
        None, gt=0, le=100, description="Model FLOPs utilisation the user measured for a training run, in percent."
    )
    temperature_c: float | None = Field(None, gt=0, description="The hottest GPU temperature the user gave, °C.")
    temperature_spread_c: float | None = Field(
        None, ge=0, description="Hottest minus coolest of the temperatures given (one card at 88 °C, the rest at 65 °C: 23)."
    )
    fault_on_one_node: bool | None = Field(
        None, description="The fault always shows on the same node (or rank): a property of that machine, not of the code."
    )
    slow_node: bool | None = Field(
        None, description="One node (or rank) is slower than the rest rather than failing: it paces every synchronous step."
    )
    shared_facility: bool | None = Field(
        None, description="The problem shows on a group of servers that share cooling or power (one row, one rack), not on one box."
    )
    recurring: bool | None = Field(
        None, description="The same fault has come back on the same card or node (again, the third time this month): a repeat, past first-time triage."
    )
    late_onset: bool | None = Field(
        None, description="The problem appears only after the run has gone for a while (hours), not from the first step."
    )
    phase: Literal["startup", "under_load"] | None = Field(
        None, description="When the problem shows: at start-up (launch, init, before the first step) or under load (traffic)."
    )
    regressed: bool | None = Field(
        None, description="The same job on the same hardware got slower than it was (last week, before): something changed."
    )
    kernel_log_clean: bool | None = Field(
        None, description="The user checked the kernel log (dmesg, journal) and found no Xid or NVRM error: no driver-reported GPU fault."
    )
    fabric_healthy: bool | None = Field(
        None, description="The user checked the RDMA ports (ibstat, ibv_devinfo) and found them Active at their full rate: the links are up."
    )
    all_gpus_visible: bool | None = Field(
        None, description="The user checked nvidia-smi and every GPU of the node is listed: none has fallen off the bus or lost its driver."
    )
    sharding: str | None = Field(
        None, description="How the training job shards its states: 'zero-1', 'zero-2', 'zero-3' or 'fsdp' (full shard)."
    )
    tensor_parallel: int | None = Field(None, ge=1, description="Tensor-parallel degree the job runs with (TP=2: each layer split over 2 GPUs).")
    rdma: bool | None = Field(None, description="Whether the nodes have an RDMA fabric (InfiniBand/RoCE); false: plain Ethernet/TCP.")
    speedup: float | None = Field(None, gt=0, description="Speed-up the user measured from adding nodes (1.5: the job ran 1.5× as fast).")
    scaling_pct: float | None = Field(
        None, gt=0, description="Speed-up ÷ nodes × 100, worked out when both are stated: 100 is linear scaling."
    )
    card: str | None = Field(None, description="The stated GPU's catalog name, for a verdict that names it.")
    bf16: bool | None = Field(None, description="Whether the stated GPU has BF16 tensor cores (catalog: bf16_tflops); false on Volta/Turing.")
    fp8: bool | None = Field(None, description="Whether the stated GPU has FP8 tensor cores (catalog: fp8_tflops); false before Ada/Hopper.")
    cooling: Literal["passive", "active", "liquid"] | None = Field(
        None, description="How the stated GPU is cooled (catalog): passive = a bare heatsink the server's chassis fans must blow through."
    )

    def values(self) -> dict[str, Value]:
        """Stated fields as rule conditions compare them: numbers as floats, words as text."""
        return {
            name: float(value) if isinstance(value, int | float) else value
            for name, value in self.model_dump(exclude_none=True).items()
        }


SETUP_FIELDS = frozenset(StatedSetup.model_fields)
