"""What a recommendation adds around its tiers: the jobs it was sized for when several were asked, what a budget
that buys nothing does buy, and one rent-or-buy line when the thread asks. The wording is data
(this package's text.yaml, section ``lines``); every figure comes from a tool."""

from __future__ import annotations

import datetime as dt
import math

from advisor.markdown import money, number
from advisor.nlu.frame import SlotValue
from advisor.offline.workload import TASK_BY_WORKLOAD, TASK_LABEL, quantised_serving
from advisor.offline.slots import METHOD_TO_WORKLOAD
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from knowledge.servers import server_data
from tools.recommend.configs import SERVER_GPUS  # the standard 8-GPU server of data-centre cards


LINES = Wording("recommend", "lines")  # advisor/offline/tasks/recommend/text.yaml, section "lines"


def _task_text(task: str) -> Text:
    en, zh = TASK_LABEL[task]
    return Text(en=en, zh=zh)


def _targets(turn: Turn) -> list[tuple[int, str]]:
    """(position, model) for every model or bare size this message names; a size inside a model's name is that model."""
    frame = turn.reading.frame.slots
    named = [v for v in frame.get("model", []) if v.start >= 0]
    models = [(v.start, v.value, v.start + len(v.surface)) for v in named if turn.is_language_model(v.value)]  # an embedding model is no job
    sizes = [(v.start, f"{v.value / 1e9:g}B") for v in frame.get("size", []) if v.start >= 0 and isinstance(v.value, float)
             and not any(start <= v.start < end for start, _, end in models)]  # fmt: skip
    return sorted([(start, name) for start, name, _ in models] + sizes)


SERVING_LOADS = ("concurrency", "speed_target")  # "for 25 people at once" describes serving even when no serving word is said


def _methods(turn: Turn) -> list[tuple[int, str]]:
    frame = turn.reading.frame.slots
    values: list[SlotValue] = frame.get("method", [])
    found = [(v.start, TASK_BY_WORKLOAD[METHOD_TO_WORKLOAD[v.value]]) for v in values if v.start >= 0 and v.value in METHOD_TO_WORKLOAD]
    if not any(task == "inference" for _, task in found):
        found += [(v.start, "inference") for slot in SERVING_LOADS for v in frame.get(slot, [])[:1] if v.start >= 0][:1]
    return sorted(found)


def workloads_of(turn: Turn, model: str, task: str) -> list[dict] | None:
    """Every (model, task) job this message names, when it names more than one: each model goes with the task said
    nearest to it, and a task said beside no model of its own ("fine-tune and serve A and B") goes with every model."""
    targets, methods = _targets(turn), _methods(turn)
    if not targets or (len(targets) < 2 and len(methods) < 2):
        return None
    found: list[tuple[str, str]] = []
    claimed: set[int] = set()
    breaks = turn.ask.job_joins
    for at, name in targets:
        if methods:
            nearest = min(range(len(methods)), key=lambda i: (_joined_between(breaks, methods[i][0], at), abs(methods[i][0] - at)))
            claimed.add(nearest)
            found.append((name, methods[nearest][1]))
        else:
            found.append((name, task))
    said = {task for _, task in found}  # a task said twice for one model ("deploy it ... for inference") is not a task for every model
    found += [(name, methods[i][1]) for i in range(len(methods)) if i not in claimed and methods[i][1] not in said for _, name in targets]
    served = serving_precision(turn)
    jobs = {(name, job): None for name, job in found if (name, job) != (model, task)}
    return [{"model": name, "task": job, "precision": served if job == "inference" else None} for name, job in jobs] or None


def _joined_between(breaks: tuple[int, ...], first: int, second: int) -> int:
    low, high = sorted((first, second))
    return sum(low < at < high for at in breaks)


def value_for_money(turn: Turn, args: dict, serves: bool) -> None:
    """"Best value" (or its Chinese word) for serving ranks by output tokens/s per price, not the lowest price ("cheapest" keeps
    that): timed at the stated load, else at a team's load from knowledge/servers.yaml, said among the assumptions."""
    if args["objective"] != "cheapest" or turn.ask.price_only or not serves:
        return
    args["objective"] = "value"
    if args.get("concurrency") is None and args.get("tokens_per_s_per_user") is None:
        users = server_data().recommended.value_users
        args["concurrency"] = users
        said = LINES.text("value_load", users=users)
        turn.assume(said.en, said.zh)


VALUE_SHOWN = 3  # the best few by value, so the buyer sees how far apart they are


def value_lines(turn: Turn, r: dict) -> list[str]:
    """Ranked by value for money: the first options with their output tokens/s per 1,000 of the currency and price."""
    if r.get("objective") != "value":
        return []
    cur = r["currency"]
    shown = [o for o in r["options"] if o.get("tokens_per_s_per_10k") is not None][:VALUE_SHOWN]
    items = [LINES.text("value_item", config=o["config_label"], value=number(o["tokens_per_s_per_10k"]), per=money(10_000, cur),
                    total=number(o["tokens_per_s_total"]), price=money(o["purchase_cost"], cur)) for o in shown]  # fmt: skip
    if not items:
        return []
    listed = Text(en="; ".join(i.en for i in items), zh="；".join(i.zh for i in items))
    return [turn.text(LINES.text("value_ranked", items=listed))]


def serving_precision(turn: Turn) -> str | None:
    """The weights a serving job beside another job is sized with: the stated format, else the quantised default
    (``workload.quantised_serving``), said among the assumptions; else the tool's default."""
    quantised = quantised_serving(turn)
    if quantised is None:
        return turn.slots.frame.get("precision")
    said = LINES.text("quantised_as_int4")
    if turn.t(said.en, said.zh) not in turn.assumptions:  # the main job and the jobs beside it ask the same question
        turn.assume(said.en, said.zh)
    return quantised


