"""Defaults the fit verdict hangs on, said next to it: "fits at 4,096 tokens per sequence (the default); at 32,768 it
needs 31 GB per GPU and does not fit". Which defaults are checked, and at what value, is data (advisor/offline/sensitive_defaults.yaml);
only a default whose probe changes the verdict is said, so a verdict that holds either way stays one line."""

from __future__ import annotations

from pathlib import Path

import yaml

from advisor.contract import ToolCall
from advisor.labels import VERDICT
from advisor.markdown import number
from advisor.nlu.slot_schema import slot_label
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("memory", "sizing")
TOOL = "estimate_memory"  # the estimate probed
SENSITIVE = yaml.safe_load((Path(__file__).parents[2] / "sensitive_defaults.yaml").read_text(encoding="utf-8"))


def verdict_of(result: dict) -> str | None:
    return "does_not_fit" if result.get("fit_plan") else result.get("verdict")


def is_probe(call: ToolCall, of: ToolCall) -> bool:
    """Whether tool call ``call`` is a probe of the estimate ``of``: both estimate_memory, with the same arguments but one
    default ``of`` left unset put at its probe value. A probe's figure is said beside the verdict; it is never the
    answer's own estimate (a follow-up sets its re-run beside that one, not beside the probe)."""
    if call.name != TOOL or of.name != TOOL:
        return False
    args, of = call.args, of.args
    for field in SENSITIVE:
        probe = field["probe"].get(of.get("mode"))
        if probe is not None and of.get(field["arg"]) is None and args.get(field["arg"]) == probe:
            if {k: v for k, v in args.items() if k != field["arg"]} == {k: v for k, v in of.items() if k != field["arg"] and v is not None}:
                return True
    return False


def lines(turn: Turn, args: dict, result: dict) -> list[str]:
    """One line per unstated value whose probe flips the verdict of ``result`` (estimate_memory for ``args``)."""
    verdict = verdict_of(result)
    if verdict is None or not (args.get("gpu") or args.get("gpu_memory_gb")):
        return []
    found = []
    for field in SENSITIVE:
        probe = field["probe"].get(args["mode"])
        if probe is None or args.get(field["arg"]) is not None:
            continue
        outcome = turn.registry.call(TOOL, {k: v for k, v in {**args, field["arg"]: probe}.items() if v is not None})
        if not outcome.ok or verdict_of(outcome.result) == verdict or outcome.result.get("verdict") is None:
            continue
        turn.calls.append(outcome)  # recorded only when its figure is said
        found.append(WORDING.say(turn, "sensitive_default", label=slot_label(field["slot"], turn.language), default=field["default"],
                                 probe=probe, per_gpu=number(outcome.result["total_per_gpu_gb"]),
                                 verdict=turn.t(*VERDICT[outcome.result["verdict"]])))  # fmt: skip
    return found
