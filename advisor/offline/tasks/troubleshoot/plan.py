"""The troubleshooting task's plan: what the diagnosis is given (the report as written, the stated setup it ranks
causes by), the arguments of the measured-bandwidth check and the memory fit check, and the levers already pulled.
No wording here; the sentences are render.py's."""

from __future__ import annotations

from dataclasses import dataclass

from advisor.offline.tasks.memory.plan import DEFAULT_CONTEXT
from advisor.offline.tasks.specs.compare_view import tool_method
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import model_of, precision_for, task_of, zero_stage_of

WORDING = Wording("troubleshoot", "trouble")  # lever_name: the order the rules' actions list the levers in
TRAINING_TASKS = ("full_finetune", "pretrain", "lora", "qlora")
MAX_FINDINGS = 5


def diagnose_args(turn: Turn, setup: dict) -> dict:
    """The diagnosis's arguments: the report, the model named and the stated setup; every value stated reaches it, as text."""
    model = turn.slots.models[0] if turn.slots.models else None
    turn.entities.mark(*turn.entities.frame.names())
    return {"text": reported(turn), "language": turn.language, "model": model, "max_findings": MAX_FINDINGS, "setup": setup or None}


def stated_setup(turn: Turn) -> dict:
    """What the user said about the job, as the diagnosis ranks causes by it (nodes, GPUs, batch, model, card)."""
    s = turn.slots
    capacity = s.gpu_memory_gb
    if capacity is None and s.gpus:
        gpu = turn.catalog.find_gpu(s.gpus[0])
        capacity = gpu.memory_gb if gpu else None
    workloads = s.workloads
    sharding = next((value for value in turn.slots.frame.all("sharding") if value != "offload"), None)
    setup = {
        "nodes": s.servers, "gpus": s.gpu_count, "batch": s.batch_size, "params_b": s.params / 1e9 if s.params else None,
        "gpu_memory_gb": capacity, "method": workloads[0] if workloads else None,
        "mfu_percent": round(s.mfu * 100, 1) if s.mfu else None, "phase": turn.ask.problem_phase,
        "interconnect": _pcie_only(turn), "sharding": sharding, "tensor_parallel": s.tp, "recurring": turn.ask.recurring or None, **_card_facts(turn),
    }  # fmt: skip
    return {field: value for field, value in setup.items() if value or value is False}


def _card_facts(turn: Turn) -> dict:
    """What the catalog says of the stated card that decides a cause: its name, whether it has BF16 and FP8 tensor
    cores (a BF16 checkpoint on a T4 is the card, not the software), and how it is cooled (a passive card is cooled
    by the chassis)."""
    gpu = turn.catalog.find_gpu(turn.slots.gpus[0]) if turn.slots.gpus else None
    if gpu is None:
        return {}
    # A cooling the catalog marks unverified ranks no cause: the answer says it is unverified instead (unverified_cooling).
    cooling = None if "cooling" in gpu.unverified else gpu.cooling
    return {"card": gpu.name, "bf16": gpu.bf16_tflops is not None, "fp8": gpu.fp8_tflops is not None, "cooling": cooling}


def unverified_cooling(turn: Turn) -> dict | None:
    """The stated card and the cooling the catalog lists for it, when no dated source confirms that cooling."""
    gpu = turn.catalog.find_gpu(turn.slots.gpus[0]) if turn.slots.gpus else None
    if gpu is None or gpu.cooling is None or "cooling" not in gpu.unverified:
        return None
    return {"card": gpu.name, "cooling": gpu.cooling}


def _pcie_only(turn: Turn) -> str | None:
    """'pcie' when the catalog gives the stated card no GPU-to-GPU link at all (L40S, RTX 4090, L20): every collective
    then crosses PCIe. A card sold with NVLink in some form says nothing here: the text may still say "PCIe"."""
    gpu = turn.catalog.find_gpu(turn.slots.gpus[0]) if turn.slots.gpus else None
    return "pcie" if gpu is not None and gpu.nvlink_gbs is None else None


def reported(turn: Turn) -> str:
    """The whole report: a detail added later ("only on 2 nodes") or a second pasted log is read with the
    thread it belongs to, newest first so evidence line numbers point into what was just written."""
    thread = turn.reading.task_messages
    if thread[-1:] != [turn.message]:
        return turn.message
    return "\n".join(reversed(thread))


