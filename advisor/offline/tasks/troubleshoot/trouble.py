"""Troubleshooting answers: ranked diagnoses with evidence and concrete actions.

Evidence from a pasted log is quoted; a problem only described is answered "from your description" with the
facts that were used, never with the user's sentence echoed back. An out-of-memory report with a stated setup is
checked against the memory estimator: a run that cannot fit at all says so, with the figure, and what does fit.
plan.py gives the diagnosis and the checks their arguments, render.py words the results (the package text.yaml,
section trouble); this module runs them in order and picks which causes lead.
"""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.tasks.concept.knowledge import related
from advisor.offline.tasks.specs.compare_view import tool_method
from advisor.offline.tasks.troubleshoot import plan, render
from advisor.offline.tasks.troubleshoot.render import WORDING, why_figures  # noqa: F401  (the router asks why_figures here)
from advisor.offline.turn import Turn
from advisor.offline.workload import TASK_LABEL
from tools.memory.refit import COUNTS
from tools.troubleshoot.diagnose import CHECKLIST_FAMILY

SHOWN_FINDINGS = 3
# A cause scored below this share of the leading one is not worth the reader's time next to it (the network
# between nodes when the user runs one NVLink node): it is left out rather than ranked third.
RELEVANT_SHARE = 0.25
MODEL_STATES = ("weights", "gradients", "optimizer_states")  # what a training step holds before any activation
# Adapter methods tried on the same card when the method run does not fit, cheapest in memory last.
SMALLER_METHODS = ("lora", "qlora")
# When weights, gradients and optimizer states alone overflow the card, the steps that shrink activations cannot help.
ACTIVATION_LEVERS = ("batch", "recompute", "context")


