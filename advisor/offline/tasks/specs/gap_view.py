"""A figure asked of a part the catalog has no row for ("Hygon K100 compute?"): the recorded gap first
(knowledge/fact_gaps.yaml: the reference gives no figure, so none is quoted), then the figure asked of each domestic part
that has published ones, from compare_gpus. Wording from the package text.yaml (section gap)."""

from __future__ import annotations

from advisor.nlu.subjects import subject_labels
from advisor.offline.tasks.specs import asked_view
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.fact_gaps import fact_gaps

WORDING = Wording("specs", "gap")


def lead(turn: Turn, parts: frozenset[str]) -> str:
    """The gap of the ``parts`` named (subject ids with no catalog row) for the figures asked, and the known parts' figures
    instead; "" when no figure is asked or no gap is recorded for them."""
    fields = [field for field in turn.ask.spec_fields_asked if field not in asked_view.OWN_LINE]
    gaps = {subject: gap for subject in sorted(parts) if (gap := fact_gaps().of_subject(subject)) is not None}
    if not fields or not gaps:
        return ""
    names = subject_labels({"gpu": frozenset(gaps)}, turn.catalog, turn.language)
    asked = WORDING.say(turn, "and").join(asked_view.WORDING.say(turn, f"name.{field}") for field in fields)
    lines = [WORDING.say(turn, "lead", parts=WORDING.say(turn, "and").join(names), asked=asked)]
    known = list(dict.fromkeys(gpu for gap in gaps.values() for gpu in gap.known_instead))
    outcome = turn.call("compare_gpus", {"gpus": known, "currency": turn.currency}) if known else None
    if outcome is not None and outcome.ok:
        rows = [row["gpu"] for row in outcome.result["rows"]]
        for gpu in rows:
            turn.cite_gpu(gpu)
        figures = WORDING.say(turn, "joiner").join(
            WORDING.say(turn, "item", card=gpu["name"], figure=WORDING.say(turn, "and").join(asked_view.figure(turn, gpu, f) for f in fields))
            for gpu in rows)  # fmt: skip
        lines.append(WORDING.say(turn, "known", figures=figures))
    return "\n\n".join(lines)