def sized_for(turn: Turn, r: dict) -> list[str]:
    """Which job set the size, and the others that run on the same configuration, each with its memory."""
    demands = r.get("workloads") or []
    top = next((d for d in demands if d["sized_for"]), None)
    if top is None:
        return []

    def job(d: dict) -> Text:
        return LINES.text("job", task=_task_text(d["task"]), model=Text.model_validate(d["model_label"]), memory=number(d["memory_gb"]))

    others = [job(d) for d in demands if not d["sized_for"]]
    listed = Text(en="; ".join(o.en for o in others), zh="；".join(o.zh for o in others))
    return [turn.text(LINES.text("sized_for", job=job(top), others=listed))]


def budget_short(turn: Turn, r: dict, budget: float) -> list[str]:
    """A budget that buys nothing running the job as asked: said first, with the cheapest price that works, then
    what the budget does buy (4-bit weights, LoRA or QLoRA) and what renting costs."""
    if not r.get("budget_short") or r.get("cheapest_cost") is None:
        return []
    cur = r["currency"]
    lines = [LINES.text("budget_short", budget=money(budget, cur), task=_task_text(r["task"]), model=r["model_label"],
                    cheapest=money(r["cheapest_cost"], cur))]  # fmt: skip
    fallback = r.get("fallback")
    if fallback:
        o = fallback["option"]
        lines.append(LINES.text(f"fallback.{fallback['change']}", config=o["config_label"], price=money(o["purchase_cost"], cur)))
    else:
        lines.append(LINES.text("fallback.none"))
    if r.get("cheapest_rent_per_hour") is not None:
        lines.append(LINES.text("fallback.rent", rate=money(r["cheapest_rent_per_hour"], cur)))
    return [" ".join(turn.text(line) for line in lines)]


def running_budget(turn: Turn, r: dict, budget: float, per: str) -> list[str]:
    """A budget per month or year ("$5,000 a month for the team"): set against renting the leading configuration
    around the clock, with what buying it would take of that budget; or, when nothing rents within it, the cheapest rent."""
    if per not in ("month", "year"):
        return []
    tiers = [] if r.get("objective") else r.get("tiers") or []
    option = tiers[0]["option"] if tiers else (r.get("options") or [None])[0]
    if not option or option.get("rent_per_month") is None:
        return []
    cur = r["currency"]
    values = {"budget": money(budget, cur), "period": LINES.text(f"budget_running.period_{per}"), "config": option["config_label"],
              "rent": money(option["rent_per_month"], cur)}  # fmt: skip
    if not option.get("within_budget"):
        return [turn.text(LINES.text("budget_running.over", task=_task_text(r["task"]), model=r["model_label"], **values))]
    lines = [LINES.text("budget_running.within", **values)]
    if r.get("budget_months_to_buy") is not None and option.get("purchase_cost") is not None:
        lines.append(LINES.text("budget_running.buy", price=money(option["purchase_cost"], cur), months=number(r["budget_months_to_buy"])))
    return [" ".join(turn.text(line) for line in lines)]


def rent_or_buy(turn: Turn, r: dict) -> list[str]:
    """One line when the thread weighs renting against buying: the recommended configuration's monthly rent against its purchase,
    and the payback month at the stated (or default) utilisation, from the TCO tool."""
    if not (turn.ask.renting and (turn.ask.buying or turn.ask.weighs_owning)) or turn.ask.rents_only:  # "which GPU to rent?", "we never buy": nothing weighed
        return []
    tiers = [] if r.get("objective") else r.get("tiers") or []  # the configuration the answer leads with
    option = tiers[0]["option"] if tiers else (r.get("options") or [None])[0]
    if not option or option.get("purchase_cost") is None:
        return []
    cur, count = r["currency"], option["count"]
    per_server = min(count, SERVER_GPUS)
    servers = max(1, math.ceil(count / per_server))
    utilisation = turn.slots.utilisation
    outcome = turn.call("compute_tco", {
        "gpu": option["gpu_id"], "gpus_per_server": per_server, "servers": servers,
        "server_price": round(option["purchase_cost"] / servers, 2), "server_price_each": True, "network_overhead_pct": 0,
        "utilisation_pct": utilisation * 100 if utilisation is not None else None, "rent_tier": "auto",
        "region": "cn" if r.get("currency") == "CNY" or turn.slots.region == "cn" else None,
        "currency": cur, "today": dt.date.today().isoformat(),
    })  # fmt: skip
    if not outcome.ok:  # typically no rental price for the part (H20, Ascend): said, with what to give
        return [turn.text(LINES.text("rent_or_buy.no_rent", config=turn.text(option["config_label"])))]
    t = outcome.result
    use = next((a["value"] for a in t["assumptions"] if a["key"] == "utilisation_pct"), None)
    values = {"config": turn.text(option["config_label"]), "rent": money(t["cloud_monthly_cost"], cur), "use": number(use) if use is not None else "—",
              "price": money(t["capex"], cur), "opex": money(t["own_monthly_opex"], cur), "break_even": _break_even(t)}  # fmt: skip
    if t.get("payback_months") is not None:
        line = LINES.text("rent_or_buy.payback", months=number(t["payback_months"]), **values)
    else:
        line = LINES.text("rent_or_buy.never", **values)
    return [turn.text(line)]


def _break_even(t: dict) -> Text:
    years = number(t["horizon_months"] / 12)
    if t["break_even_utilisation_pct"] > 100:
        return LINES.text("rent_or_buy.no_break_even", years=years)
    return LINES.text("rent_or_buy.break_even", pct=number(t["break_even_utilisation_pct"]), years=years)