def answer(turn: Turn) -> str:
    setup = plan.stated_setup(turn)
    outcome = turn.call("diagnose", plan.diagnose_args(turn, setup))
    if not outcome.ok:
        return turn.error(outcome)
    result = outcome.result
    notes = [f"ℹ️ {turn.text(n)}" for n in result["notes"]]
    check = _measured_check(turn, result)
    findings = _suspects_first(result["findings"], check)
    verdicts = [turn.text(asked["verdict"]) for asked in result.get("answers", [])]
    done = _said_done(turn, result)  # "already rebooted twice": acknowledged by a checklist too, never suggested back
    # A check the newest message reports ("dmesg shows no Xid") is evidence even when no ranked cause is left to
    # lead: what it rules out is said first, so a follow-up never gets the first checklist again.
    # A message on its own ("ibstat looks fine, what next?") counts too: with no cause ranked, nothing else says it.
    reported = [] if check else [turn.text(fact["meaning"]) for fact in _new_facts(turn, result, alone_too=True)]
    if not findings:  # the tool's last note asks for logs; the checklist ends with that
        return render.general_checklist(turn, notes[:-1], [*verdicts, *reported], render.procedure_blocks(turn, result.get("answers", [])), done)
    fresh = None if check else _new_in_thread(turn, findings)
    if fresh:  # the newest message's evidence re-ranks the thread: the cause it shows leads
        findings = [fresh, *(f for f in findings if f is not fresh)]
    elif not check:  # "already raised num_workers": a cause whose every fix was applied gives way to the next one
        findings = _untried_first(findings, set(turn.slots.already_tried) | set(result.get("tried", [])))
    # A fact the newest message states in words ("always node 3", "only hours in") has re-ranked the causes already:
    # what it means is said first, so a follow-up is not answered with the first answer again.
    told = [] if check or fresh else _new_facts(turn, result)
    top = findings[0]
    for finding in (f for f in findings if f.get("assumption")):  # a cut-off no source gives judged the figures: said as an assumption
        turn.assume(finding["assumption"]["en"], finding["assumption"]["zh"])
    findings = [f for f in findings if f is fresh or f["score"] >= RELEVANT_SHARE * top["score"]]
    if top["family"] == CHECKLIST_FAMILY:
        return render.family_checklist(turn, top, notes, [*verdicts, *reported], done)
    fit, futile, fits = _fit_check(turn) if top["family"] == "oom" else ("", (), False)
    # When the stated setup fits by the estimate, "the model states exceed the card" is not why it failed: the
    # lead names the next cause (a longer sample, a bigger evaluation batch) instead.
    lead_index = 1 if fits and len(top["causes"]) > 1 else 0
    diagnosed = result.get("stated", {})  # the diagnosis drops a stated field its text contradicts ("one node" of several)
    # the setup's own values read as stated, except a figure the diagnosis revised ("from 1 node to 4": the job is 4 nodes)
    stated = {**{k: v for k, v in diagnosed.items() if k not in result.get("assumed", [])},
              **{k: v for k, v in setup.items() if k in diagnosed and not _revised(v, diagnosed[k])}}
    # The question asked is answered before anything else; a follow-up opens with what its new finding means.
    if fresh:
        lead = render.say(turn, "thread_new_finding", title=turn.text(top["title"]), meaning=turn.text(fresh["new_finding"]))
    elif told:
        meaning = render.say(turn, "facts_meaning_joiner").join(turn.text(fact["meaning"]) for fact in told)
        cause = turn.text(top["causes"][lead_index]) if top["causes"] else ""
        lead = render.say(turn, "thread_new_fact", meaning=meaning, title=turn.text(top["title"]), cause=cause)
    elif raised := _newly_stated(turn, result, top):  # "batch is already 1": the setting that moved this cause up
        cause = turn.text(top["causes"][lead_index]) if top["causes"] else ""
        facts = render.say(turn, "facts_joiner").join(render.fact(turn, field, value) for field, value in raised.items())
        lead = render.say(turn, "thread_new_setting", facts=facts, title=turn.text(top["title"]), cause=cause)
    else:
        lead = render.lead_line(turn, top, check, stated, lead_index)
    # "is that my problem?": yes or no, first, unless a question the diagnosis answered already says it ("is it hardware?")
    if check is None and turn.ask.asks_yes_no and turn.ask.thread_messages > 1 and not verdicts:
        lead = render.say(turn, f"yes_no.{_yes_or_no(turn, result, top)}") + lead
    verdict_led = fresh is None and check is None and render.rule_verdict(turn, top, stated) is not None  # its causes are all still unsaid
    if verdict_led and any(asked.get("from_cause") for asked in result.get("answers", [])):
        # The question asked was answered by this cause's own verdict ("replace it?" on Xid 64): not said twice.
        lead, verdict_led = render.say(turn, "lead_cause", title=turn.text(top["title"]), cause=turn.text(top["causes"][0])).strip(), False
    swap = _swap_verdict(turn, setup, top, findings)
    parts = [*verdicts, swap + lead if swap else lead]
    tried = plan.already_tried(turn, result.get("tried", []), stated)
    # Acknowledged: what the user said was done, and a setting at its limit only where it holds back a step a shown
    # cause would suggest (ZeRO-3 on PCIe is the cause there, not a lever already pulled).
    said = set(turn.slots.already_tried) | set(result.get("tried", []))
    withheld = {action.get("lever") for finding in findings[:SHOWN_FINDINGS] for action in finding["actions"]}
    acknowledged = [lever for lever in tried if lever in said or lever in withheld]
    parts += _acknowledged(turn, acknowledged)  # what the user already did, before any reading or step
    parts += [turn.text(reading) for reading in result.get("readings", [])]
    parts += render.procedure_blocks(turn, result.get("answers", []))
    if all(render.only_described(f) for f in findings[:SHOWN_FINDINGS]):  # one statement of what was read, not one per cause
        parts.append(render.from_description(turn, top, stated))
    if top["family"] == "oom":
        parts.append(fit)
    if (cooling := plan.unverified_cooling(turn)) and any(f["family"] == "thermal" for f in findings[:SHOWN_FINDINGS]):
        parts.append(render.unverified_cooling(turn, **cooling))
    if check and check.get("verdict") == "as_expected":
        parts.append(render.say(turn, "measured_fine_next"))
    else:
        for rank, finding in enumerate(findings[:SHOWN_FINDINGS], start=1):
            said = lead_index if rank == 1 and check is None and fresh is None and not verdict_led else None
            parts.append(render.cause_block(turn, rank, finding, [*tried, *futile], said_in_lead=said))
    if check and "formula" in check:
        parts.append(render.say(turn, "measured_formula", formula=check["formula"], low=number(check["expected_low_gbs"]),
                          high=number(check["expected_high_gbs"]), source=check["sources"][0]))  # fmt: skip
    hint = result.get("memory_hint")
    if hint and hint.get("capacity_gb"):
        parts.append(render.memory_tie_in(turn, hint))
    related(turn, turn.text(top["title"]))
    return "\n\n".join([part for part in parts if part] + notes)


def _said_done(turn: Turn, diagnosis: dict) -> list[str]:
    """The line acknowledging the levers the user says were pulled already, for an answer that ranks no cause."""
    said = set(turn.slots.already_tried) | set(diagnosis.get("tried", []))
    return _acknowledged(turn, [lever for lever in plan.already_tried(turn, diagnosis.get("tried", [])) if lever in said])


def _untried_first(findings: list[dict], tried: set[str]) -> list[dict]:
    """The causes in their order, except that one whose every fix pulls a lever the user says was pulled already goes
    after the others: the fix applied and the symptom stayed, so the next cause is the likelier one now."""
    def applied(finding: dict) -> bool:
        levers = {action.get("lever") for action in finding["actions"] if action.get("lever")}
        return bool(levers) and levers <= tried

    return sorted(findings, key=applied)  # stable: the order among the rest is the diagnosis's


