"""The training task's sentences from tool results: the verdict on a measured MFU, the does-not-fit lead of a training
run, the per-GPU speed ratio of two cards, a run's wall-clock time and a card a mainland buyer cannot order. Wording from
the package text.yaml (sections efficiency, fit_first, training_speed, run_time); every figure from a tool."""

from __future__ import annotations

import math

from advisor.labels import CHINA_STATUS
from advisor.markdown import number, token_count
from advisor.offline.tasks.training.plan import FP4_FORMATS, REFERENCE_PARAMS_B, REFERENCE_TOKENS
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import TASK_LABEL
from tools.cost.mfu_verdict import MfuJudgement
from tools.gpu_specs import CHINA_BUYABLE
from tools.recommend.configs import SERVER_GPUS, sold_count_from

EFFICIENCY = Wording("training", "efficiency")
FIT_FIRST = Wording("training", "fit_first")
SPEED = Wording("training", "training_speed")
RUN_TIME = Wording("training", "run_time")


def mfu_verdict(turn: Turn, judged: MfuJudgement, count: int) -> str:
    """The verdict on a stated MFU against the published runs for its class of GPU and cluster size, bold, and its basis."""
    if turn.slots.gpu_count is None:
        assumed = EFFICIENCY.text("count_assumed", count=count)
        turn.assume(assumed.en, assumed.zh)
    line = EFFICIENCY.say(turn, f"verdict.{judged.verdict}", stated=_percent(judged.stated), count=count, gpu=judged.gpu_name,
                          typical=_percent(judged.typical), band=_points(judged.band), gap=_points(abs(judged.stated - judged.typical)))  # fmt: skip
    return "**" + line + "**\n\n" + EFFICIENCY.say(turn, "basis", basis=turn.text(judged.basis))


def _percent(share: float) -> str:
    return f"{_points(share)}%"


def _points(share: float) -> str:
    return f"{share * 100:.0f}"


def fit_first_lead(turn: Turn, task: str, count: int, r: dict) -> str:
    """A training run that cannot fit the stated cards leads with that, never with a time: the memory per GPU against
    what each card holds, the count of that card that would hold it, and the adapters that fit what the user has; the
    time that follows is the compute alone. ``r`` is estimate_memory's result on the stated cards."""
    plan = r.get("fit_plan") or {}
    same = plan.get("same_card") or {}
    label = turn.t(*TASK_LABEL[task])
    values = {"task": label, "model": turn.text(r["model_label"]), "count": count, "card": r["gpu"], "need": number(r["total_per_gpu_gb"]),
              "holds": number(r["gpu_capacity_gb"])}  # fmt: skip
    text = FIT_FIRST.say(turn, "lead", **values)
    needed = same.get("count")
    if needed:
        servers = math.ceil(needed / SERVER_GPUS)
        where = FIT_FIRST.say(turn, "servers", servers=servers) if servers > 1 else ""
        micro = FIT_FIRST.say(turn, "micro", steps=same["grad_accumulation"]) if same.get("micro_batch") else ""
        text += " " + FIT_FIRST.say(turn, "needed", needed=needed, card=same["gpu"], where=where, micro=micro, per_gpu=number(same["per_gpu_gb"]))
    else:
        text += " " + FIT_FIRST.say(turn, "needed_none", card=r["gpu"])
    adapters = [route for route in plan.get("routes", []) if route["key"] in ("lora", "qlora") and _fits_yours(route, count)]
    if adapters:
        names = FIT_FIRST.say(turn, "joiner").join(FIT_FIRST.say(turn, "adapter", route=turn.text(route["label"]), per_gpu=number(route["per_gpu_gb"])) for route in adapters)
        text += " " + FIT_FIRST.say(turn, "adapters", count=count, card=r["gpu"], routes=names)
    return text + "\n\n" + FIT_FIRST.say(turn, "compute_only")


def _fits_yours(route: dict, count: int) -> bool:
    """The route holds on the user's cards: checked on them when several, one card is its own fewest count."""
    return bool(route.get("fits_your_count")) if count > 1 else route.get("count") == 1


