"""Troubleshooting answers: ranked diagnoses with evidence and concrete actions.

Evidence from a pasted log is quoted; a problem only described is answered "from your description" with the
facts that were used, never with the user's sentence echoed back. An out-of-memory report with a stated setup is
checked against the memory estimator: a run that cannot fit at all says so, with the figure, and what does fit.
"""

from __future__ import annotations

from string import Formatter

from advisor.labels import PARSED, PARSED_UNITS, VERDICT
from advisor.markdown import code_span, number
from advisor.offline.tasks.specs.compare_view import tool_method
from advisor.offline.tasks.concept.knowledge import related
from advisor.offline.wording import Wording
from advisor.offline.workload import TASK_LABEL, model_of, precision_for, task_of, zero_stage_of
from advisor.offline.turn import Turn
from tools.troubleshoot.diagnose import CHECKLIST_FAMILY

SHOWN_FINDINGS = 3
# A cause scored below this share of the leading one is not worth the reader's time next to it (the network
# between nodes when the user runs one NVLink node): it is left out rather than ranked third.
RELEVANT_SHARE = 0.25
WORDING = Wording("troubleshoot", "trouble")
TRAINING_TASKS = ("full_finetune", "pretrain", "lora", "qlora")
MODEL_STATES = ("weights", "gradients", "optimizer_states")  # what a training step holds before any activation
# Adapter methods tried on the same card when a full fine-tune does not fit, cheapest in memory last.
SMALLER_METHODS = ("lora", "qlora")
# GPU counts tried for ZeRO-3 across the stated card: the counts servers are sold with, then whole 8-GPU servers.
SHARDED_COUNTS = (2, 4, 8, 16, 32, 64)
# When weights, gradients and optimizer states alone overflow the card, the steps that shrink activations cannot help.
ACTIVATION_LEVERS = ("batch", "recompute", "context")