def _acknowledged(turn: Turn, levers: list[str]) -> list[str]:
    if not levers:
        return []
    names = turn.t(", ", "、").join(render.say(turn, f"lever_name.{lever}") for lever in levers)
    return [WORDING.say(turn, "trouble_phrases.answer.already_tried_the_steps_below", names=names)]


def _yes_or_no(turn: Turn, diagnosis: dict, top: dict) -> str:
    """The answer to a yes/no question in a problem thread ("is it the missing NVLink?"): yes when what the newest
    message names (a setting it states, evidence in its lines) raises the leading cause, or when it names nothing ("is
    that my problem?" asks of the cause just given); otherwise what it names is not what leads."""
    lines = turn.ask.message_lines
    newest = {field for field, line in diagnosis.get("stated_at", {}).items() if line <= lines}
    shown = [finding for finding in diagnosis.get("findings", []) if any(item["line"] <= lines for item in finding.get("evidence", []))]
    if newest & set(top.get("stated", {})) or any(finding["rule_id"] == top["rule_id"] for finding in shown):
        return "yes_named"
    return "not_first" if newest or shown or _names_a_cause(turn) else "yes_leading"


def _names_a_cause(turn: Turn) -> bool:
    """The newest message names something of its own beyond the yes/no question ("is it the data loader then?")."""
    return bool(turn.ask.named) or bool(turn.reading.frame.names())


def _swap_verdict(turn: Turn, setup: dict, top: dict, findings: list[dict]) -> str:
    """A problem thread's follow-up that puts another card in place of the thread's ("should we buy H100s instead?"):
    whether that card removes the leading cause the thread's own card had (the diagnosis run again with the old card),
    said first; "" when the message swaps no card."""
    if turn.ask.thread_messages < 2 or not turn.reading.follow_up or not turn.reading.frame.has("gpu"):
        return ""
    old = turn.catalog.find_gpu(next(iter(turn.reading.before.all("gpu")), "") or "")
    new = turn.catalog.find_gpu(turn.slots.gpus[0]) if turn.slots.gpus else None
    if old is None or new is None or old.id == new.id:
        return ""
    before = {**setup, "gpu_memory_gb": old.memory_gb, "interconnect": "pcie" if old.nvlink_gbs is None else None}
    outcome = turn.call("diagnose", {"text": plan.reported(turn), "language": turn.language, "max_findings": 5,
                                     "setup": {key: value for key, value in before.items() if value} or None})  # fmt: skip
    if not outcome.ok or not outcome.result["findings"]:
        return ""
    was = outcome.result["findings"][0]
    if was["rule_id"] == top["rule_id"]:
        return render.say(turn, "swap.keeps", new=new.name, cause=turn.text(top["title"]))
    return render.say(turn, "swap.removes", new=new.name, old=old.name, cause=turn.text(was["title"]))


def _measured_check(turn: Turn, diagnosis: dict) -> dict | None:
    """A measured busbw judged against what the stated NICs or card should give; None when nothing was measured.
    A setup too thin to judge (no NICs for a multi-node test) is not an error: the lead asks for what is missing."""
    measured = diagnosis.get("measured", {}).get("busbw_gbs")
    if not measured:
        return None
    args = plan.measured_args(turn, diagnosis, measured)
    outcome = turn.call("check_measured", args)
    if not outcome.ok:
        error = outcome.error or {}
        return {"missing": turn.t(error.get("en", ""), error.get("zh", "")), "measured_gbs": measured}
    return outcome.result


def _new_in_thread(turn: Turn, findings: list[dict]) -> dict | None:
    """In a thread, the cause whose evidence the newest message brings (NCCL's NET/Socket line, a stack dump that
    shows one rank elsewhere), when its rule says what that evidence means; the thread is read newest first, so
    that evidence sits in the newest message's lines."""
    if turn.ask.thread_messages < 2:
        return None
    newest_lines = turn.ask.message_lines
    return next(
        (f for f in findings if f.get("new_finding") and any(item["line"] <= newest_lines for item in f["evidence"])), None
    )


def _new_facts(turn: Turn, diagnosis: dict, alone_too: bool = False) -> list[dict]:
    """The facts stated in words in the newest message of a thread (the report is read newest first, so they sit in
    its first lines); none for a first message, whose facts are part of the description, unless ``alone_too`` (an
    answer that ranks no cause, where the description says nothing of them)."""
    if turn.ask.thread_messages < 2 and not alone_too:
        return []
    return [fact for fact in diagnosis.get("facts", []) if fact["line"] <= turn.ask.message_lines]


