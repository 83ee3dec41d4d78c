"""Best value asked across a range of models ("7B to 70B"): the pick that holds the largest is not the best value
for the smallest, so the small end gets its own best-value pick beside the main one."""

from __future__ import annotations

from advisor.markdown import money, number
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("memory", "range_ends")


def small_end_lines(turn: Turn, r: dict, args: dict) -> list[str]:
    """The best-value pick for each served job that did not set the size, as its own recommendation."""
    if r.get("objective") != "value" or not args.get("workloads"):
        return []
    jobs = [{"model": args["model"], "task": args["task"], "precision": args.get("precision")}, *args["workloads"]]
    lines = []
    for job in jobs:
        if job["task"] != "inference":
            continue
        alone = {**args, **job, "workloads": None, "top": 1}
        found = turn.call("recommend_gpus", alone)
        if not found.ok or not found.result["options"] or found.result["model_label"] == r["model_label"]:
            continue
        best, cur = found.result["options"][0], found.result["currency"]
        if best.get("tokens_per_s_per_10k") is None or best.get("purchase_cost") is None:
            continue
        lines.append(WORDING.say(turn, "small_end", model=turn.text(found.result["model_label"]), config=turn.text(best["config_label"]),
                                 value=number(best["tokens_per_s_per_10k"]), per=money(10_000, cur), price=money(best["purchase_cost"], cur)))  # fmt: skip
    return lines
