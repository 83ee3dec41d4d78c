"""The workload a message describes, read the same way by every answer: model, task, precision, ZeRO stage.

The workload is resolved once per turn in the understanding layer (``turn.ask.workload``, ``advisor/nlu/workload.py``);
this module is where the answers take it from: it marks the slots a resolution read as used, says how the model was
read, and fits the stated precision to the task (a note when it does not suit it).
"""

from __future__ import annotations

from pathlib import Path

from advisor.nlu.workload import TASK_BY_WORKLOAD  # the stated method as the calculators' task, for the task packages
from advisor.offline.turn import Turn
from knowledge.wording import Wording
from tools.memory.refit import INT4_FORMAT
from tools.recommend.configs import SERVER_GPUS  # "one server" of data-centre GPUs: an 8-GPU HGX/OAM board or PCIe box

WORDING = Wording(Path(__file__).with_name("workload_text.yaml"))

TASK_LABEL = {
    "inference": WORDING.pair("workload_phrases.task_label.serving_inference"),
    "lora": WORDING.pair("workload_phrases.task_label.lora_fine_tuning"),
    "qlora": WORDING.pair("workload_phrases.task_label.qlora_fine_tuning"),
    "full_finetune": WORDING.pair("workload_phrases.task_label.full_fine_tuning"),
    "pretrain": WORDING.pair("workload_phrases.task_label.pre_training"),
}


def model_of(turn: Turn) -> str | None:
    return turn.ask.pasted_config or turn.model_reference()


def task_of(turn: Turn) -> tuple[str, bool]:
    """The task and whether the user named it (otherwise serving is assumed and said so): ``Ask.workload``, the slots
    it was read from marked used."""
    workload = turn.ask.workload
    turn.slots.mark(*workload.task_read_from)
    return workload.task, workload.task_named


def gpus_on_hand(turn: Turn) -> int | None:
    """The GPUs the user has: a count, or servers × GPUs per server ("we only have one server").
    A bare count said as a follow-up ("we only have 8") is read from the message itself when the conversation's
    frame dropped it because the previous question asked for a count."""
    s = turn.slots
    count = s.gpu_count or (turn.entities.gpu_count if not turn.count_asked else None)
    if count:
        return count
    if s.servers:
        gpus = s.servers * (s.gpus_per_server or SERVER_GPUS)
        if not s.gpus_per_server:
            turn.assume(*WORDING.both("workload_phrases.servers", servers=s.servers, per_server=SERVER_GPUS, gpus=gpus))
        return gpus
    return None


TRAINING_PRECISIONS = ("fp32", "fp16", "bf16")
QUANTISED_SERVING = INT4_FORMAT  # "quantised" with no format: the 4-bit (AWQ) weights most quantised serving uses


def quantised_serving(turn: Turn) -> str | None:
    """The weights a serving job runs with when the thread says "quantised" and names no format; None otherwise.
    Decided here only: a serving job, whether the question's own or one beside a training job, reads it from here."""
    return QUANTISED_SERVING if turn.ask.quantised and turn.ask.workload.precision is None else None


def precision_for(turn: Turn, task: str) -> str | None:
    """The stated precision when it suits the task; otherwise None (the tool's default) and a note saying why."""
    stated = turn.ask.workload.precision
    if task == "inference" and (quantised := quantised_serving(turn)):  # "run it quantised": quantised weights, not QLoRA
        turn.assume(*WORDING.pair("workload_phrases.quantised_serving"))
        return quantised
    if stated is None:
        return None
    if task == "qlora":
        usable = stated in ("nf4", "int4", "int8", "bnb-4bit", "bnb-int8")
    elif task in ("full_finetune", "pretrain", "lora"):
        usable = stated in TRAINING_PRECISIONS
    else:
        usable = True
    if not usable:
        turn.ignore("precision", *WORDING.both("workload_phrases.precision_for.trains_in_bf16_fp16_weights", task=turn.t(*TASK_LABEL[task])))
        return None
    turn.slots.mark("precision")
    return stated


def zero_stage_of(turn: Turn) -> int | None:
    return turn.ask.workload.zero_stage