def _newly_stated(turn: Turn, diagnosis: dict, top: dict) -> dict:
    """Settings the newest message of a thread states (read from its own lines) that raised the leading cause."""
    if turn.ask.thread_messages < 2:
        return {}
    lines = diagnosis.get("stated_at", {})
    return {field: value for field, value in top.get("stated", {}).items() if lines.get(field, turn.ask.message_lines + 1) <= turn.ask.message_lines}


def _suspects_first(findings: list[dict], check: dict | None) -> list[dict]:
    """The causes the measured shortfall points to lead, in the check's order; the rest keep the diagnosis's order."""
    suspects = (check or {}).get("suspects") or []
    order = {rule_id: index for index, rule_id in enumerate(suspects)}
    return sorted(findings, key=lambda f: order.get(f["rule_id"], len(order)))


def _fit_check(turn: Turn) -> tuple[str, tuple[str, ...], bool]:
    """An OOM with a stated model, training method and card: does it fit at all, and if not, what does; with the
    levers that cannot help (all those that shrink activations, when the model states alone overflow the card), and
    whether the setup as stated fits by the estimate. A job on several GPUs is checked as it runs: with the ZeRO
    stage or FSDP named, or ZeRO-3 for a full fine-tune that names none, and the recomputation stated."""
    job = plan.fit_setup(turn)
    if job is None:
        return "", (), False
    task, count, zero, full, base = job.task, job.count, job.zero, job.full, job.base
    stated = _estimate(turn, {**base, "method": tool_method(task), "num_gpus": count, "zero_stage": zero})
    if stated is None:
        return "", (), False
    label = turn.t(*TASK_LABEL[task])
    spread = render.say(turn, "spread_sharded", stage=zero, count=count) if count and zero else ""
    figures = {"task": label, "model": turn.text(stated["model_label"]), "capacity": number(stated["gpu_capacity_gb"]),
               "total": number(stated["total_per_gpu_gb"]), "card": stated["gpu"], "spread": spread}  # fmt: skip
    states = sum(item["value"] for item in stated["items"] if item["key"] in MODEL_STATES)
    if stated["verdict"] != "does_not_fit":
        return render.say(turn, "fits_by_estimate", **figures), (), True
    if states < stated["gpu_capacity_gb"]:
        return render.say(turn, "over_by_activations", states=number(states), **figures), (), False
    params = {"states": number(states), "per_param": number(states * (count or 1) / stated["params_b"] if zero == 3 else states / stated["params_b"])}
    lines = [render.say(turn, "cannot_fit_sharded" if spread else "cannot_fit", count=count, **params, **figures)]
    lines.append(render.say(turn, "what_fits"))
    # The method the user runs comes first: the same job sharded across more of the same cards, then the adapters. The
    # count is the memory tool's fit plan, the one every answer gives (ZeRO-3/FSDP with activation checkpointing).
    same = (stated.get("fit_plan") or {}).get("same_card") or {}
    if same.get("count"):  # held at micro-batch 1 when a micro-batch above 1 is what keeps the sharded job off the cards
        sharded = {"total_per_gpu_gb": same["per_gpu_gb"], "verdict": "fits"}
        key, steps = ("fits_sharded_micro", same["grad_accumulation"]) if same.get("micro_batch") else ("fits_sharded", None)
        lines.append("- " + render.say(turn, key, count=same["count"], task=label, batch=steps, **render.fit_of(turn, sharded)))
    else:
        lines.append("- " + render.say(turn, "nothing_sharded", count=COUNTS[-1]))
    for method in _lighter_methods(task, full):
        option = _estimate(turn, {**base, "method": method, "precision": None})
        if option and option["verdict"] != "does_not_fit":
            lines.append("- " + render.say(turn, "fits_with_method", task=turn.t(*TASK_LABEL[method]), **render.fit_of(turn, option)))
    return "\n".join(lines), ACTIVATION_LEVERS, False


def _lighter_methods(task: str, full: bool) -> tuple[str, ...]:
    """The adapter methods lighter than the one that ran out of memory, tried on the same card: both after a full
    fine-tune, QLoRA's 4-bit base after LoRA (what an engineer tries before buying more cards), none after QLoRA."""
    if full:
        return SMALLER_METHODS
    return SMALLER_METHODS[SMALLER_METHODS.index(task) + 1 :] if task in SMALLER_METHODS else ()


def _estimate(turn: Turn, args: dict) -> dict | None:
    outcome = turn.call("estimate_memory", args)
    return outcome.result if outcome.ok and outcome.result.get("verdict") else None


def _revised(said: object, diagnosed: object) -> bool:
    """A number the diagnosis changed from the one it was given."""
    numbers = (int, float)
    return isinstance(said, numbers) and not isinstance(said, bool) and isinstance(diagnosed, numbers) and float(said) != float(diagnosed)
