"""Defaults the fit verdict hangs on, said next to it: "fits at 4,096 tokens per sequence (the default); at 32,768 it
needs 31 GB per GPU and does not fit". Which defaults are checked, and at what value, is data (advisor/offline/sensitive_defaults.yaml);
only a default whose probe changes the verdict is said, so a verdict that holds either way stays one line."""

from __future__ import annotations

from pathlib import Path

import yaml

from advisor.labels import VERDICT
from advisor.markdown import number
from advisor.nlu.slot_labels import slot_label
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("memory", "sizing")
SENSITIVE = yaml.safe_load((Path(__file__).parents[2] / "sensitive_defaults.yaml").read_text(encoding="utf-8"))


def verdict_of(result: dict) -> str | None:
    return "does_not_fit" if result.get("fit_plan") else result.get("verdict")


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
        outcome = turn.registry.call("estimate_memory", {k: v for k, v in {**args, field["arg"]: probe}.items() if v is not None})
        if not outcome.ok or verdict_of(outcome.result) == verdict or outcome.result.get("verdict") is None:
            continue
        turn.calls.append(outcome)  # recorded only when its figure is said
        found.append(WORDING.say(turn, "sensitive_default", label=slot_label(field["slot"], turn.language), default=f"{field['default']:,}",
                                 probe=f"{probe:,}", per_gpu=number(outcome.result["total_per_gpu_gb"]),
                                 verdict=turn.t(*VERDICT[outcome.result["verdict"]])))  # fmt: skip
    return found