def answer(turn: Turn) -> str:
    model = turn.slots.models[0] if turn.slots.models else None
    turn.entities.mark(*turn.entities.frame.names())  # every value stated reaches the diagnosis, as text
    setup = _stated_setup(turn)
    outcome = turn.call(
        "diagnose",
        {"text": _reported(turn), "language": turn.language, "model": model, "max_findings": 5, "setup": setup or None},
    )
    if not outcome.ok:
        return turn.error(outcome)
    result = outcome.result
    notes = [f"ℹ️ {turn.text(n)}" for n in result["notes"]]
    check = _measured_check(turn, result)
    findings = _suspects_first(result["findings"], check)
    verdicts = [turn.text(asked["verdict"]) for asked in result.get("answers", [])]
    if not findings:  # the tool's last note asks for logs; the checklist ends with that
        return _general_checklist(turn, notes[:-1], verdicts, _procedures(turn, result.get("answers", [])))
    fresh = None if check else _new_in_thread(turn, findings)
    if fresh:  # the newest message's evidence re-ranks the thread: the cause it shows leads
        findings = [fresh, *(f for f in findings if f is not fresh)]
    # A fact the newest message states in words ("always node 3", "only hours in") has re-ranked the causes already:
    # what it means is said first, so a follow-up is not answered with the first answer again.
    told = [] if check or fresh else _new_facts(turn, result)
    top = findings[0]
    findings = [f for f in findings if f is fresh or f["score"] >= RELEVANT_SHARE * top["score"]]
    if top["family"] == CHECKLIST_FAMILY:
        return _family_checklist(turn, top, notes, verdicts)
    fit, futile, fits = _fit_check(turn) if top["family"] == "oom" else ("", (), False)
    # When the stated setup fits by the estimate, "the model states exceed the card" is not why it failed: the
    # lead names the next cause (a longer sample, a bigger evaluation batch) instead.
    lead_index = 1 if fits and len(top["causes"]) > 1 else 0
    diagnosed = result.get("stated", {})  # the diagnosis drops a stated field its text contradicts ("one node" of several)
    stated = {**{k: v for k, v in diagnosed.items() if k not in result.get("assumed", [])}, **{k: v for k, v in setup.items() if k in diagnosed}}
    # The question asked is answered before anything else; a follow-up opens with what its new finding means.
    if fresh:
        lead = _say(turn, "thread_new_finding", title=turn.text(top["title"]), meaning=turn.text(fresh["new_finding"]))
    elif told:
        meaning = _say(turn, "facts_meaning_joiner").join(turn.text(fact["meaning"]) for fact in told)
        cause = turn.text(top["causes"][lead_index]) if top["causes"] else ""
        lead = _say(turn, "thread_new_fact", meaning=meaning, title=turn.text(top["title"]), cause=cause)
    elif raised := _newly_stated(turn, result, top):  # "batch is already 1": the setting that moved this cause up
        cause = turn.text(top["causes"][lead_index]) if top["causes"] else ""
        facts = _say(turn, "facts_joiner").join(_fact(turn, field, value) for field, value in raised.items())
        lead = _say(turn, "thread_new_setting", facts=facts, title=turn.text(top["title"]), cause=cause)
    else:
        lead = _lead(turn, top, check, stated, lead_index)
    verdict_led = fresh is None and check is None and _verdict(turn, top, stated) is not None  # its causes are all still unsaid
    if verdict_led and any(asked.get("from_cause") for asked in result.get("answers", [])):
        # The question asked was answered by this cause's own verdict ("replace it?" on Xid 64): not said twice.
        lead, verdict_led = _say(turn, "lead_cause", title=turn.text(top["title"]), cause=turn.text(top["causes"][0])).strip(), False
    parts = [*verdicts, lead]
    tried = _already_tried(turn, result.get("tried", []), stated)
    # Acknowledged: what the user said was done, and a setting at its limit only where it holds back a step a shown
    # cause would suggest (ZeRO-3 on PCIe is the cause there, not a lever already pulled).
    said = set(turn.slots.already_tried) | set(result.get("tried", []))
    withheld = {action.get("lever") for finding in findings[:SHOWN_FINDINGS] for action in finding["actions"]}
    acknowledged = [lever for lever in tried if lever in said or lever in withheld]
    if acknowledged:  # what the user already did is acknowledged before any reading or step
        names = turn.t(", ", "、").join(_say(turn, f"lever_name.{lever}") for lever in acknowledged)
        parts.append(WORDING.say(turn, "trouble_phrases.answer.already_tried_the_steps_below", names=names))
    parts += [turn.text(reading) for reading in result.get("readings", [])]
    parts += _procedures(turn, result.get("answers", []))
    if all(_described(f) for f in findings[:SHOWN_FINDINGS]):  # one statement of what was read, not one per cause
        parts.append(_from_description(turn, top, stated))
    if top["family"] == "oom":
        parts.append(fit)
    if check and check.get("verdict") == "as_expected":
        parts.append(_say(turn, "measured_fine_next"))
    else:
        for rank, finding in enumerate(findings[:SHOWN_FINDINGS], start=1):
            said = lead_index if rank == 1 and check is None and fresh is None and not verdict_led else None
            parts.append(_finding(turn, rank, finding, [*tried, *futile], said_in_lead=said))
    if check and "formula" in check:
        parts.append(_say(turn, "measured_formula", formula=check["formula"], low=number(check["expected_low_gbs"]),
                          high=number(check["expected_high_gbs"]), source=check["sources"][0]))  # fmt: skip
    hint = result.get("memory_hint")
    if hint and hint.get("capacity_gb"):
        parts.append(_memory_tie_in(turn, hint))
    related(turn, turn.text(top["title"]))
    return "\n\n".join([part for part in parts if part] + notes)



def _measured_check(turn: Turn, diagnosis: dict) -> dict | None:
    """A measured busbw judged against what the stated NICs or card should give; None when nothing was measured.
    A setup too thin to judge (no NICs for a multi-node test) is not an error: the lead asks for what is missing."""
    measured = diagnosis.get("measured", {}).get("busbw_gbs")
    if not measured:
        return None
    stated, s = diagnosis.get("stated", {}), turn.slots
    args = {
        "measured_busbw_gbs": measured, "nodes": _whole(stated.get("nodes")), "nics_per_node": _whole(stated.get("nics_per_node")),
        "nic_gbps": stated.get("nic_gbps"), "gpu": s.gpus[0] if s.gpus else None, "gpus_per_node": s.gpu_count,
        "interconnect": stated.get("interconnect") if stated.get("interconnect") in ("pcie", "nvlink") else None,
    }  # fmt: skip
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


def _new_facts(turn: Turn, diagnosis: dict) -> list[dict]:
    """The facts stated in words in the newest message of a thread (the report is read newest first, so they sit in
    its first lines); none for a first message, whose facts are part of the description."""
    if turn.ask.thread_messages < 2:
        return []
    return [fact for fact in diagnosis.get("facts", []) if fact["line"] <= turn.ask.message_lines]


