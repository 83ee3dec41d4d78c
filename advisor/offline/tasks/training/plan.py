"""The training task's plan: what a message asks (an MFU to judge, two cards to compare for training speed, a cut
in cards to check) and the arguments of the tools that answer it. No wording; the sentences are render.py's."""

from __future__ import annotations

from advisor.nlu.subjects import Subjects
from advisor.offline.tasks.specs import compare
from advisor.offline.turn import Turn
from tools.cost.mfu_verdict import MfuJudgementRequest

ONE_SERVER = 8  # without a count, an MFU is judged on one 8-GPU server, and the answer says so
# The run both cards are timed on. Time is FLOPs / (GPUs × peak × MFU), so the ratio does not depend on it, as
# long as both sit in the same MFU row (up to 8,192 GPUs of one class).
REFERENCE_PARAMS_B = 70
REFERENCE_TOKENS = 1e12
REFERENCE_GPUS = 8  # one standard server, when the user named no count
FP4 = "fp4"
FP4_FORMATS = frozenset({FP4, "nvfp4", "mxfp4"})  # the block-scaled FP4 formats count as FP4 wherever FP4 is asked


def judges_mfu(turn: Turn, asked: Subjects) -> bool:
    """The question states an MFU and the GPU it was measured on, both usable ("MFU 0.0 on 1e-300 A100s" is
    left to the answers that explain why such figures cannot be computed)."""
    mfu, count = turn.slots.mfu, turn.slots.gpu_count
    usable = mfu is not None and 0 < mfu < 1 and (count is None or (count >= 1 and float(count).is_integer()))
    return "mfu" in asked.get("topic", ()) and usable and bool(turn.slots.gpus)


def mfu_count(turn: Turn) -> int:
    """The GPUs the stated MFU was measured on: the stated count, else one server."""
    return turn.slots.gpu_count or ONE_SERVER


def mfu_request(turn: Turn) -> MfuJudgementRequest:
    return MfuJudgementRequest(mfu=turn.slots.mfu, gpu=turn.slots.gpus[0], num_gpus=mfu_count(turn))


def compares_speed(turn: Turn) -> bool:
    """Two or more cards named and no model: the question is the cards' speed, not a run's."""
    return turn.model_reference() is None and len(compare.options(turn)) >= 2


def speed_count(turn: Turn, pairs: list[tuple[str, int | None]]) -> int:
    """The GPUs both cards are timed at: a count said with either card, else the stated count, else one server."""
    return next((c for _, c in pairs[:2] if c), None) or turn.slots.gpu_count or REFERENCE_GPUS


def speed_args(turn: Turn, gpu: str, count: int, precision: str) -> dict:
    """estimate_training_time's arguments for the reference run on ``count`` of ``gpu``."""
    return {"params_b": REFERENCE_PARAMS_B, "tokens": REFERENCE_TOKENS, "gpu": gpu, "num_gpus": count, "precision": precision, "mfu": turn.slots.mfu}


def speed_precision(turn: Turn, new, old) -> str:
    """FP8 when asked for (or FP4, which the estimator does not time) and both cards have it; BF16 otherwise."""
    said = set(turn.slots.frame.all("precision"))
    if said & {"fp8", *FP4_FORMATS} and new.fp8_tflops and old.fp8_tflops:
        return "fp8"
    return "bf16"


def card_cut(turn: Turn) -> tuple[str, float] | None:
    """A quoted cut in cards ("half the cards") and the speed factor it needs, as the NLU read it."""
    return turn.ask.card_cut
