"""For a buyer in mainland China: each named part that cannot be bought new there, with the rule behind it.

The status and the rule are the catalog's (each part's figures judged by knowledge/export_rules.yaml when the catalog
loads), never marked by hand; the wording is this package's text.yaml, section ``mainland``. An answer that names parts to such a
buyer says this right after its verdict and before the parts' figures, so no part is listed and only then declared unbuyable."""

from __future__ import annotations

from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from tools.gpu_specs import CHINA_BUYABLE

WORDING = Wording("recommend", "mainland")


def china_buyer(turn: Turn) -> bool:
    """A mainland buyer: the region or language says so, or the budget is in yuan."""
    budget = turn.slots.budget
    return turn.china_buyer or (budget is not None and budget.currency == "CNY")


def blocked_lines(turn: Turn, rows: list[dict]) -> list[str]:
    """``rows``: catalog GPUs as dicts (as ``compare_gpus`` returns them). One line per part a mainland buyer cannot buy new, then
    what the answer below holds for; nothing for any other buyer or when every part is sold there."""
    if not china_buyer(turn):
        return []
    lines = [WORDING.say(turn, "blocked", name=r["name"], rule=turn.t(r["china_rule"]["label_en"], r["china_rule"]["label_zh"])) + _edition(turn, r["id"])
             for r in rows if r.get("china") not in CHINA_BUYABLE and r.get("china_rule")]  # fmt: skip
    return [*lines, WORDING.say(turn, "then")] if lines else []


def _edition(turn: Turn, gpu_id: str) -> str:
    """The China-market edition sold in place of a blocked part ("RTX 4090" → "RTX 4090 D"), from the catalog; "" when none."""
    edition = next((g for g in turn.catalog.gpus if gpu_id in g.china_edition_of and g.china in CHINA_BUYABLE), None)
    return WORDING.say(turn, "edition", edition=edition.name) if edition else ""


def blocked_list(turn: Turn, rows: list[dict]) -> list[str]:
    """The same lines as one Markdown list, ready to stand as a paragraph of an answer; empty when none."""
    lines = blocked_lines(turn, rows)
    return ["\n".join(f"- ⚠️ {line}" for line in lines)] if lines else []


def blocked_of(turn: Turn, gpu_ids: list[str]) -> list[str]:
    """``blocked_list`` for parts named by catalog id."""
    if not china_buyer(turn):
        return []
    return blocked_list(turn, [turn.catalog.gpu(gpu).model_dump() for gpu in dict.fromkeys(gpu_ids)])