def _newly_stated(turn: Turn, diagnosis: dict, top: dict) -> dict:
    """Settings the newest message of a thread states (read from its own lines) that raised the leading cause."""
    if turn.ask.thread_messages < 2:
        return {}
    lines = diagnosis.get("stated_at", {})
    return {field: value for field, value in top.get("stated", {}).items() if lines.get(field, turn.ask.message_lines + 1) <= turn.ask.message_lines}


def _whole(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) and value >= 1 else None


def _suspects_first(findings: list[dict], check: dict | None) -> list[dict]:
    """The causes the measured shortfall points to lead, in the check's order; the rest keep the diagnosis's order."""
    suspects = (check or {}).get("suspects") or []
    order = {rule_id: index for index, rule_id in enumerate(suspects)}
    return sorted(findings, key=lambda f: order.get(f["rule_id"], len(order)))


def _lead(turn: Turn, top: dict, check: dict | None, stated: dict, cause_index: int = 0) -> str:
    """The first sentence answers: the verdict on a measured figure, or the likeliest cause and why, never a title alone."""
    if check and "missing" in check:
        return _say(turn, "measured_missing", measured=number(check["measured_gbs"]), need=check["missing"], cause=turn.text(top["title"]))
    if check:
        figures = {
            "measured": number(check["measured_gbs"]), "low": number(check["expected_low_gbs"]),
            "high": number(check["expected_high_gbs"]), "times": number(check["times_below"]),
            "percent": number(check["percent_of_expected"]), "cause": turn.text(top["title"]),
            "setup": _say(turn, f"measured_path.{check['path']}", nics=check.get("nics_per_node"),
                          rate=number(check.get("nic_gbps") or 0), gpu=check.get("gpu"), gen=check.get("pcie_gen"),
                          raw=number(check["raw_gbs"])),
        }  # fmt: skip
        lead = _say(turn, f"measured_verdict.{check['verdict']}", **figures)
        if check.get("shape") in WORDING.data["measured_shape"]:
            lead += turn.t(" ", "") + _say(turn, f"measured_shape.{check['shape']}", one_low=number(check.get("one_nic_low_gbs") or 0),
                               one_high=number(check.get("one_nic_high_gbs") or 0))  # fmt: skip
        return lead
    verdict = _verdict(turn, top, stated)
    if verdict:
        return verdict
    cause = turn.text(top["causes"][cause_index]) if top["causes"] else ""
    return _say(turn, "lead_cause", title=turn.text(top["title"]), cause=cause).strip()


def _verdict(turn: Turn, top: dict, stated: dict) -> str | None:
    """The rule's verdict on a figure the user stated ("25% MFU is low: …") or a field its log line shows
    ("SeqNum=1: the first collective"), when every figure it names is known."""
    if not top.get("verdict"):
        return None
    text = turn.text(top["verdict"])
    names = {name for _, name, _, _ in Formatter().parse(text) if name}
    known = {**top.get("parsed", {}), **stated}
    if not names <= known.keys() or names & turn.judged:
        return None
    return text.format(**{name: number(known[name]) if isinstance(known[name], int | float) else known[name] for name in names})


def _family_checklist(turn: Turn, finding: dict, notes: list[str], verdicts: list[str] = ()) -> str:
    """A problem named only by its family ("loss goes NaN"): the checks that tell its usual causes apart, in order,
    then which output to send, by command; a yes/no question asked is answered first all the same."""
    lines = [_say(turn, "checklist_lead", family=turn.text(finding["title"]))]
    lines += [turn.text(cause) for cause in finding["causes"][:1]]
    steps = _steps(turn, finding["actions"])
    ask = _say(turn, f"checklist_ask.{finding['rule_id']}")
    related(turn, turn.text(finding["title"]))
    return "\n\n".join([*verdicts, turn.t(" ", "").join(lines), steps, ask, *notes])


def _procedures(turn: Turn, answers: list[dict]) -> list[str]:
    """The steps that settle a question asked (the card-or-slot swap test), each procedure once even when two
    questions share it ("is it the card? should I replace it?")."""
    shown: dict[str, str] = {}
    for asked in answers:
        if asked.get("procedure"):
            title = turn.text(asked["procedure_title"])
            shown.setdefault(title, f"**{title}**\n" + _steps(turn, asked["procedure"]))
    return list(shown.values())


