"""A training run with a token count is a compute question before it is a memory one: for each model asked, the total
FLOPs and the time on the recommended configuration (``estimate_training_time``), then whether renting those
GPU-hours for a one-off run costs less than buying the configuration."""

from __future__ import annotations

import math

from advisor.markdown import money, number, token_count
from advisor.offline.tasks.recommend.price_view import option_price
from advisor.offline.tasks.specs.compare_view import tool_method
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("recommend", "compute")


def _flops(value: float) -> str:
    exponent = int(math.floor(math.log10(value)))
    return f"{value / 10 ** exponent:.1f} × 10^{exponent}"


def lines(turn: Turn, model: str, task: str, r: dict, workloads: list[dict] | None) -> list[str]:
    """One line per model (FLOPs, days, GPU-hours, rent of those hours), then rent against buying for a one-off run."""
    top, cur = r["options"][0], r["currency"]
    models = [model] + [w["model"] for w in workloads or [] if w["task"] == task and w["model"] != model]
    out, rents = [], []
    for name in dict.fromkeys(models):
        args = {"model": name, "gpu": top["gpu_id"], "num_gpus": top["count"], "tokens": turn.slots.tokens, "method": tool_method(task), "currency": cur}
        timed = turn.call("estimate_training_time", args)
        if not timed.ok:
            continue
        t = timed.result
        rents.append(t["cost"])
        rent = WORDING.say(turn, "rent", cost=money(t["cost"], cur)) if t["cost"] is not None else WORDING.say(turn, "no_rent")
        out.append("- " + WORDING.say(turn, "per_model", params_b=number(t["params_b"]), tokens=token_count(t["tokens"]), flops=_flops(t["total_flops"]),
                                      days=number(t["wall_clock_days"]), config=turn.text(top["config_label"]), gpu_hours=number(t["gpu_hours"]),
                                      mfu=f"{t['mfu']:.0%}", rent=rent))
    if not out:
        return []
    parts = [WORDING.say(turn, "head") + "\n" + "\n".join(out)]
    if rents and None not in rents and top.get("purchase_cost"):
        total = sum(rents)
        key = "rent_wins" if total < top["purchase_cost"] else "buy_wins"
        parts.append(WORDING.say(turn, key, rent=money(total, cur), price=option_price(turn, top, cur), config=turn.text(top["config_label"])))
    return parts
