"""A bare "fine-tune" with a purchase budget is not silently LoRA: the recommendation is sized for LoRA (what most
teams run), and full fine-tuning (weights, gradients and Adam states sharded with ZeRO-3/FSDP) is sized too, so the
reader sees whether the budget holds it, on which configuration and at what whole price."""

from __future__ import annotations

from advisor.markdown import money, number
from advisor.offline.tasks.recommend.price_view import option_price
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("recommend", "finetune")


def lines(turn: Turn, args: dict, lora: dict) -> list[str]:
    """One line on full fine-tuning beside the LoRA recommendation: within the budget or not, and why LoRA leads."""
    outcome = turn.call("recommend_gpus", {**args, "task": "full_finetune", "workloads": None})
    if not outcome.ok or not outcome.result["options"]:
        return []
    r = outcome.result
    full = r["options"][0]
    cur, budget = r["currency"], turn.slots.budget
    turn.assume(*WORDING.pair("assumed"))
    filled = {"config": turn.text(full["config_label"]), "price": option_price(turn, full, cur), "per_gpu_gb": number(full["per_gpu_gb"]),
              "budget": money(budget.amount, budget.currency)}
    if full.get("within_budget"):
        return [WORDING.say(turn, "full_fits", **filled)]
    lora_top = lora["options"][0]
    return [WORDING.say(turn, "full_over", **filled, lora_config=turn.text(lora_top["config_label"]))]
