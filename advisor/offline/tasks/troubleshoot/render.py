"""The troubleshooting answer's sentences from the diagnosis and the checks: the lead (a verdict on a measured figure,
the rule's verdict on a stated one, or the likeliest cause), the checklists, the ranked causes with their evidence and
steps, the facts read from a description, the memory tie-in. Wording from the package text.yaml (section trouble)."""

from __future__ import annotations

from string import Formatter

from advisor.labels import PARSED, PARSED_UNITS, VERDICT
from advisor.markdown import code_span, number
from advisor.offline.tasks.concept.knowledge import related
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("troubleshoot", "trouble")


def lead_line(turn: Turn, top: dict, check: dict | None, stated: dict, cause_index: int = 0) -> str:
    """The first sentence answers: the verdict on a measured figure, or the likeliest cause and why, never a title alone."""
    if check and "missing" in check:
        return say(turn, "measured_missing", measured=number(check["measured_gbs"]), need=check["missing"], cause=turn.text(top["title"]))
    if check:
        figures = {
            "measured": number(check["measured_gbs"]), "low": number(check["expected_low_gbs"]),
            "high": number(check["expected_high_gbs"]), "times": number(check["times_below"]),
            "percent": number(check["percent_of_expected"]), "cause": turn.text(top["title"]),
            "setup": say(turn, f"measured_path.{check['path']}", nics=check.get("nics_per_node"),
                          rate=number(check.get("nic_gbps") or 0), gpu=check.get("gpu"), gen=check.get("pcie_gen"),
                          raw=number(check["raw_gbs"])),
        }  # fmt: skip
        lead = say(turn, f"measured_verdict.{check['verdict']}", **figures)
        if check.get("shape") in WORDING.data["measured_shape"]:
            lead += turn.t(" ", "") + say(turn, f"measured_shape.{check['shape']}", one_low=number(check.get("one_nic_low_gbs") or 0),
                               one_high=number(check.get("one_nic_high_gbs") or 0))  # fmt: skip
        return lead
    verdict = rule_verdict(turn, top, stated)
    if verdict:
        return verdict
    cause = turn.text(top["causes"][cause_index]) if top["causes"] else ""
    return say(turn, "lead_cause", title=turn.text(top["title"]), cause=cause).strip()


def rule_verdict(turn: Turn, top: dict, stated: dict) -> str | None:
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


def family_checklist(turn: Turn, finding: dict, notes: list[str], verdicts: list[str] = (), tried: list[str] = ()) -> str:
    """A problem named only by its family ("loss goes NaN"): the checks that tell its usual causes apart, in order,
    then which output to send, by command; a yes/no question asked is answered first all the same, and what the user
    already did (``tried``) is acknowledged before the checks."""
    lines = [say(turn, "checklist_lead", family=turn.text(finding["title"]))]
    lines += [turn.text(cause) for cause in finding["causes"][:1]]
    steps = _steps(turn, finding["actions"])
    ask = say(turn, f"checklist_ask.{finding['rule_id']}")
    related(turn, turn.text(finding["title"]))
    return "\n\n".join([*verdicts, turn.t(" ", "").join(lines), *tried, steps, ask, *notes])


def procedure_blocks(turn: Turn, answers: list[dict]) -> list[str]:
    """The steps that settle a question asked (the card-or-slot swap test), each procedure once even when two
    questions share it ("is it the card? should I replace it?")."""
    shown: dict[str, str] = {}
    for asked in answers:
        if asked.get("procedure"):
            title = turn.text(asked["procedure_title"])
            shown.setdefault(title, f"**{title}**\n" + _steps(turn, asked["procedure"]))
    return list(shown.values())


def general_checklist(turn: Turn, notes: list[str], verdicts: list[str] = (), procedures: list[str] = (), tried: list[str] = ()) -> str:
    """Nothing matched, not even a symptom family: a first triage everyone can run, then the outputs to send; a
    yes/no question asked is answered first, with the procedure that settles it."""
    entry = WORDING.data["general_checklist"]
    steps = _steps(turn, entry["steps"])
    lead = say(turn, "general_checklist.lead")
    return "\n\n".join([*verdicts, lead, *tried, *procedures, steps, say(turn, "general_checklist.ask"), *notes])