def _general_checklist(turn: Turn, notes: list[str], verdicts: list[str] = (), procedures: list[str] = ()) -> str:
    """Nothing matched, not even a symptom family: a first triage everyone can run, then the outputs to send; a
    yes/no question asked is answered first, with the procedure that settles it."""
    entry = WORDING.data["general_checklist"]
    steps = _steps(turn, entry["steps"])
    lead = _say(turn, "general_checklist.lead")
    return "\n\n".join([*verdicts, lead, *procedures, steps, _say(turn, "general_checklist.ask"), *notes])


def _steps(turn: Turn, actions: list[dict]) -> str:
    return "\n".join(
        f"{index}. {turn.text(action)}" + (f"\n   `{action['command']}`" if action.get("command") else "")
        for index, action in enumerate(actions, start=1)
    )


def _say(turn: Turn, key: str, **values) -> str:
    return WORDING.say(turn, key, **values)


def _stated_setup(turn: Turn) -> dict:
    """What the user said about the job, as the diagnosis ranks causes by it (nodes, GPUs, batch, model, card)."""
    s = turn.slots
    capacity = s.gpu_memory_gb
    if capacity is None and s.gpus:
        gpu = turn.catalog.find_gpu(s.gpus[0])
        capacity = gpu.memory_gb if gpu else None
    workloads = s.workloads
    sharding = next((value for value in turn.slots.frame.all("sharding") if value != "offload"), None)
    setup = {
        "nodes": s.servers, "gpus": s.gpu_count, "batch": s.batch_size, "params_b": s.params / 1e9 if s.params else None,
        "gpu_memory_gb": capacity, "method": workloads[0] if workloads else None,
        "mfu_percent": round(s.mfu * 100, 1) if s.mfu else None, "phase": turn.ask.problem_phase,
        "interconnect": _pcie_only(turn), "sharding": sharding, "tensor_parallel": s.tp,
    }  # fmt: skip
    return {field: value for field, value in setup.items() if value}


def _pcie_only(turn: Turn) -> str | None:
    """'pcie' when the catalog gives the stated card no GPU-to-GPU link at all (L40S, RTX 4090, L20): every collective
    then crosses PCIe. A card sold with NVLink in some form says nothing here: the text may still say "PCIe"."""
    gpu = turn.catalog.find_gpu(turn.slots.gpus[0]) if turn.slots.gpus else None
    return "pcie" if gpu is not None and gpu.nvlink_gbs is None else None


def _described(finding: dict) -> bool:
    return all(item.get("source") == "description" for item in finding["evidence"])


def _from_description(turn: Turn, finding: dict, setup: dict) -> str:
    """The facts the diagnosis used, in words: the figures read from the description and the setup stated."""
    facts = []
    parsed = finding["parsed"]
    if "gpu_util_low_percent" in parsed:
        facts.append(_say(turn, "fact.gpu_util_range", low=number(parsed["gpu_util_low_percent"]), high=number(parsed["gpu_util_high_percent"])))
    elif "gpu_util_percent" in parsed:
        facts.append(_say(turn, "fact.gpu_util_percent", value=number(parsed["gpu_util_percent"])))
    stated = {**setup, **finding.get("stated", {})}
    if "temperature_c" in parsed and "temperature_c" not in stated:
        facts.append(_say(turn, "fact.temperature_c", value=number(parsed["temperature_c"])))
    facts += [_fact(turn, field, value) for field, value in stated.items()]
    if not facts:
        facts.append(_say(turn, "fact.symptom_only"))
    return _say(turn, "from_description", facts=_say(turn, "facts_joiner").join(facts))


def _fact(turn: Turn, field: str, value: object) -> str:
    """One stated setup fact in words: a named workload or link by its name, a figure as a number."""
    names = WORDING.data["value_name"].get(field, {})
    key = f"{value:g}" if isinstance(value, float) else value  # a yes/no field arrives as 1.0 / 0.0: named "1" / "0"
    shown = _say(turn, f"value_name.{field}.{key}") if key in names else value
    return _say(turn, f"fact.{field}", value=number(shown) if isinstance(shown, int | float) else shown)


