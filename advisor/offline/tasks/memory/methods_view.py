"""“Full fine-tune, LoRA or QLoRA for model M: how much memory each?”: every method asked, sized with the same
estimator on the card the user named (an 80 GB card when none), each turned into the GPU count that holds it
(ZeRO-3/FSDP across the cards for a full fine-tune, never one impossible GPU)."""

from __future__ import annotations

import math

from advisor.markdown import number, table
from advisor.offline.tasks.memory import plan
from advisor.offline.tasks.serving.serving_card import stated_card
from advisor.offline.tasks.specs.compare_view import tool_method
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import TASK_LABEL
from tools.recommend.configs import SERVER_GPUS

WORDING = Wording("memory", "methods")
DEFAULT_CARD = "h100-sxm"  # the 80 GB card a fine-tune is usually rented on when none is named


def answer(turn: Turn, model: str, base_args: dict) -> str:
    """One estimate per method on one card; the verdict line names each method's memory and the cards it takes."""
    card = stated_card(turn, turn.slots.gpus[0]).gpu if turn.slots.gpus else None
    if card is None and not base_args.get("gpu_memory_gb"):  # "my 24 GB card" is sized as said
        card = DEFAULT_CARD
        turn.assume(*WORDING.both("assume_card", card=turn.catalog.gpu(DEFAULT_CARD).name))
    sized = []
    for task in plan.methods_asked(turn):
        args = {**base_args, "mode": "training", "method": tool_method(task), "precision": None, "gpu": card, "num_gpus": None,
                "zero_stage": None, "tp": None, "pp": None}  # fmt: skip
        outcome = turn.call("estimate_memory", args)
        if not outcome.ok:
            return turn.error(outcome)
        sized.append((task, outcome.result))
    first = sized[0][1]
    pieces = [_piece(turn, task, r) for task, r in sized]
    lead = WORDING.say(turn, "lead", model=turn.text(first["model_label"]), card=first["gpu"], capacity=number(first["gpu_capacity_gb"]),
                       pieces=WORDING.say(turn, "joiner").join(pieces))  # fmt: skip
    rows = [_row(turn, task, r) for task, r in sized]
    headers = [WORDING.say(turn, key) for key in ("h_method", "h_total", "h_cards", "h_per_gpu")]
    have = turn.slots.gpu_count
    parts = [lead]
    if have:
        fits = [turn.t(*TASK_LABEL[task]) for task, r in sized if _count(r) and _count(r) <= have]
        parts.append(WORDING.say(turn, "on_yours", count=have, card=first["gpu"], methods=WORDING.say(turn, "joiner").join(fits) if fits else WORDING.say(turn, "none_fits")))
    parts.append(WORDING.say(turn, "why_sharded"))
    parts.append(table(headers, rows))
    turn.slots.mark("method", "gpu", "gpu_count")
    return "\n\n".join(parts)


def _count(r: dict) -> int | None:
    """The fewest of the card that hold the method: one when it fits, else the sharded count of the fit plan."""
    if r.get("verdict") in ("fits", "tight"):
        return 1
    return ((r.get("fit_plan") or {}).get("same_card") or {}).get("count")


def _per_gpu(r: dict) -> float:
    if r.get("verdict") in ("fits", "tight"):
        return r["total_per_gpu_gb"]
    return ((r.get("fit_plan") or {}).get("same_card") or {}).get("per_gpu_gb") or r["total_per_gpu_gb"]


def _piece(turn: Turn, task: str, r: dict) -> str:
    count = _count(r)
    label = turn.t(*TASK_LABEL[task])
    if count is None:
        return WORDING.say(turn, "piece_none", method=label, total=number(r["total_per_gpu_gb"]))
    if count == 1:
        return WORDING.say(turn, "piece_one", method=label, total=number(r["total_per_gpu_gb"]))
    servers = math.ceil(count / SERVER_GPUS)
    key = "piece_sharded_servers" if servers > 1 else "piece_sharded"
    return WORDING.say(turn, key, method=label, total=number(r["total_per_gpu_gb"]), count=count, per_gpu=number(_per_gpu(r)), servers=servers)


def _row(turn: Turn, task: str, r: dict) -> list:
    count = _count(r)
    return [turn.t(*TASK_LABEL[task]), f"{number(r['total_per_gpu_gb'])} GB", count if count else "—", f"{number(_per_gpu(r))} GB"]
