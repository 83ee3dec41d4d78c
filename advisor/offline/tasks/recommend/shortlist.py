"""The user's own shortlist ("quotes for 2x H100, 4x L40S or 1x H200 — which for our 32B service?"): each named
configuration evaluated for the stated job by the comparison (memory, speed, whole price, caveats) and one picked;
the catalog's ranking is not the answer. The options come from ``Ask.candidate_configs``."""

from __future__ import annotations

from advisor.offline.tasks.specs import compare
from advisor.offline.turn import Turn
from advisor.offline.workload import model_of


def answer(turn: Turn) -> str:
    return compare.answer(turn, list(turn.ask.candidate_configs), model_of(turn))
