"""A fit question that names a team or a number of users: memory alone does not answer it, the speed each user
gets at that load does (a Mac holds a 70B model, but its prefill and its batch are slow for twenty people)."""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.tasks.serving.serving_floor import chat_floor_tokens_per_s
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import TASK_LABEL, say_serving_format, serving_format

WORDING = Wording("memory", "team_load")
MS_PER_S = 1000


def team_load_line(turn: Turn, fit: dict, args: dict) -> str:
    """The speed at the stated number of users at once, against the chat floor, or "" when no load was stated,
    it did not fit (the fit plan leads then), or the speed cannot be estimated."""
    users = turn.slots.concurrency
    fits = fit.get("verdict") in ("fits", "tight")
    if args["mode"] != "inference" or not fits or not args.get("gpu") or not users or users < 2:
        return ""
    if "estimate_throughput" not in turn.registry.names():
        return ""
    floor = chat_floor_tokens_per_s()
    # the speed a team gets is the speed of the format the card is served in (FP8 on an L40S), not of the 16-bit
    # weights a memory check defaults to: a verdict from BF16 would call a card slow that nobody serves that way
    served_in = args.get("precision") or serving_format(turn, args["gpu"])
    speed = turn.call("estimate_throughput", {
        "model": args["model"], "gpu": args["gpu"], "num_gpus": args.get("num_gpus") or 1, "precision": served_in,
        "context": args.get("context"), "batch": users, "target_tokens_per_s_per_user": floor,
    })  # fmt: skip
    if not speed.ok:
        return ""
    r = speed.result
    each, most = r["tokens_per_s_per_user_streaming"], r.get("max_concurrency_at_target") or 0
    headcount = next((v.value for v in turn.slots.frame.slots.get("audience", []) if isinstance(v.value, int | float)), None)
    if headcount and headcount > users:  # "a team of 25": the people, and how many of them are served at once
        who = WORDING.say(turn, "who_team", team=number(headcount), users=users)
    else:
        who = WORDING.say(turn, "who_at_once", users=users)
    key = "keeps_up" if each >= floor else ("short_of_floor" if most >= 1 else "short_even_alone")
    # the lead names what it judged (the model and the job): a fit question's answer opens with it, before the memory verdict
    line = WORDING.say(turn, key, who=who, speed=number(each), ttft=number(r["ttft_ms"] / MS_PER_S, 1), floor=number(floor), most=most,
                       model=turn.text(fit["model_label"]), label=turn.t(*TASK_LABEL["inference"]))
    if served_in and not args.get("precision"):  # said beside the verdict: the memory check below stays in 16-bit
        say_serving_format(turn, args["gpu"], served_in)
        line += WORDING.say(turn, "in_format", precision=(r.get("weights_format") or served_in).upper(), card=r["gpu"])
    if key == "keeps_up":
        return line
    return f"{line} {same_class_alternative(turn, args, users, floor)}"


def same_class_alternative(turn: Turn, args: dict, users: int, floor: float) -> str:
    """Too slow on a Mac or one desktop card: the first machine of that class (a bigger Mac, a one-card workstation;
    text.yaml ``team_load.desktop_alternatives``) that carries the load at the chat floor, in the lowest-bit weights
    it needs; a small GPU server only when none does, or when the machine asked about is already a server card."""
    card = turn.catalog.find_gpu(args["gpu"])
    if card is None or card.segment == "datacenter":
        return WORDING.say(turn, "alternative_server")
    for gpu in WORDING.data["desktop_alternatives"]:
        other = turn.catalog.find_gpu(gpu)
        if other is None or other.id == card.id:
            continue
        tried = [args.get("precision")] if args.get("precision") else [None, "fp8" if other.fp8_tflops else None, "awq-int4"]
        for precision in dict.fromkeys(tried):  # the user's precision, else the highest that keeps up
            trial = turn.call("estimate_throughput", {"model": args["model"], "gpu": other.id, "num_gpus": 1, "precision": precision,
                                                      "context": args.get("context"), "batch": users, "target_tokens_per_s_per_user": floor})  # fmt: skip
            if trial.ok and trial.result["tokens_per_s_per_user_streaming"] >= floor:
                r = trial.result
                return WORDING.say(turn, "alternative_desktop", machine=other.name, precision=(r.get("weights_format") or precision or "bf16").upper(),
                                   speed=number(r["tokens_per_s_per_user_streaming"]), users=users)  # fmt: skip
    return WORDING.say(turn, "alternative_server")
