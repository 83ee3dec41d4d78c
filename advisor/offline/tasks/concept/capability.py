"""Whether a named GPU has what the question asks (FP8, FP4, NVLink, a PCIe generation, enough memory, its
power, its form factor): the verdict first, then what it means in practice and the comparable cards that have
it. Figures come from the check_capability tool; the sentences from knowledge/capabilities.yaml."""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.tasks.dialogue.render import verdict_of
from advisor.offline.wording import Wording
from advisor.offline.turn import Turn
from knowledge.bilingual import AdvisorError
from knowledge.capabilities import Capability
from tools.capability import CapabilityRequest, check_capability

WORDING = Wording("concept", "capability")
MAX_PREMISES = 2  # "FP8 training over NVLink on 4090s": the two traps lead; more would push the answer off the screen
MAX_GPUS = 4  # "does the H100, A100 or L40S do FP8?": one verdict each; more is a comparison table
VENDOR_CLAIM = "vendor_claim"


def asked(turn: Turn) -> tuple[Capability, list[str]] | None:
    """The capability asked and the GPUs it is asked of. A follow-up naming only another card ("and the H200?")
    keeps the capability of the question it continues."""
    capability = turn.ask.capability
    gpus = turn.entities.gpus or (turn.slots.gpus if turn.reading.follow_up else [])
    if capability is None or not gpus or any(turn.reading.frame.has(slot) for slot in capability.not_with):
        return None
    if turn.ask.comparison_claim is not None:  # "the A100's BF16 is higher than the L40S's, right?": two figures side by side
        return None
    fields = set(turn.ask.spec_fields_asked)
    if fields - {capability.field} and (capability.field in fields or capability.kind == "value"):
        # "is the A100's 600 GB/s NVLink its memory bandwidth?", "does the H100 PCIe card include a ConnectX-7?": other figures
        # are asked beside this one (or beside a value it only neighbours): the spec answer leads with each figure asked
        return None
    if capability.kind == "minimum" and _threshold(turn, capability) is None:
        return None  # "how much memory has the H20?": the spec sheet leads with memory and bandwidth already
    if capability.kind == "value" and len(gpus) > 1:
        return None  # "H100 PCIe vs SXM, how different?": a value of two cards is read side by side in their comparison
    return capability, gpus[:MAX_GPUS]


def _threshold(turn: Turn, capability: Capability) -> float | None:
    return turn.slots.gpu_memory_gb if capability.threshold_slot == "gpu_memory" else None


def answer(turn: Turn) -> str | None:
    """The verdict for each GPU named, or None when the message asks no capability of a named GPU."""
    found = asked(turn)
    if found is None:
        return None
    capability, gpus = found
    threshold = _threshold(turn, capability)
    blocks = []
    for name in gpus:
        outcome = turn.call("check_capability", {"gpu": name, "capability": capability.id, "threshold": threshold})
        if not outcome.ok:
            blocks.append(turn.error(outcome))
            continue
        blocks.append(_verdict(turn, capability, outcome.result))
    return "\n\n".join(blocks)


def asks_of_card_unsized(turn: Turn) -> bool:
    """For a sizing task: a capability the card has or lacks, asked with no model or size named ("can a 4090 run FP4?"
    asks the card; "can a 4090 run a 32B model in FP4?" asks the memory; "is the 4090's 24 GB enough?" is still a
    sizing question)."""
    found = asked(turn)
    sized = any(turn.reading.state.has(slot) for slot in ("model", "size"))
    return not sized and found is not None and found[0].kind == "presence"


# The words routes.yaml take_overs (memory, max_fit, specs) may use: a question that asks a named GPU one capability
# ("does the L40S do FP8?") gets the verdict, not the whole spec sheet or a sizing.
TAKE_OVER_CONDITIONS = {"asks_of_card_unsized": asks_of_card_unsized}
TAKE_OVER_WRITERS = {"capability_verdict": lambda turn: answer(turn) or None}


def claims_a_capability(turn: Turn) -> bool:
    """A vendor claim resting on one capability of a named card ("the H100 runs FP4 5x faster than the A100"): the
    capability is checked first, so the claim is not weighed on general figures."""
    found = asked(turn) if turn.reading.facet.name == VENDOR_CLAIM else None
    return found is not None and found[0].kind == "presence"


