"""The workload a message describes, read the same way by every answer: model, task, precision, ZeRO stage.

The workload is resolved once per turn in the understanding layer (``turn.ask.workload``, ``advisor/nlu/workload.py``);
this module is where the answers take it from: it marks the slots a resolution read as used, says how the model was
read, and fits the stated precision to the task (a note when it does not suit it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from advisor.nlu.workload import TASK_BY_WORKLOAD  # the stated method as the calculators' task, for the task packages
from advisor.offline.turn import Turn
from knowledge.wording import Wording
from knowledge.serving_precision import PrecisionRule, serving_precision
from tools.memory.refit import INT4_FORMAT
from tools.models.resolve import checkpoint_precision
from tools.recommend.configs import SERVER_GPUS  # "one server" of data-centre GPUs: an 8-GPU HGX/OAM board or PCIe box

WORDING = Wording(Path(__file__).with_name("workload_text.yaml"))
Fits = bool | Callable[[str | None], bool]  # "do weights in this format (None: 16-bit) fit?" (True: the 16-bit weights fit)

TASK_LABEL = {
    "inference": WORDING.pair("workload_phrases.task_label.serving_inference"),
    "lora": WORDING.pair("workload_phrases.task_label.lora_fine_tuning"),
    "qlora": WORDING.pair("workload_phrases.task_label.qlora_fine_tuning"),
    "full_finetune": WORDING.pair("workload_phrases.task_label.full_fine_tuning"),
    "pretrain": WORDING.pair("workload_phrases.task_label.pre_training"),
}


def model_of(turn: Turn) -> str | None:
    return turn.ask.pasted_config or turn.model_reference()


def model_named(turn: Turn) -> str | None:
    """``model_of``'s model without marking its slots or saying how it was read again: for a check or a writer that runs
    after the answer called ``model_of`` (a take-over's condition, so each run says its notes once)."""
    return turn.ask.pasted_config or turn.ask.workload.model


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


def serving_format(turn: Turn, gpu: str | None, fits: Fits = True) -> str | None:
    """The weight format a serving job is sized in on ``gpu``, one rule for every answer (the recommender applies the
    same rule set, ``knowledge/serving_precision.yaml``, card by card): the precision the user states; "quantised" with
    no format, 4-bit; quality put first, 16-bit; a checkpoint that ships in or names its own format keeps it (the
    estimators say so); else the format the card is usually served in when that is also its fastest (FP8 on Hopper, Ada
    and Blackwell data-centre parts, W8A8 on Ascend). A 4-bit default that only applies when 16-bit weights do not fit
    is left to the answers' lower-precision step, unless ``fits`` answers "do weights in this format (None: 16-bit) fit?":
    then such a card steps down its ladder (16-bit, INT8, 4-bit) as the recommender does. None: the estimators' 16-bit default."""
    if turn.ask.workload.precision is not None or turn.ask.quality_first:
        return precision_for(turn, "inference") if turn.ask.workload.precision is not None else None
    if (quantised := quantised_serving(turn)) is not None:
        return quantised
    rule = default_rule(turn, gpu, fits)
    return rule.precision if rule is not None else None


def default_rule(turn: Turn, gpu: str | None, fits: Fits = True) -> PrecisionRule | None:
    """The card's own serving format when nothing the user said decides it (see ``serving_format``); None otherwise."""
    if turn.ask.workload.precision is not None or turn.ask.quality_first or turn.ask.quantised or gpu is None or _keeps_own_format(turn):
        return None
    if turn.ask.observed_speed is not None and not turn.ask.claimed_rate:
        # a speed the user measured is judged against what an engine does with the checkpoint as loaded (its own
        # 16-bit weights unless they say they quantised), not against the card's fastest format: that would call a
        # normal BF16 figure slow. A vendor's claimed rate keeps the fastest format, the one such claims are made in.
        return None
    card = turn.catalog.find_gpu(gpu)
    return serving_precision().default_for(card, fits=fits) if card is not None else None


def _keeps_own_format(turn: Turn) -> bool:
    model = model_of(turn)
    if not isinstance(model, str):
        return False
    spec = turn.catalog.find_model(model)
    return (spec is not None and spec.shipped_precision is not None) or checkpoint_precision(model, turn.catalog) is not None


def say_serving_format(turn: Turn, gpu: str, precision: str | None, fits: Fits = True) -> None:
    """The card's default format, said once among the assumptions (its reason and page), when ``precision`` is it: the
    format it serves fastest, or the step of its ladder its 16-bit weights were sized down to (``fits``)."""
    rule = default_rule(turn, gpu, fits)
    if rule is None or precision != rule.precision:
        return
    card = turn.catalog.find_gpu(gpu)
    source = rule.sources[0]
    key = "workload_phrases.serving_format_step" if rule.when == "needed" else "workload_phrases.serving_format"
    cards = turn.formats_said.setdefault((key, rule.precision, source.url), [])  # the cards this line names so far
    name = card.name if card else gpu
    if name in cards:
        return
    before = _format_line(turn, key, cards, rule) if cards else None
    cards.append(name)
    line = _format_line(turn, key, cards, rule)
    if before in turn.assumptions:  # two compared cards served alike: one line naming both, not the same line twice
        turn.assumptions[turn.assumptions.index(before)] = line
    elif line not in turn.assumptions:
        turn.assumptions.append(line)


def _format_line(turn: Turn, key: str, cards: list[str], rule: PrecisionRule) -> str:
    """The format line for ``cards`` ("the NVIDIA H100 SXM and NVIDIA H200 SXM"), in the turn's language."""
    names = cards[0]
    if len(cards) > 1:
        names = turn.t(*WORDING.pair("workload_phrases.cards_joiner")).join(cards[:-1]) + turn.t(*WORDING.pair("workload_phrases.cards_last_joiner")) + cards[-1]
        key += "_many"
    return turn.t(*WORDING.both(key, gpu=names, format=rule.label, why=rule.why, url=rule.sources[0].url))


def zero_stage_of(turn: Turn) -> int | None:
    return turn.ask.workload.zero_stage
