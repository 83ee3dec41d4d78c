"""GPU spec look-ups and side-by-side comparisons, straight from the catalog with its sources. plan.py names the cards
and the tool arguments, the tool looks them up, render.py words the result (the package text.yaml, section specs); this
module runs the three in order, after the take-overs that answer another way (the rental market, a row per vendor, a
sized comparison), whose order and conditions are routes.yaml take_overs.spec_sheet (run wherever this answer runs; the
specs task's own take-overs, take_overs.specs, are the router's). The answer's parts, what was asked first, are the rows
of routes.yaml sections.spec_sheet (SECTIONS), with conditions over the compare_gpus result and the Ask."""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.offline.tasks.recommend import mainland, price_view, vendor_rows
from advisor.offline.tasks.recommend import plan as recommend_plan
from advisor.offline.tasks.specs import asked_view, compare, plan, render, stated_view
from advisor.offline.tasks.tco import plan as tco_plan
from advisor.offline.tasks.tco import rent_prices
from advisor.offline.takeovers import Sections, TakeOvers
from advisor.offline.turn import Turn


def answer(turn: Turn, value_first: bool = False) -> str:
    """``value_first``: the question weighs the named cards against each other ("H100 now, H200, or wait for
    B200?"), so what a unit of compute and of bandwidth costs on each leads, whatever objective was read."""
    taken = TAKE_OVERS.answer(turn)  # take_overs.spec_sheet: the rental market, a filtered list, a row per vendor, a sized comparison
    if taken is not None:
        return taken
    names = plan.gpus_named(turn)
    outcome = turn.call("compare_gpus", plan.compare_args(turn, names))
    if not outcome.ok:
        return turn.error(outcome)
    lead, table = render.comparison(turn, outcome.result, value_first)
    return SECTIONS.write(Sheet(turn, outcome.result, lead, table), turn.ask)


@dataclass
class Sheet:
    """What the sections of one spec answer read: the turn, compare_gpus' result, its verdict lead and table, and the dated
    figures of a machine price shown (cards, hosts, quotes), aged with the rest."""

    turn: Turn
    result: dict
    lead: str
    table: str
    machine_dates: list = field(default_factory=list)

    @property
    def rows(self) -> list[dict]:
        return [r["gpu"] for r in self.result["rows"]]


def _machine_price(sheet: Sheet) -> str:
    priced, sheet.machine_dates = price_view.machine_prices(sheet.turn, [gpu["id"] for gpu in sheet.rows])
    return priced


SECTIONS = Sections(
    "spec_sheet",
    conditions={"one_card": lambda sheet: len(sheet.rows) == 1, "several_cards": lambda sheet: len(sheet.rows) > 1,
                "objective_leads": lambda sheet: (sheet.turn.slots.objective or "") in render.OBJECTIVE_FIELDS,  # "which has more vram?"
                "asks_machine_price": lambda sheet: plan.asks_machine_price(sheet.turn),
                # parts weighed or priced, not one card's figures
                "weighed": lambda sheet: len(sheet.rows) > 1 or sheet.turn.ask.buying or sheet.turn.ask.asks_price},
    writers={"stated_figure": lambda sheet: stated_view.lead(sheet.turn, sheet.rows[0]),
             "comparison_claim": lambda sheet: asked_view.claim(sheet.turn, sheet.rows),
             "figure_asked": lambda sheet: _one_card(sheet.turn, sheet.rows[0]),
             "figures_compared": lambda sheet: asked_view.across(sheet.turn, sheet.rows),
             "machine_price": _machine_price, "verdict": lambda sheet: sheet.lead,
             "mainland_blocked": lambda sheet: mainland.blocked_list(sheet.turn, sheet.rows),
             "table": lambda sheet: sheet.table,
             "stale_prices": lambda sheet: render.stale_prices(sheet.turn, sheet.result, sheet.machine_dates)},
)  # fmt: skip


def asked_of_one(turn: Turn) -> str:
    """The figure asked of the one card this message names, its line alone ("is the L40S passive or active?" before the card on
    passively cooled cards); "" when no catalog figure is asked of one card."""
    names = list(dict.fromkeys(turn.entities.gpus))
    if not turn.ask.spec_fields_asked or len(names) != 1:
        return ""
    outcome = turn.call("compare_gpus", plan.compare_args(turn, names))
    if not outcome.ok:
        return ""
    gpu = outcome.result["rows"][0]["gpu"]
    turn.cite_gpu(gpu)
    return _one_card(turn, gpu)


def _one_card(turn: Turn, gpu: dict) -> str:
    """The figures asked of one card; a launch price the catalog lacks is given as the dated estimate of one card."""
    args = plan.launch_estimate_args(turn, gpu)
    priced = turn.call("estimate_server_price", args) if args else None
    estimate = priced.result["card"] if priced is not None and priced.ok else None
    for cited in (estimate or {}).get("sources", []):  # "title — url (date)": the pages the estimate is derived from
        title, _, rest = cited.partition(" — ")
        turn.cite(f"estimate:{gpu['id']}:{title}", title, urls=[rest.split(" ")[0]] if rest else [])
    return asked_view.one_card(turn, gpu, estimate)


def _filtered_list(turn: Turn) -> str:
    outcome = turn.call("list_gpus", plan.list_args(turn))
    if not outcome.ok:
        return turn.error(outcome)
    return render.filtered_list(turn, outcome.result)


# The words routes.yaml take_overs.spec_sheet may use; the order and the pairing are the table's.
TAKE_OVERS = TakeOvers(
    "spec_sheet",
    conditions={"asks_rent_price": tco_plan.asks_rent_price, "names_gpus": lambda turn: bool(plan.gpus_named(turn)),
                "compares_vendors": recommend_plan.compares_vendors},
    writers={"rent_prices": rent_prices.answer, "filtered_list": _filtered_list, "vendor_rows": vendor_rows.answer,
             "sized_comparison": compare.route},
)  # fmt: skip
