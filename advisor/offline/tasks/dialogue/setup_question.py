"""A follow-up that asks a question of its own about the thread's setup (``Ask.follow_up_asks``), not a changed value:
"so will 4 cards be 4x faster?" after a speed is answered yes or no with the speed-up the estimate gives, against the
thread's earlier figure, and what the cards multiply instead (copies); "and does that need NVLink?" after a sizing is
answered for that layout (its split, the card's link). The thread's calculation runs as before (with a count this
message changes) and follows below the verdict, so the figures the verdict uses can be checked. This module runs the
calls and hands their results on as they are; setup_render.py words them."""

from __future__ import annotations

from collections.abc import Callable

from advisor.contract import ToolCall
from advisor.offline.tasks.dialogue import setup_render
from advisor.offline.tasks.dialogue.render import at_path
from advisor.offline.tasks.dialogue.setup_render import Interconnect, Scaling
from advisor.offline.turn import Turn
from advisor.registry import ToolOutcome

THROUGHPUT = "estimate_throughput"
RECOMMENDED = ("tiers.0.option", "options.0")  # a recommendation's chosen option, as render._chosen reads it


def answer(turn: Turn, thread_answer: Callable[[Turn], str]) -> str:
    """The verdict on what the follow-up asks, then the thread's calculation it rests on."""
    body = thread_answer(turn)
    if turn.ask.follow_up_asks == "scaling":
        found = _scaling(turn)
        verdict = setup_render.scaling(turn, found) if found else ""
    else:
        found = _interconnect(turn)
        verdict = setup_render.interconnect(turn, found) if found else ""
    if not verdict:
        return body
    turn.compared_itself = True  # the verdict sets the figures side by side itself: no "with … instead of …" lead
    return verdict + "\n\n" + setup_render.WORDING.say(turn, "calculation") + "\n\n" + body


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


def _scaling(turn: Turn) -> Scaling | None:
    """More cards for the same model: the per-user speed as one tensor-parallel group against the thread's earlier
    count, and the same cards as separate copies."""
    runs = [call for call in turn.calls if call.name == THROUGHPUT and _ok(call)]
    if not runs:
        return None
    args, now = dict(runs[0].args), runs[0].result
    before = turn.reading.before.all("gpu_count")
    count_then = before[-1] if before and isinstance(before[-1], int) else 1
    count_now = now["num_gpus"]
    if count_now <= count_then:
        return None
    base = {key: value for key, value in args.items() if key not in ("tp", "num_gpus")}
    then = _ok(turn.call(THROUGHPUT, {**base, "num_gpus": count_then}))
    if then is None or then["tokens_per_s_per_user_streaming"] <= 0:
        return None
    asked = turn.ask.claimed_multiple or count_now / count_then
    link = _link(turn, args["gpu"])
    copies = count_now // then["tp"]
    apart = None
    if copies > 1 and count_now % then["tp"] == 0:
        apart = _ok(turn.call(THROUGHPUT, {**base, "num_gpus": count_now, "tp": then["tp"]}))
    return Scaling(args, now, then, count_then, asked, link, apart)


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


def _interconnect(turn: Turn) -> Interconnect | None:
    """Whether the layout just given needs a GPU-to-GPU link: one copy per card sends nothing between cards; a split
    copy runs its all-reduces over the card's link, NVLink where it has one, PCIe where not (its cost then estimated)."""
    layout = _layout(turn)
    if layout is None:
        return None
    link = _link(turn, layout["gpu"])
    if link is None:
        return None
    tp = layout["tp"] or layout["count"] // max(layout["servers"], 1)  # a cost's servers name no split: a copy per server
    layout = {**layout, "tp": tp}
    over_pcie = tp > 1 and link["verdict"] not in ("yes", "unknown")
    return Interconnect(layout, link, _link_cost(turn, layout) if over_pcie else None)


def _link_cost(turn: Turn, layout: dict) -> dict | None:
    """The all-reduce time and the whole decode step (ms) in the serving estimate of the layout."""
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
    return {"comm_ms": comm, "step_ms": result["step_ms"]}