def _fit_check(turn: Turn) -> tuple[str, tuple[str, ...], bool]:
    """An OOM with a stated model, training method and card: does it fit at all, and if not, what does; with the
    levers that cannot help (all those that shrink activations, when the model states alone overflow the card), and
    whether the setup as stated fits by the estimate. A job on several GPUs is checked as it runs: with the ZeRO
    stage or FSDP named, or ZeRO-3 for a full fine-tune that names none, and the recomputation stated."""
    model = model_of(turn)
    task, named = task_of(turn)
    s = turn.slots
    card = {"gpu": s.gpus[0]} if s.gpus else {"gpu_memory_gb": s.gpu_memory_gb} if s.gpu_memory_gb else None
    if model is None or card is None or not named or task not in TRAINING_TASKS:
        return "", (), False
    count = s.gpu_count if (s.gpu_count or 1) > 1 else None
    full = tool_method(task) == "full"
    zero = (zero_stage_of(turn) or (3 if full else None)) if count else None
    base = {"model": model, "mode": "training", "precision": precision_for(turn, task), "batch": s.batch_size,
            "context": s.context_length, "recompute": s.recompute, **card}  # fmt: skip
    stated = _estimate(turn, {**base, "method": tool_method(task), "num_gpus": count, "zero_stage": zero})
    if stated is None:
        return "", (), False
    label = turn.t(*TASK_LABEL[task])
    spread = _say(turn, "spread_sharded", stage=zero, count=count) if count and zero else ""
    figures = {"task": label, "model": turn.text(stated["model_label"]), "capacity": number(stated["gpu_capacity_gb"]),
               "total": number(stated["total_per_gpu_gb"]), "card": stated["gpu"], "spread": spread}  # fmt: skip
    states = sum(item["value"] for item in stated["items"] if item["key"] in MODEL_STATES)
    if stated["verdict"] != "does_not_fit":
        return _say(turn, "fits_by_estimate", **figures), (), True
    if states < stated["gpu_capacity_gb"]:
        return _say(turn, "over_by_activations", states=number(states), **figures), (), False
    params = {"states": number(states), "per_param": number(states * (count or 1) / stated["params_b"] if zero == 3 else states / stated["params_b"])}
    lines = [_say(turn, "cannot_fit_sharded" if spread else "cannot_fit", count=count, **params, **figures)]
    lines.append(_say(turn, "what_fits"))
    # The method the user runs comes first: the same job sharded across more of the same cards, then the adapters.
    for more in (c for c in SHARDED_COUNTS if c > (count or 1)):
        option = _estimate(turn, {**base, "method": tool_method(task), "zero_stage": 3, "num_gpus": more})
        if option and option["verdict"] != "does_not_fit":
            lines.append("- " + _say(turn, "fits_sharded", count=more, task=label, **_fit_of(turn, option)))
            break
    else:
        lines.append("- " + _say(turn, "nothing_sharded", count=SHARDED_COUNTS[-1]))
    if full:
        for method in SMALLER_METHODS:
            option = _estimate(turn, {**base, "method": method, "precision": None})
            if option and option["verdict"] != "does_not_fit":
                lines.append("- " + _say(turn, "fits_with_method", task=turn.t(*TASK_LABEL[method]), **_fit_of(turn, option)))
    return "\n".join(lines), ACTIVATION_LEVERS, False


def _estimate(turn: Turn, args: dict) -> dict | None:
    outcome = turn.call("estimate_memory", args)
    return outcome.result if outcome.ok and outcome.result.get("verdict") else None


def _fit_of(turn: Turn, result: dict) -> dict:
    return {"total": number(result["total_per_gpu_gb"]), "verdict": turn.t(*VERDICT[result["verdict"]])}


def _reported(turn: Turn) -> str:
    """The whole report: a detail added later ("only on 2 nodes") or a second pasted log is read with the
    thread it belongs to, newest first so evidence line numbers point into what was just written."""
    thread = turn.reading.task_messages
    if thread[-1:] != [turn.message]:
        return turn.message
    return "\n".join(reversed(thread))


# Settings stated at the end of their range: nothing is left to pull, whether or not the user calls it a fix.
AT_LIMIT = {("batch", 1), ("sharding", "zero-3"), ("sharding", "fsdp"), ("recompute", "full")}


