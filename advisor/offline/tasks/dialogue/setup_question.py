"""A follow-up that asks a question of its own about the thread's setup (``Ask.follow_up_asks``), not a changed value:
"so will 4 cards be 4x faster?" after a speed is answered yes or no with the speed-up the estimate gives, against the
thread's earlier figure, and what the cards multiply instead (copies); "and does that need NVLink?" after a sizing is
answered for that layout (its split, the card's link). The thread's calculation runs as before (with a count this
message changes) and follows below the verdict, so the figures the verdict uses can be checked."""

from __future__ import annotations

from collections.abc import Callable

from advisor.contract import ToolCall
from advisor.markdown import number
from advisor.offline.tasks.dialogue import render
from advisor.offline.tasks.dialogue.render import at_path
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.registry import ToolOutcome

WORDING = Wording("dialogue", "setup_question")
THROUGHPUT = "estimate_throughput"
RECOMMENDED = ("tiers.0.option", "options.0")  # a recommendation's chosen option, as render._chosen reads it
NVLINK_VENDOR = "NVIDIA"  # another vendor's GPU-to-GPU link has its own name (Infinity Fabric, HCCS)
SAME = 0.85  # a speed-up within 15% of the one asked about is a yes


def answer(turn: Turn, thread_answer: Callable[[Turn], str]) -> str:
    """The verdict on what the follow-up asks, then the thread's calculation it rests on."""
    body = thread_answer(turn)
    verdict = _scaling(turn) if turn.ask.follow_up_asks == "scaling" else _interconnect(turn)
    if not verdict:
        return body
    turn.compared_itself = True  # the verdict sets the figures side by side itself: no "with … instead of …" lead
    return verdict + "\n\n" + WORDING.say(turn, "calculation") + "\n\n" + body


def _ok(outcome: ToolOutcome | ToolCall) -> dict | None:
    """The result of a call that succeeded: a tool outcome says so, a call sent back with the history has no error."""
    ok = outcome.ok if isinstance(outcome, ToolOutcome) else outcome.error is None
    return outcome.result if ok and outcome.result else None


def _link(turn: Turn, gpu: str) -> dict | None:
    """The card's GPU-to-GPU link (check_capability nvlink): verdict, GB/s and the catalog's interconnect words."""
    result = _ok(turn.call("check_capability", {"gpu": gpu, "capability": "nvlink"}))
    if result is not None:
        turn.cite_gpu(result["gpu"])
    return result


def _scaling(turn: Turn) -> str:
    """More cards for the same model: the per-user speed as one tensor-parallel group against the thread's earlier
    count, and the same cards as separate copies."""
    runs = [call for call in turn.calls if call.name == THROUGHPUT and _ok(call)]
    if not runs:
        return ""
    args, now = dict(runs[0].args), runs[0].result
    before = turn.reading.before.all("gpu_count")
    count_then = before[-1] if before and isinstance(before[-1], int) else 1
    count_now = now["num_gpus"]
    if count_now <= count_then:
        return ""
    base = {key: value for key, value in args.items() if key not in ("tp", "num_gpus")}
    then = _ok(turn.call(THROUGHPUT, {**base, "num_gpus": count_then}))
    if then is None or then["tokens_per_s_per_user_streaming"] <= 0:
        return ""
    ratio = now["tokens_per_s_per_user_streaming"] / then["tokens_per_s_per_user_streaming"]
    asked = turn.ask.claimed_multiple or count_now / count_then
    link = _link(turn, args["gpu"])
    figures = {
        "ratio": number(ratio, 2), "asked": number(asked), "count": count_now, "count_then": count_then, "gpu": (link or {}).get("gpu", {}).get("name", args["gpu"]),
        "then": number(then["tokens_per_s_per_user_streaming"]), "now": number(now["tokens_per_s_per_user_streaming"]), "tp": now["tp"],
        "load": WORDING.say(turn, "load.one" if (args.get("batch") or 1) == 1 else "load.many", batch=args.get("batch") or 1),
        "then_setup": WORDING.say(turn, "then_setup.one" if count_then == 1 else "then_setup.many", count=count_then),
        "pcie_gen": ((link or {}).get("gpu") or {}).get("pcie_gen") or "",
        "bound": render.FOLLOWUP.say(turn, f"why.bound.{now['bound']}") if now["bound"] in render.FOLLOWUP.data["why"]["bound"] else now["bound"],
    }
    lines = [WORDING.say(turn, "scaling.as_asked" if ratio >= SAME * asked else "scaling.short_of_it", **figures)]
    if now["bound"] == "interconnect" and link is not None and link["verdict"] == "no":
        lines.append(WORDING.say(turn, "scaling.over_pcie", **figures))
    else:
        lines.append(WORDING.say(turn, "scaling.why", **figures))
    copies = count_now // then["tp"]
    if copies > 1 and count_now % then["tp"] == 0:
        apart = _ok(turn.call(THROUGHPUT, {**base, "num_gpus": count_now, "tp": then["tp"]}))
        users = [run.get("max_concurrency_at_target") if run else None for run in (then, now, apart)]
        if apart is not None and all(isinstance(n, int) for n in users):
            lines.append(WORDING.say(turn, "scaling.copies", copies=copies, tp_then=then["tp"], users_then=users[0], users_now=users[1], users_apart=users[2],
                                     speed_apart=number(apart["tokens_per_s_per_user_streaming"]), **figures))  # fmt: skip
        elif apart is not None:
            lines.append(WORDING.say(turn, "scaling.copies_speed", copies=copies, tp_then=then["tp"], speed_apart=number(apart["tokens_per_s_per_user_streaming"]), **figures))
    return "\n\n".join(lines)


