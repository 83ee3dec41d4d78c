"""A training run that cannot fit the stated cards leads with that, never with a time: the memory per GPU against
what each card holds, the count of that card that would hold it, and the adapters that fit what the user has. The
time that follows is the compute alone."""

from __future__ import annotations

import math

from advisor.markdown import number
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import TASK_LABEL
from tools.recommend.configs import SERVER_GPUS

WORDING = Wording("training", "fit_first")


def lead(turn: Turn, task: str, count: int, r: dict) -> str:
    """The does-not-fit verdict for the run as stated; ``r`` is estimate_memory's result on the stated cards."""
    plan = r.get("fit_plan") or {}
    same = plan.get("same_card") or {}
    label = turn.t(*TASK_LABEL[task])
    values = {"task": label, "model": turn.text(r["model_label"]), "count": count, "card": r["gpu"], "need": number(r["total_per_gpu_gb"]),
              "holds": number(r["gpu_capacity_gb"])}  # fmt: skip
    text = WORDING.say(turn, "lead", **values)
    needed = same.get("count")
    if needed:
        servers = math.ceil(needed / SERVER_GPUS)
        where = WORDING.say(turn, "servers", servers=servers) if servers > 1 else ""
        text += " " + WORDING.say(turn, "needed", needed=needed, card=same["gpu"], where=where, per_gpu=number(same["per_gpu_gb"]))
    else:
        text += " " + WORDING.say(turn, "needed_none", card=r["gpu"])
    adapters = [route for route in plan.get("routes", []) if route["key"] in ("lora", "qlora") and _fits_yours(route, count)]
    if adapters:
        names = WORDING.say(turn, "joiner").join(WORDING.say(turn, "adapter", route=turn.text(route["label"]), per_gpu=number(route["per_gpu_gb"])) for route in adapters)
        text += " " + WORDING.say(turn, "adapters", count=count, card=r["gpu"], routes=names)
    return text + "\n\n" + WORDING.say(turn, "compute_only")


def _fits_yours(route: dict, count: int) -> bool:
    """The route holds on the user's cards: checked on them when several, one card is its own fewest count."""
    return bool(route.get("fits_your_count")) if count > 1 else route.get("count") == 1
