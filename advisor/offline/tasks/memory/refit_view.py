"""The first screen of a memory answer that does not fit: what does fit (the count of the same card, then the
cheaper routes), never a negative headroom; and, when serving a stated load, the KV cache that load needs."""

from __future__ import annotations

import math

from advisor.markdown import number
from advisor.offline.tasks.serving import render as serving_render
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from tools.recommend.configs import SERVER_GPUS  # the standard 8-GPU server of data-centre cards

REFIT = Wording("memory", "refit")

EIGHT_BIT_ADAM = ("adamw_8bit", "adamw_8bit_paged")


def lead(turn: Turn, estimate: dict, task_label: Text, working: dict | None = None) -> list[str]:
    """The verdict, the count of the same card that holds the job, then the routes that fit (details stay below).
    ``working``: the route on the user's own cards that leads (plan.working_format), with its quality cost beside it."""
    plan = estimate["fit_plan"]
    card, yours = estimate["gpu"], plan["your_count"]
    where = REFIT.text("where.yours", count=yours, card=card) if yours > 1 else REFIT.text("where.one", card=card)
    need = number(estimate["total_per_gpu_gb"])
    # the verdict is the fit plan's: "not on one; yes on N" when a count of the same card holds the job
    count = plan["same_card"]["count"]
    figures = {"task": task_label, "model": Text.model_validate(estimate["model_label"]), "where": where, "need": need,
               "capacity": number(estimate["gpu_capacity_gb"]), "scope": REFIT.text("scope.each" if yours > 1 else "scope.one")}  # fmt: skip
    verdict = REFIT.text("lead_count", count=count, card=plan["same_card"]["gpu"], **figures) if count else REFIT.text("lead", **figures)
    if working is not None:  # "can 4 of my cards run it?": yes, in the format the body's first route gives; 16-bit second
        held = REFIT.text("as_asked_count", count=count, card=plan["same_card"]["gpu"]) if count else Text(en="", zh="")
        verdict = REFIT.text("lead_format", route=Text.model_validate(working["label"]), per_gpu=number(working["per_gpu_gb"]),
                             quality=format_quality(turn, estimate["model_id"], working),
                             precision=estimate["weights_precision"].upper(), held=held,
                             route_scope=REFIT.text("route_scope.each" if yours > 1 else "route_scope.one"), **figures)  # fmt: skip
    parts = [turn.text(verdict)]
    # serving on several cards: the job's total against theirs, the weights named (training shards them: per-GPU is the story)
    if yours > 1 and estimate["mode"] == "inference" and estimate.get("capacity_all_gpus_gb"):
        parts[0] += " " + turn.text(REFIT.text("totals", total=number(estimate["total_all_gpus_gb"]), weights=number(estimate["weights_all_gpus_gb"]),
                                           precision=estimate["weights_precision"].upper(), capacity_all=number(estimate["capacity_all_gpus_gb"]), count=yours))  # fmt: skip
    parts[0] += " " + _same_card(turn, plan["same_card"], estimate["mode"])
    # peeked, not read: an optimizer the estimate could not use stays reported as such
    if turn.slots.frame.get("optimizer") in EIGHT_BIT_ADAM and estimate["mode"] == "training":
        parts.append(turn.text(REFIT.text("optimizer_counted", need=need)))
    if plan["routes"]:
        parts.append(_routes(turn, plan, card))
    return parts


def format_quality(turn: Turn, model_id: str, route: dict) -> Text:
    """What the leading route's weight format costs in quality, in brackets beside the yes (measured against the format
    the checkpoint ships in when it ships lower than 16-bit); nothing for a route that keeps the weights as they are."""
    if not route.get("precision"):
        return Text(en="", zh="")
    return REFIT.text("quality", quality=serving_render.quality(turn, route["precision"], model_id))


