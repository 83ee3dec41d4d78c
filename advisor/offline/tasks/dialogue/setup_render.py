"""The words of a follow-up's own question about the thread's setup (setup_question.py runs the calls): the verdict on
"will 4 cards be 4x faster?" from the estimates at both counts and as separate copies, and on "does that need NVLink?"
from the layout and the card's link. Figures are formatted here, never beside the calls."""

from __future__ import annotations

from dataclasses import dataclass

from advisor.markdown import number
from advisor.offline.tasks.dialogue import render
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("dialogue", "setup_question")
NVLINK_VENDOR = "NVIDIA"  # another vendor's GPU-to-GPU link has its own name (Infinity Fabric, HCCS)
SAME = 0.85  # a speed-up within 15% of the one asked about is a yes


@dataclass(frozen=True)
class Scaling:
    """More cards for the same model: the thread's estimate on the cards now (``now``, run with ``args``) and at its
    earlier count (``then``), the speed-up asked about, the card's link, and the same cards as separate copies of the
    earlier split (``apart``, when they divide evenly into more than one)."""

    args: dict
    now: dict
    then: dict
    count_then: int
    asked: float
    link: dict | None
    apart: dict | None


@dataclass(frozen=True)
class Interconnect:
    """The layout an answer concluded with (``tp`` settled), the card's GPU-to-GPU link, and, for a split over PCIe, the
    all-reduce and step times of a decode step in its serving estimate (``cost``, ms)."""

    layout: dict
    link: dict
    cost: dict | None


def scaling(turn: Turn, found: Scaling) -> str:
    """Yes or no on the speed-up asked about, why (the link or the bound), and what the cards multiply instead."""
    args, now, then, link, count_then = found.args, found.now, found.then, found.link, found.count_then
    count_now = now["num_gpus"]
    ratio = now["tokens_per_s_per_user_streaming"] / then["tokens_per_s_per_user_streaming"]
    figures = {
        "ratio": number(ratio, 2), "asked": number(found.asked), "count": count_now, "count_then": count_then, "gpu": (link or {}).get("gpu", {}).get("name", args["gpu"]),
        "then": number(then["tokens_per_s_per_user_streaming"]), "now": number(now["tokens_per_s_per_user_streaming"]), "tp": now["tp"],
        "load": WORDING.say(turn, "load.one" if (args.get("batch") or 1) == 1 else "load.many", batch=args.get("batch") or 1),
        "then_setup": WORDING.say(turn, "then_setup.one" if count_then == 1 else "then_setup.many", count=count_then),
        "pcie_gen": ((link or {}).get("gpu") or {}).get("pcie_gen") or "",
        "bound": render.FOLLOWUP.say(turn, f"why.bound.{now['bound']}") if now["bound"] in render.FOLLOWUP.data["why"]["bound"] else now["bound"],
    }  # fmt: skip
    lines = [WORDING.say(turn, "scaling.as_asked" if ratio >= SAME * found.asked else "scaling.short_of_it", **figures)]
    if now["bound"] == "interconnect" and link is not None and link["verdict"] == "no":
        lines.append(WORDING.say(turn, "scaling.over_pcie", **figures))
    else:
        lines.append(WORDING.say(turn, "scaling.why", **figures))
    apart = found.apart
    if apart is not None:
        copies = count_now // then["tp"]
        users = [run.get("max_concurrency_at_target") for run in (then, now, apart)]
        if all(isinstance(n, int) for n in users):
            lines.append(WORDING.say(turn, "scaling.copies", copies=copies, tp_then=then["tp"], users_then=users[0], users_now=users[1], users_apart=users[2],
                                     speed_apart=number(apart["tokens_per_s_per_user_streaming"]), **figures))  # fmt: skip
        else:
            lines.append(WORDING.say(turn, "scaling.copies_speed", copies=copies, tp_then=then["tp"], speed_apart=number(apart["tokens_per_s_per_user_streaming"]), **figures))
    return "\n\n".join(lines)


def interconnect(turn: Turn, found: Interconnect) -> str:
    """One copy per card needs no link; a split copy uses NVLink, another vendor's link, or PCIe (with its cost)."""
    layout, link = found.layout, found.link
    gpu, tp = link["gpu"], layout["tp"]
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
        if found.cost:
            comm, step = found.cost["comm_ms"], found.cost["step_ms"]
            cost = {"comm_ms": number(comm, 2), "step_ms": number(step, 2), "share": number(100 * comm / step, 0)}
            lines.append(WORDING.say(turn, "interconnect.cost", **cost, **figures))
        lines.append(WORDING.say(turn, "interconnect.instead", **figures))
    if layout["servers"] > 1:
        lines.append(WORDING.say(turn, "interconnect.servers", servers=layout["servers"]))
    return "\n\n".join(lines)
