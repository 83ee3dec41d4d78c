"""The specs task's plan: which cards a message asks about and the compare_gpus / list_gpus arguments it is answered
with (the market's currency, the China filter, the memory asked for). No wording here; the sentences are render.py's."""

from __future__ import annotations

from advisor.offline.turn import Turn

MAX_COMPARED = 6  # cards side by side in one table
# the work a comparison is weighed for (compare_gpus' job), from the method the message names
JOB_OF_WORKLOAD = {"inference": "inference", "lora": "fine_tuning", "qlora": "fine_tuning", "finetune": "fine_tuning",
                   "full_finetune": "training", "pretrain": "training", "train": "training"}  # fmt: skip


def gpus_named(turn: Turn) -> list[str]:
    """The cards this message names, else the conversation's ("and its bandwidth?")."""
    return turn.entities.gpus or turn.slots.gpus


def compare_args(turn: Turn, names: list[str]) -> dict:
    jobs = [JOB_OF_WORKLOAD[w] for w in turn.slots.workloads if w in JOB_OF_WORKLOAD]
    return {"gpus": names[:MAX_COMPARED], "currency": turn.currency, "job": jobs[0] if jobs else None,
            "cards_per_job": turn.slots.gpu_count}  # "for an 8-GPU training box": the cards one job spans


def list_args(turn: Turn) -> dict:
    """No card named: the catalog filtered by the market and the memory asked for."""
    return {"china_mainland": turn.slots.region == "cn", "min_memory_gb": turn.slots.gpu_memory_gb or 0}


def asks_machine_price(turn: Turn) -> bool:
    """"how much is an A800 server?": what the machine costs to buy leads the comparison."""
    return turn.ask.asks_price and not turn.ask.renting and "launch_price" not in turn.ask.spec_fields_asked  # the card's own price asked


def launch_estimate_args(turn: Turn, gpu: dict) -> dict | None:
    """estimate_server_price's arguments for one card of ``gpu`` when its launch price is asked and the catalog holds no price
    for it ("L40S launch price?"): the dated estimate knowledge/price_estimates.yaml derives is the sourced figure there is."""
    if "launch_price" not in turn.ask.spec_fields_asked or gpu.get("purchase_price"):
        return None
    return {"gpu": gpu["id"], "gpus": 1, "currency": turn.currency}
