"""For a buyer in mainland China: each named part that cannot be bought new there, with the rule behind it.

The status and the rule are the catalog's (each part's figures judged by knowledge/export_rules.yaml when the catalog
loads), never marked by hand; the wording is this package's text.yaml, section ``mainland``. An answer that compares parts for such a
buyer says this after its verdict and the verdict's reasoning, before the table of figures, in both languages: the answer
first, then what cannot be bought, then the figures (specs.py, compare.py)."""

from __future__ import annotations

from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from tools.gpu_specs import CHINA_BUYABLE, CHINA_USED_ONLY

WORDING = Wording("recommend", "mainland")


def china_buyer(turn: Turn) -> bool:
    """A mainland buyer: the region or language says so, or the budget is in yuan."""
    budget = turn.slots.budget
    return turn.china_buyer or (budget is not None and budget.currency == "CNY")


def mainland_purchase(turn: Turn) -> bool:
    """Cards to be bought in mainland China, said so (a mainland region or a yuan budget), not rented: the parts sold
    there are the answer, a named part that is not is replaced by what is (``sold_instead``)."""
    budget = turn.slots.budget
    return not turn.ask.renting and (turn.slots.region == "cn" or (budget is not None and budget.currency == "CNY"))


def replaces_named(turn: Turn) -> bool:
    """A mainland purchase naming a part not sold new there ("in Shenzhen, how many H100s?"): the recommendation answers,
    sized on the parts sold there, not a sizing of the barred part."""
    return mainland_purchase(turn) and bool(barred(turn, [turn.catalog.gpu(gpu).id for gpu in turn.slots.gpus if turn.catalog.find_gpu(gpu)]))


def barred(turn: Turn, gpu_ids: list[str]) -> list[str]:
    """The parts of ``gpu_ids`` that cannot be bought new in mainland China (the catalog's status)."""
    return [gpu for gpu in gpu_ids if turn.catalog.gpu(gpu).china not in CHINA_BUYABLE]


def sold_instead(turn: Turn, gpu_ids: list[str]) -> list[str] | None:
    """The named parts a mainland buyer can buy: those sold there as named, each other one replaced by its China edition
    (catalog ``china_edition_of``: H100 → H20); None, every part sold there, when none is left."""
    blocked = set(barred(turn, gpu_ids))
    kept = [gpu for gpu in gpu_ids if gpu not in blocked]
    editions = [g.id for g in turn.catalog.gpus if g.china in CHINA_BUYABLE and blocked & set(g.china_edition_of)]
    return list(dict.fromkeys(kept + editions)) or None


def blocked_lines(turn: Turn, rows: list[dict], then: str = "then") -> list[str]:
    """``rows``: catalog GPUs as dicts (as ``compare_gpus`` returns them). One line per part a mainland buyer cannot buy new, then
    what the answer below holds for (``then``: a key of this section); nothing for any other buyer or when every part is sold there."""
    if not china_buyer(turn):
        return []
    blocked = [r for r in rows if r.get("china") not in CHINA_BUYABLE and r.get("china_rule")]
    lines = [WORDING.say(turn, "blocked", name=r["name"], rule=turn.t(r["china_rule"]["label_en"], r["china_rule"]["label_zh"])) + _edition(turn, r["id"])
             for r in blocked]  # fmt: skip
    # a part whose installed units are resold there is bought used in the mainland: the comparison holds for it as it is
    abroad = any(r.get("china") not in CHINA_USED_ONLY for r in blocked)
    return [*lines, *([WORDING.say(turn, then)] if abroad else [])] if lines else []


def _edition(turn: Turn, gpu_id: str) -> str:
    """The China-market edition sold in place of a blocked part ("RTX 4090" → "RTX 4090 D"), from the catalog; "" when none."""
    edition = next((g for g in turn.catalog.gpus if gpu_id in g.china_edition_of and g.china in CHINA_BUYABLE), None)
    return WORDING.say(turn, "edition", edition=edition.name) if edition else ""


def blocked_list(turn: Turn, rows: list[dict], then: str = "then") -> list[str]:
    """The same lines as one Markdown list, ready to stand as a paragraph of an answer; empty when none."""
    lines = blocked_lines(turn, rows, then)
    return ["\n".join(f"- ⚠️ {line}" for line in lines)] if lines else []


def blocked_of(turn: Turn, gpu_ids: list[str], then: str = "then") -> list[str]:
    """``blocked_list`` for parts named by catalog id."""
    if not china_buyer(turn):
        return []
    return blocked_list(turn, [turn.catalog.gpu(gpu).model_dump() for gpu in dict.fromkeys(gpu_ids)], then)