def claim_lead(turn: Turn) -> str:
    """A vendor claim about a capability the card it names lacks ("the H100 runs FP4 5× faster") is refuted first."""
    if turn.reading.facet.name != VENDOR_CLAIM:
        return ""
    found = asked(turn)
    if found is None or found[0].kind != "presence":
        return ""
    capability, gpus = found
    outcome = turn.call("check_capability", {"gpu": gpus[0], "capability": capability.id})  # the claim is about the card named first
    if not outcome.ok or outcome.result["verdict"] != "no":
        return ""
    gpu = outcome.result["gpu"]["name"]
    lacks = turn.text(capability.lacks).format(**_values(outcome.result))
    return lacks + " " + WORDING.say(turn, "claim_refuted", label=turn.text(capability.label), gpu=gpu) + "\n\n"


def _values(result: dict) -> dict[str, str]:
    gpu = result["gpu"]
    value = result["value"]
    return {
        "gpu": gpu["name"],
        "architecture": gpu["architecture"],
        "value": number(value) if isinstance(value, int | float) else str(value or ""),
        "unit": result["unit"],
        "threshold": number(result["threshold"]) if result["threshold"] else "",
        "interconnect": gpu["interconnect"],
        "pcie_gen": str(gpu["pcie_gen"] or ""),
        "lane_gbs": number(result["pcie_lane_gbs"]) if result["pcie_lane_gbs"] else "",
        "bf16": number(gpu["bf16_tflops"] or gpu["fp16_tflops"] or 0),
        "form_factor": gpu["form_factor"],
        "memory_type": gpu["memory_type"],
    }


def _verdict(turn: Turn, capability: Capability, result: dict) -> str:
    values = _values(result)
    verdict = result["verdict"]
    if verdict == "figure":
        lead = capability.figure if capability.kind == "minimum" else (capability.has if result["value"] is not None else capability.lacks)
        meaning = capability.meaning_has if result["value"] is not None else capability.meaning_lacks
    elif verdict == "unknown":
        lead, meaning = capability.unknown or capability.lacks, capability.meaning_has
    else:
        lead, meaning = (capability.has, capability.meaning_has) if verdict == "yes" else (capability.lacks, capability.meaning_lacks)
    lines = [turn.text(lead).format(**values)]
    if turn.text(meaning):
        lines.append(turn.text(meaning).format(**values))
    if result["alternatives"]:
        shown = [f"{card['name']} ({_figure(card['value'], capability.unit)})" for card in result["alternatives"]]
        lines.append(WORDING.say(turn, "alternatives", names=turn.t(", ", "、").join(shown)))
    if result["variants"]:
        shown = [f"{card['name']} ({card['value']})" for card in result["variants"]]
        lines.append(WORDING.say(turn, "variants", names=turn.t("; ", "；").join(shown)))
    gpu = result["gpu"]
    turn.cite_gpu(gpu)
    return " ".join(lines[:1]) + ("\n\n" + "\n\n".join(lines[1:]) if lines[1:] else "")


def _figure(value: float | str | None, unit: str) -> str:
    return f"{number(value)} {unit}".strip() if isinstance(value, int | float) else str(value)


def premise_first(turn: Turn, body: str) -> str:
    """A question resting on a capability the named card lacks ("tensor-parallel over NVLink on four 4090s", "FP8
    training on our A100s", "MIG slices of a 4090") is answered with that trap as its first sentence, whatever
    answer follows; a body whose first paragraph already says so is left as it is."""
    leads = _premises(turn, body)
    if not leads:
        return body
    return "\n".join(leads[:MAX_PREMISES]) + "\n\n" + body


def _premises(turn: Turn, body: str) -> list[str]:
    gpus = list(dict.fromkeys(turn.entities.gpus))[:MAX_GPUS]
    relied_on = [c for c in turn.ask.capabilities_named if c.premise is not None and not _already_said(turn, body, c)] if gpus else []
    found = []
    for capability in relied_on:
        for name in gpus:
            if not _lacks(turn, name, capability):
                continue  # only a broken premise is a call worth showing: "does the H100 do FP8?" needs no second check
            outcome = turn.call("check_capability", {"gpu": name, "capability": capability.id})
            if outcome.ok and outcome.result["verdict"] == "no":
                found.append(turn.text(capability.premise).format(**_values(outcome.result)))
    return found


def _lacks(turn: Turn, name: str, capability: Capability) -> bool:
    try:
        return check_capability(CapabilityRequest(gpu=name, capability=capability.id), turn.catalog).verdict == "no"
    except (AdvisorError, ValueError):
        return False  # a card the catalog does not know: the answer below says so


def _already_said(turn: Turn, body: str, capability: Capability) -> bool:
    """The answer's first sentence (past a bold title line) names the capability with a negation; a card that
    says so three sentences in ("…, but no FP8") has not led with it."""
    opening = verdict_of(body).lower()
    negations = WORDING.entry("premise_stated")[turn.language if turn.language in ("en", "zh") else "en"]
    return turn.text(capability.label).lower() in opening and any(word in opening for word in negations)