def _steps(turn: Turn, actions: list[dict]) -> str:
    return "\n".join(
        f"{index}. {turn.text(action)}" + (f"\n   `{action['command']}`" if action.get("command") else "")
        for index, action in enumerate(actions, start=1)
    )


def say(turn: Turn, key: str, **values) -> str:
    return WORDING.say(turn, key, **values)


# Setup fields the plan reads from the catalog row of the stated card (plan._card_facts), not from the user's words.
CATALOG_FACTS = ("card", "bf16", "fp8", "cooling")


def only_described(finding: dict) -> bool:
    return all(item.get("source") == "description" for item in finding["evidence"])


def from_description(turn: Turn, finding: dict, setup: dict) -> str:
    """The facts the diagnosis used, in words: the figures read from the description and the setup stated."""
    facts = []
    parsed = finding["parsed"]
    if "gpu_util_low_percent" in parsed:
        facts.append(say(turn, "fact.gpu_util_range", low=number(parsed["gpu_util_low_percent"]), high=number(parsed["gpu_util_high_percent"])))
    elif "gpu_util_percent" in parsed:
        facts.append(say(turn, "fact.gpu_util_percent", value=number(parsed["gpu_util_percent"])))
    # what the catalog says of the card is no part of the description: said only where it ranked this cause
    stated = {**{k: v for k, v in setup.items() if k not in CATALOG_FACTS}, **finding.get("stated", {})}
    stated.pop("card", None)
    if "temperature_c" in parsed and "temperature_c" not in stated:
        facts.append(say(turn, "fact.temperature_c", value=number(parsed["temperature_c"])))
    facts += [fact(turn, field, value) for field, value in stated.items()]
    if not facts:
        facts.append(say(turn, "fact.symptom_only"))
    return say(turn, "from_description", facts=say(turn, "facts_joiner").join(facts))


def unverified_cooling(turn: Turn, card: str, cooling: str) -> str:
    """A heat problem on a card whose cooling the catalog cannot confirm: said as unverified, with how to tell."""
    return say(turn, "unverified_cooling", card=card, listed=say(turn, f"value_name.cooling.{cooling}"))


def fact(turn: Turn, field: str, value: object) -> str:
    """One stated setup fact in words: a named workload or link by its name, a figure as a number."""
    names = WORDING.data["value_name"].get(field, {})
    key = str(int(value)) if isinstance(value, bool) else f"{value:g}" if isinstance(value, float) else value  # a yes/no field: "1" / "0"
    shown = say(turn, f"value_name.{field}.{key}") if key in names else value
    return say(turn, f"fact.{field}", value=number(shown) if isinstance(shown, int | float) else shown)


def fit_of(turn: Turn, result: dict) -> dict:
    return {"total": number(result["total_per_gpu_gb"]), "verdict": turn.t(*VERDICT[result["verdict"]])}


def _parsed(turn: Turn, field: str, value: object) -> str:
    """"asked for 2,048 MiB", not "requested_mib=2048.0": a value read from the log, in words."""
    unit = next((suffix for suffix in PARSED_UNITS if field.endswith(suffix)), "")
    name = turn.t(*PARSED[field]) if field in PARSED else field.removesuffix(unit).replace("_", " ")
    shown = number(value) if isinstance(value, (int, float)) else str(value)
    return f"{name} {shown}{PARSED_UNITS.get(unit, '')}"


def cause_block(turn: Turn, rank: int, finding: dict, tried: list[str] = (), said_in_lead: int | None = None) -> str:
    """One ranked cause with its evidence and steps; ``said_in_lead``: which of its causes the lead said already."""
    evidence = finding["evidence"][0] if finding["evidence"] and not only_described(finding) else None
    lines = [f"**{rank}. {turn.text(finding['title'])}**"]
    if finding.get("stated"):
        facts = [fact(turn, field, value) for field, value in finding["stated"].items()]
        lines.append(say(turn, "raised_by", facts=say(turn, "facts_joiner").join(facts)))
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


def memory_tie_in(turn: Turn, hint: dict) -> str:
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
    facts = [fact(turn, field, value) for field, value in top.get("stated", {}).items() if field not in assumed]
    return {
        "title": turn.text(top["title"]),
        "cause": turn.text(top["causes"][0]) if top["causes"] else "",
        "facts": say(turn, "facts_joiner").join(facts),
    }