def _same_card(turn: Turn, route: dict, mode: str) -> str:
    if route["count"] is None:
        return turn.text(REFIT.text("same_card_none", card=route["gpu"]))
    count = route["count"]
    servers = REFIT.text("servers", servers=math.ceil(count / SERVER_GPUS)) if count > SERVER_GPUS else Text(en="", zh="")
    plan = turn.text(_plan(route, mode)) + _micro(turn, route, "micro_batch")
    return turn.text(REFIT.text("same_card", count=count, card=route["gpu"], servers=servers, plan=plan,
                            per_gpu=number(route["per_gpu_gb"])))  # fmt: skip


def _micro(turn: Turn, route: dict, key: str) -> str:
    """A training route held at micro-batch 1 (tools/memory/refit.py): the accumulation steps that keep its batch."""
    return turn.text(REFIT.text(key, steps=route["grad_accumulation"])) if route.get("micro_batch") else ""


def _plan(route: dict, mode: str) -> Text:
    if mode == "inference":
        if route["pp"] > 1:
            return REFIT.text("plan.serving_pp", tp=route["tp"], pp=route["pp"])
        return REFIT.text("plan.serving", tp=route["tp"]) if route["tp"] > 1 else REFIT.text("plan.one")
    return REFIT.text("plan.sharded", count=route["count"]) if route["count"] > 1 else REFIT.text("plan.one")


def _routes(turn: Turn, plan: dict, card: str) -> str:
    yours = plan["your_count"]
    working = [r for r in plan["routes"] if (r["fits_your_count"] if yours > 1 else r["count"] is not None)]
    if not working:
        title = REFIT.text("routes.none")
    elif yours > 1:
        title = REFIT.text("routes.yours_title", count=yours, card=card)
    else:
        title = REFIT.text("routes.title")
    lines = [turn.text(title)] + [_route_line(turn, route, yours, card) for route in plan["routes"]]
    return "\n".join(lines)


def _route_line(turn: Turn, route: dict, yours: int, card: str) -> str:
    label, per_gpu = Text.model_validate(route["label"]), number(route["per_gpu_gb"])
    if route["key"] == "smaller_model":
        line = REFIT.text("route.smaller", route=label, params=number(route["params_b"]), per_gpu=per_gpu)
    elif route["count"] is None:
        line = REFIT.text("route.none", route=label, card=route["gpu"])
    elif route["gpu"] != card:  # another card (an FP8 one, a larger one): how many of it, not a verdict on yours
        line = REFIT.text("route.count", route=label, count=route["count"], card=route["gpu"], per_gpu=per_gpu)
    elif yours > 1 and route["fits_your_count"]:
        line = REFIT.text("route.yours", route=label, per_gpu=per_gpu)
    elif yours > 1:
        line = REFIT.text("route.yours_more", route=label, count=yours, per_gpu=per_gpu, needed=route["count"])
    else:
        line = REFIT.text("route.count", route=label, count=route["count"], card=route["gpu"], per_gpu=per_gpu)
    text = turn.text(line) + _micro(turn, route, "route_micro_batch")
    if route.get("host_ram_gb"):
        text += turn.text(REFIT.text("route.host_ram", host=number(route["host_ram_gb"])))
    return text


def kv_load(turn: Turn, estimate: dict | None, sequences: int | None, context: int) -> str | None:
    """Serving several sequences at once: the KV cache that load needs, and FP8's figure, as part of the check."""
    if not estimate or not sequences or sequences < 2 or estimate.get("mode") != "inference":
        return None
    kv_item = next((i for i in estimate["items"] if i.get("key") == "kv_cache"), None)
    if kv_item is None:
        return None
    fp8 = estimate.get("kv_cache_fp8_gb")
    fp8_text = REFIT.text("kv_load_fp8", kv=number(fp8, 1)) if fp8 is not None else Text(en="", zh="")
    precision = (estimate.get("kv_precision") or "bf16").upper()
    return turn.text(REFIT.text("kv_load", sequences=sequences, context=f"{context:,}", kv=number(kv_item["value"], 1),
                            precision=precision, fp8_kv=fp8_text))  # fmt: skip