def measured_args(turn: Turn, diagnosis: dict, measured: float) -> dict:
    """check_measured's arguments: the busbw measured and the setup the diagnosis read (nodes, NICs, link) or the slots state."""
    stated, s = diagnosis.get("stated", {}), turn.slots
    args = {
        "measured_busbw_gbs": measured, "nodes": _whole(stated.get("nodes")), "nics_per_node": _whole(stated.get("nics_per_node")),
        "nic_gbps": stated.get("nic_gbps"), "gpu": s.gpus[0] if s.gpus else None, "gpus_per_node": s.gpu_count,
        "interconnect": stated.get("interconnect") if stated.get("interconnect") in ("pcie", "nvlink") else None,
    }  # fmt: skip
    return args


def _whole(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) and value >= 1 else None


@dataclass
class FitSetup:
    """An OOM's stated job as estimate_memory takes it: the task, the GPUs and ZeRO stage it runs with, the arguments."""

    task: str
    count: int | None
    zero: int | None
    full: bool
    base: dict


def fit_setup(turn: Turn) -> FitSetup | None:
    """The stated model, training method and card an OOM is checked with; None when one is missing. A job on several
    GPUs is checked as it runs: with the ZeRO stage or FSDP named, or ZeRO-3 for a full fine-tune that names none."""
    model = model_of(turn)
    task, named = task_of(turn)
    s = turn.slots
    card = {"gpu": s.gpus[0]} if s.gpus else {"gpu_memory_gb": s.gpu_memory_gb} if s.gpu_memory_gb else None
    if model is None or card is None or not named or task not in TRAINING_TASKS:
        return None
    count = s.gpu_count if (s.gpu_count or 1) > 1 else None
    full = tool_method(task) == "full"
    zero = (zero_stage_of(turn) or (3 if full else None)) if count else None
    base = {"model": model, "mode": "training", "precision": precision_for(turn, task), "batch": s.batch_size,
            "context": s.context_length, "recompute": s.recompute, **card}  # fmt: skip
    if not s.context_length:  # the activations the verdict rests on scale with it: the length sized is said, not hidden
        turn.assume(*WORDING.both("sequence_assumed", context=f"{DEFAULT_CONTEXT:,}"))
    return FitSetup(task, count, zero, full, base)


# Settings stated at the end of their range: nothing is left to pull, whether or not the user calls it a fix.
AT_LIMIT = {("batch", 1), ("sharding", "zero-3"), ("sharding", "fsdp"), ("recompute", "full")}


def already_tried(turn: Turn, said_tried: list[str] = (), setup: dict | None = None) -> list[str]:
    """Levers pulled already, in the order the rules' actions list them: changes the user names as tried (the
    already_tried slot), those the diagnosis read from the thread's words (``said_tried``: "we already raised the
    timeout"), settings a later message of the thread says were changed ("batch size already down to 2"), and settings
    stated at their limit (micro-batch 1, ZeRO-3, full recomputation) in the message or in the diagnosis's ``setup``,
    which no step can pull further."""
    pulled = set(turn.slots.already_tried) | set(said_tried)
    pulled |= {lever for slot, value in AT_LIMIT if (setup or {}).get(slot) == value and (lever := _lever(slot, value))}
    frame = turn.reading.frame
    detail = turn.ask.thread_messages >= 2  # the first message states the setup, a later one what was changed
    for slot in frame.names():
        for value in frame.all(slot):
            lever = _lever(slot, value)
            if lever and (detail or (slot, value) in AT_LIMIT or lever == "offload"):
                pulled.add(lever)
                turn.slots.mark(slot)
    return [lever for lever in WORDING.data["lever_name"] if lever in pulled]


def _lever(slot: str, value: object) -> str | None:
    """Offload is written among the ZeRO stages but is a lever of its own; "no checkpointing" pulls none."""
    if slot == "sharding":
        return "offload" if value == "offload" else "sharding"
    if slot == "recompute" and value == "none":
        return None
    return slot if slot in ("batch", "recompute", "precision") else None
