"""The memory task's sentences from estimate_memory's and max_fit's results: the verdict (or what fits instead) with
the need per GPU, the KV-cache lead and the stated load, the team's speed, OOM causes, MoE and FP8 facts, the rule of
thumb, the breakdown and the notes. Wording from the package text.yaml (section sizing); every figure from a tool,
no tool arguments decided here (plan.py's)."""

from __future__ import annotations

from advisor.labels import VERDICT
from advisor.markdown import number
from advisor.offline.tasks.memory import memory_scopes, memory_view, refit_view
from advisor.offline.tasks.memory.plan import DEFAULT_CONTEXT
from advisor.offline.tasks.memory.team_load import team_load_line
from advisor.offline.tasks.serving.serving_card import StatedCard
from advisor.offline.tasks.serving.serving_facts import fp8_weight_only_lines, moe_lines
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import TASK_LABEL
from knowledge.bilingual import Text

WORDING = Wording("memory", "sizing")


def estimate(turn: Turn, r: dict, args: dict, task: str, card: StatedCard | None, working: dict | None = None, sized: dict | None = None) -> str:
    """The answer to "how much memory / does it fit?" from estimate_memory's result ``r`` for ``args``. ``working``: the
    fit plan's route on the user's own cards that the lead says yes in; ``sized``: that route's own estimate, whose
    breakdown the body shows so the table carries the lead's figure."""
    label = turn.t(*TASK_LABEL[task])
    replicas = r["num_gpus"] // max(r.get("tp", 1) * r.get("pp", 1), 1)  # the layout the estimate sized: copies of the model
    on_gpus = WORDING.say(turn, ("lines.on_gpus_replicas_one" if r.get("tp", 1) == 1 else "lines.on_gpus_replicas") if replicas > 1 else "lines.on_gpus", num_gpus=r["num_gpus"],
                          total=number(r["total_all_gpus_gb"]), replicas=replicas, tp=r.get("tp", 1)) if r["num_gpus"] > 1 else ""  # fmt: skip
    unsplit = r["num_gpus"] == 1 and not (args["gpu"] or args["gpu_memory_gb"])  # no card, no count: a total, not a share
    need = WORDING.say(turn, "lines.needs_in_all" if unsplit else "lines.needs_per_gpu", model=turn.text(r["model_label"]), label=label, per_gpu=number(r["total_per_gpu_gb"]), on_gpus=on_gpus)
    parts = []
    if args["mode"] == "inference" and memory_view.asks_about_kv_cache(turn):
        kv_precision = (r.get("capacity") or {}).get("kv_precision") or args.get("kv_precision") or "bf16"
        lead = memory_view.kv_cache_lead(turn, r, args["batch"] or 1, args["context"] or DEFAULT_CONTEXT, kv_precision)
        parts += [lead] if lead else []
    load = refit_view.kv_load(turn, r, args["batch"], args["context"] or DEFAULT_CONTEXT) if not parts else None
    if r.get("fit_plan"):  # it does not fit: lead with what does, never with a negative headroom
        first, *rest = refit_view.lead(turn, r, Text(en=TASK_LABEL[task][0], zh=TASK_LABEL[task][1]), working)
        parts += [first, *([load] if load else []), *rest]
    elif r.get("verdict"):
        mark = f"**{turn.t(*VERDICT[r['verdict']])}**"
        parts.append(
            f"{mark} — "
            + need
            + WORDING.say(turn, "sizing_phrases.memory.the_has_gb_headroom", gpu=r['gpu'], gpu_capacity_gb=number(r['gpu_capacity_gb']), headroom_pct=number(r['headroom_pct']))
        )
        if r.get("gpu_share_note"):  # Apple: the verdict's capacity is the GPU's share, so say so beside it
            parts.append("ℹ️ " + turn.text(r["gpu_share_note"]))
        if r.get("main_lever"):
            parts.append("💡 " + turn.text(r["main_lever"]))
    else:
        parts.append(need)
    if load and not r.get("fit_plan"):  # the stated load's KV cache is part of the check
        parts.append(load)
    shown = sized or r  # the estimate the lead's yes rests on: its KV room, its load and its notes, not the 16-bit one's
    if shown.get("kv_cache_tokens"):
        parts.append(WORDING.say(turn, "sizing_phrases.memory.vllm_budget_leaves_room_for", kv_cache_tokens=number(shown['kv_cache_tokens']), max_concurrency=number(shown['max_concurrency'])))
    team = team_load_line(turn, shown, {**args, "precision": shown["weights_precision"]} if sized else args)
    if team:  # "for our 20 engineers": the speed at that load decides, so it leads
        parts.insert(0, team)
    if turn.ask.reports_oom:  # "it OOMs with this setup": the parts that fill the card, right under the verdict
        parts[1:1] = memory_view.oom_causes(turn, r)
    stated = [card.note] if card and card.note else []  # the user's memory figure, then MoE and FP8 facts that change the reading
    parts[1:1] = stated + moe_lines(turn, r["model_id"]) + fp8_weight_only_lines(turn, r["weights_precision"], args["gpu"])
    parts += memory_view.rule_of_thumb(turn, r)
    parts.append(memory_view.breakdown(turn, shown))
    parts += memory_scopes.scopes_line(turn, shown)
    parts.append(f"_{turn.text(r['unit_note'])}_")
    # The 4 GB-per-1B note answers a quoted rule of thumb (shown above when quoted); otherwise it is noise.
    parts += [f"ℹ️ {turn.text(n)}" for n in shown.get("notes", []) if "4 GB" not in n["en"] and n != shown.get("gpu_share_note")][:3]
    turn.assumptions += [turn.text(a) for a in r.get("assumptions", [])[:5]]
    return "\n\n".join(parts)


def limits(turn: Turn, r: dict) -> str:
    """The largest batch and context that fit, from max_fit's result ``r``, with why the limit is where it is."""
    lead = WORDING.say(turn, "sizing_phrases.limits.on_gb_each_max_batch", num_gpus=r['num_gpus'], gpu=r['gpu'], capacity_gb=number(r['capacity_gb']), max_batch=r['max_batch'], context=number(r['context']), max_context=number(r['max_context']), batch=r['batch'])
    parts = [lead]
    if r.get("limit_reason"):
        parts.append("ℹ️ " + turn.text(r["limit_reason"]))
    parts += [f"ℹ️ {turn.text(n)}" for n in r.get("notes", [])[:2]]
    return "\n\n".join(parts)