def _already_tried(turn: Turn, said_tried: list[str] = (), setup: dict | None = None) -> list[str]:
    """Levers pulled already, in the order the rules' actions list them: changes the user names as tried (the
    already_tried slot), those the diagnosis read from the thread's words (``said_tried``: "we already raised the
    timeout"), settings a later message of the thread says were changed ("batch size already down to 2"), and settings
    stated at their limit (micro-batch 1, ZeRO-3, full recomputation) in the message or in the diagnosis's ``setup``,
    which no step can pull further."""
    pulled = set(turn.slots.already_tried) | set(said_tried)
    pulled |= {lever for slot, value in AT_LIMIT if (setup or {}).get(slot) == value and (lever := _lever(slot, value))}
    frame = turn.reading.frame
    detail = turn.ask.thread_messages >= 2  # the first message states the setup, a later one what was changed
    for slot in frame.names():
        for value in frame.all(slot):
            lever = _lever(slot, value)
            if lever and (detail or (slot, value) in AT_LIMIT or lever == "offload"):
                pulled.add(lever)
                turn.slots.mark(slot)
    return [lever for lever in WORDING.data["lever_name"] if lever in pulled]


def _lever(slot: str, value: object) -> str | None:
    """Offload is written among the ZeRO stages but is a lever of its own; "no checkpointing" pulls none."""
    if slot == "sharding":
        return "offload" if value == "offload" else "sharding"
    if slot == "recompute" and value == "none":
        return None
    return slot if slot in ("batch", "recompute", "precision") else None


def _parsed(turn: Turn, field: str, value: object) -> str:
    """"asked for 2,048 MiB", not "requested_mib=2048.0": a value read from the log, in words."""
    unit = next((suffix for suffix in PARSED_UNITS if field.endswith(suffix)), "")
    name = turn.t(*PARSED[field]) if field in PARSED else field.removesuffix(unit).replace("_", " ")
    shown = number(value) if isinstance(value, (int, float)) else str(value)
    return f"{name} {shown}{PARSED_UNITS.get(unit, '')}"


def _finding(turn: Turn, rank: int, finding: dict, tried: list[str] = (), said_in_lead: int | None = None) -> str:
    """One ranked cause with its evidence and steps; ``said_in_lead``: which of its causes the lead said already."""
    evidence = finding["evidence"][0] if finding["evidence"] and not _described(finding) else None
    lines = [f"**{rank}. {turn.text(finding['title'])}**"]
    if finding.get("stated"):
        facts = [_fact(turn, field, value) for field, value in finding["stated"].items()]
        lines.append(_say(turn, "raised_by", facts=_say(turn, "facts_joiner").join(facts)))
    if evidence:
        lines.append(WORDING.say(turn, "trouble_phrases.finding.evidence_line", line=evidence['line']) + " " + code_span(evidence["excerpt"][:200]))
    if finding["parsed"] and evidence:  # figures read from a description are listed once, as stated facts
        values = "; ".join(_parsed(turn, field, value) for field, value in list(finding["parsed"].items())[:6])
        lines.append(WORDING.say(turn, "trouble_phrases.finding.read_from_the_log") + values)
    causes = [cause for index, cause in enumerate(finding["causes"][:3]) if index != said_in_lead]
    if causes:
        lines.append(WORDING.say(turn, "trouble_phrases.finding.likely_causes") + turn.t(" ", "").join(turn.text(c) for c in causes))
    for action in [a for a in finding["actions"] if a.get("lever") not in tried][:4]:
        step = turn.text(action)
        command = action.get("command")
        lines.append(f"- {step}" + (f"\n  `{command}`" if command else ""))
    return "\n".join(lines)


def _memory_tie_in(turn: Turn, hint: dict) -> str:
    requested = hint.get("requested_gib")
    capacity = hint["capacity_gb"]
    asked = WORDING.say(turn, "memory_tie_in_request", requested=number(requested, 2)) if requested else ""
    text = WORDING.say(turn, "memory_tie_in_total", capacity=number(capacity), asked=asked)
    text += " " + WORDING.say(turn, "trouble_phrases.memory_tie_in.ask_me_how_much_memory")
    return text


def why_figures(turn: Turn) -> dict | None:
    """Why the leading cause of this turn's diagnosis leads: its title, the first of its causes, and the facts of
    the thread that raised it (stated setup and facts said in words), for followup.why; None without a diagnosis."""
    diagnosis = next((call.result for call in reversed(turn.calls) if call.name == "diagnose" and call.ok and call.result), None)
    if not diagnosis or not diagnosis.get("findings"):
        return None
    top = diagnosis["findings"][0]
    assumed = set(diagnosis.get("assumed", []))
    facts = [_fact(turn, field, value) for field, value in top.get("stated", {}).items() if field not in assumed]
    return {
        "title": turn.text(top["title"]),
        "cause": turn.text(top["causes"][0]) if top["causes"] else "",
        "facts": _say(turn, "facts_joiner").join(facts),
    }