def speed_ratio_lines(turn: Turn, first, second, count: int, precision: str, runs: list[dict], claim: tuple[str, float] | None,
                      with_notes: bool) -> list[str]:  # fmt: skip
    """The per-GPU ratio of two cards timed on the same run, the count for the same time, the verdict on a quoted cut;
    with notes, the memory and link caveats and the FP4 caution."""
    # "B vs A", "swap A for B": word order does not say which card is the move; the faster one is, and the card count
    # the user runs today belongs to the slower one; at equal speed the second named is the move ("from A to B")
    fast, slow = sorted(runs[::-1], key=lambda run: run["gpu_hours"])
    new, old = (first, second) if fast is runs[0] else (second, first)
    ratio = slow["gpu_hours"] / fast["gpu_hours"]
    label = precision.upper()
    values = {"new": new.name, "old": old.name, "precision": label, "new_peak": number(fast["peak_tflops"]), "old_peak": number(slow["peak_tflops"]),
              "new_mfu": f"{fast['mfu']:.0%}", "old_mfu": f"{slow['mfu']:.0%}"}  # fmt: skip
    lead = SPEED.say(turn, "lead", ratio=number(ratio), **values)
    needed = max(1, math.ceil(count / ratio - 1e-9))
    sold = sold_count_from(new, needed)
    same = SPEED.say(turn, "same_time", count=count, old=old.name, new=new.name, needed=needed,
                     sold=SPEED.say(turn, "sold", sold=sold) if sold and sold != needed else "")  # fmt: skip
    parts = [lead + turn.t(" ", "") + same]
    if claim is not None:
        said, factor = claim
        claimed_count = max(1, math.ceil(count / factor))
        key = "claim.holds" if ratio >= factor else "claim.fails"
        parts.append(SPEED.say(turn, key, claim=said, ratio=number(ratio), claimed=number(factor), count=count, old=old.name,
                               new=new.name, needed=needed, claimed_count=claimed_count, longer=number(needed / claimed_count)))  # fmt: skip
    line = SPEED.text("assumption", params=REFERENCE_PARAMS_B, tokens=token_count(REFERENCE_TOKENS), count=count)
    turn.assume(line.en, line.zh)
    if not with_notes:
        return parts
    link = SPEED.say(turn, "no_link")
    parts.append("\n".join([
        "- " + SPEED.say(turn, "memory", new=new.name, old=old.name, new_gb=number(new.memory_gb), old_gb=number(old.memory_gb),
                         memory_ratio=number(new.memory_gb / old.memory_gb), memory_total=number(new.memory_gb * needed / (old.memory_gb * count))),
        "- " + SPEED.say(turn, "links", new=new.name, old=old.name, new_link=f"{number(new.nvlink_gbs)} GB/s" if new.nvlink_gbs else link,
                         old_link=f"{number(old.nvlink_gbs)} GB/s" if old.nvlink_gbs else link),
    ]))  # fmt: skip
    if FP4_FORMATS & set(turn.slots.frame.all("precision")) or turn.ask.names_fp4:
        parts.append(SPEED.say(turn, "fp4", precision=label))
    turn.cite("parallelism", SPEED.say(turn, "training_speed_phrases.speed_ratio.parallelism_and_scaling"))
    return parts


def duration(days: float) -> tuple[str, str]:
    """A wall-clock time in the unit it is read in: "≈ 15 hours", not "≈ 0 days"."""
    if days < 1:
        return RUN_TIME.both("duration.hours", hours=number(days * 24))
    return RUN_TIME.both("duration.days", days=number(days))


def china_status(turn: Turn, gpu_id: str) -> str:
    """For a China buyer, a card that cannot be bought new there: its status and the rule behind it."""
    gpu = turn.catalog.gpu(gpu_id)
    china_buyer = turn.china_buyer
    if not china_buyer or gpu.china in CHINA_BUYABLE or gpu.china is None:
        return ""
    status = turn.t(*CHINA_STATUS[gpu.china])
    rule = turn.t(gpu.china_rule.label_en, gpu.china_rule.label_zh) if gpu.china_rule else ""
    said = "" if not rule or status in rule else turn.t(f" ({rule})", f"（{rule}）")  # "second-hand only (…: second-hand only)" once
    return RUN_TIME.say(turn, "training.china", name=gpu.name, status=status, rule=said)