def _layout(turn: Turn) -> dict | None:
    return layout_of(turn, turn.calls)


def layout_of(turn: Turn, calls: list) -> dict | None:
    """The layout an answer concluded with, from its tool calls: card, count, tensor-parallel group, copies, servers,
    model and precision (a recommendation's chosen option, a speed's, a sizing's, a training run's, a cost's cards).
    A sizing tries one group after another before it settles: of its throughput estimates the one at the largest
    load is the answer's (the first of those, not the probes at one request before it, nor the alternatives after)."""
    done = [(call, result) for call in calls if (result := _ok(call)) is not None]
    runs = [(call, result) for call, result in done if call.name == THROUGHPUT]
    concluded = max(runs, key=lambda run: run[0].args.get("batch") or 1) if runs else None  # max keeps the first of equals
    for call, result in done:
        if call.name == "recommend_gpus":
            option = next((part for path in RECOMMENDED if isinstance(part := at_path(result, path), dict)), None)
            if option is not None:
                return {"gpu": option["gpu_id"], "count": option["count"], "tp": option["tp"] * option.get("pp", 1), "servers": option.get("server_count") or 1,
                        "precision": call.args.get("precision"), "label": turn.text(option["config_label"]), "plan": turn.text(option["plan_label"]), "args": call.args}  # fmt: skip
        if call.name == THROUGHPUT and concluded is not None:
            call, result = concluded
            return {"gpu": call.args["gpu"], "count": result["num_gpus"], "tp": result["tp"], "servers": 1, "precision": call.args.get("precision"),
                    "label": None, "plan": None, "args": call.args}  # fmt: skip
        if call.name in ("estimate_memory", "estimate_training_time") and call.args.get("gpu"):
            count = call.args.get("num_gpus") or 1
            return {"gpu": call.args["gpu"], "count": count, "tp": call.args.get("tp") or count, "servers": 1, "precision": call.args.get("precision"),
                    "label": None, "plan": None, "args": call.args}  # fmt: skip
        if call.name == "compute_tco" and call.args.get("gpu"):  # "2 servers of 8× H100": the servers bought and the cards in each
            servers = call.args.get("servers") or 1
            count = result.get("total_gpus") or servers * (call.args.get("gpus_per_server") or 1)
            return {"gpu": call.args["gpu"], "count": count, "tp": None, "servers": servers, "precision": None, "label": None, "plan": None, "args": call.args}
    return None


def _interconnect(turn: Turn) -> str:
    """Whether the layout just given needs a GPU-to-GPU link: one copy per card sends nothing between cards; a split
    copy runs its all-reduces over the card's link, NVLink where it has one, PCIe where not."""
    layout = _layout(turn)
    if layout is None:
        return ""
    link = _link(turn, layout["gpu"])
    if link is None:
        return ""
    gpu = link["gpu"]
    tp = layout["tp"] or layout["count"] // max(layout["servers"], 1)  # a cost's servers name no split: a copy per server
    layout = {**layout, "tp": tp}
    figures = {"gpu": gpu["name"], "count": layout["count"], "tp": tp,
               "layout": layout["label"] or WORDING.say(turn, "interconnect.layout", count=layout["count"], gpu=gpu["name"]),
               "link_gbs": number(link["value"]) if isinstance(link["value"], int | float) else "", "pcie_gen": gpu.get("pcie_gen") or "",
               "lane_gbs": number(link["pcie_lane_gbs"]) if link.get("pcie_lane_gbs") else ""}  # fmt: skip
    if tp <= 1:
        lines = [WORDING.say(turn, "interconnect.one_card", **figures)]
    elif link["verdict"] == "yes" and gpu.get("vendor") == NVLINK_VENDOR:
        lines = [WORDING.say(turn, "interconnect.has_link", **figures)]
    elif link["verdict"] in ("yes", "unknown"):  # Infinity Fabric, HCCS: another vendor's scale-up link
        lines = [WORDING.say(turn, "interconnect.other_link", **figures)]
    else:
        lines = [WORDING.say(turn, "interconnect.over_pcie", **figures)]
        cost = _link_cost(turn, layout)
        if cost:
            lines.append(WORDING.say(turn, "interconnect.cost", **cost, **figures))
        lines.append(WORDING.say(turn, "interconnect.instead", **figures))
    if layout["servers"] > 1:
        lines.append(WORDING.say(turn, "interconnect.servers", servers=layout["servers"]))
    return "\n\n".join(lines)


def _link_cost(turn: Turn, layout: dict) -> dict | None:
    """The share of a decode step the all-reduces take in the serving estimate of the layout."""
    run = next((call for call in turn.calls if call.name == THROUGHPUT and _ok(call) and call.args.get("gpu") == layout["gpu"]), None)
    if run is None:
        args = layout["args"]
        if not args.get("model"):
            return None
        request = {"model": args["model"], "gpu": layout["gpu"], "num_gpus": layout["tp"], "tp": layout["tp"]}
        if args.get("precision"):
            request["precision"] = args["precision"]
        run = turn.call(THROUGHPUT, request)
    result = _ok(run)
    if result is None:
        return None
    comm = next((line["value"] for line in result.get("lines", []) if line.get("key") == "allreduce_time"), None)
    if not isinstance(comm, int | float) or result["step_ms"] <= 0:
        return None
    return {"comm_ms": number(comm, 2), "step_ms": number(result["step_ms"], 2), "share": number(100 * comm / result["step_ms"], 0)}
