"""Two or more parts at one site: replacing the GPUs in place with another part ("our four A100 boxes → H200"), what
the site must add; or several parts weighed for the same racks ("H20 and 910B servers in 12 kW racks: how many each?").

Every configuration is planned with the same counts, rack budget, PUE and tariff. A swap answers with the difference —
IT and facility load, power per rack and racks, cooling, the yearly bill — and whether the feeds must change; parts
weighed side by side get one line each, the rack's verdict for that part."""

from __future__ import annotations

from advisor.markdown import money, number, table
from advisor.offline.tasks.facility.sources import cite
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from tools.recommend.configs import SERVER_GPUS

WORDING = Wording("facility", "facility_swap")


def answer(turn: Turn, args: dict, new_gpu: str) -> str:
    before = turn.call("plan_facility", args)
    if not before.ok:
        return turn.error(before)
    # the new servers go into the same racks: the budget the old plan used, stated or not
    after = turn.call("plan_facility", {**args, "gpu": new_gpu, "rack_power_kw": args["rack_power_kw"] or before.result["rack_power_kw"]})
    if not after.ok:
        return turn.error(after)
    old, new = before.result, after.result
    cite(turn, old)
    cite(turn, new)
    v = _values(turn, old, new)
    # the bill leads when the bill was asked; otherwise the load
    asked = "bill" if "bill" in turn.ask.facility_asks_now or turn.ask.tco_line == "energy" else "load"
    lead = f"lead.{asked}_{'more' if new['it_kw'] >= old['it_kw'] else 'less'}"
    if not new["servers_per_rack"]:
        feeds = "feeds.beyond_rack"
    elif (new["racks"] or 0) > (old["racks"] or 0):  # fewer per rack: more racks, each with its own feeds
        feeds = "feeds.change"
    else:
        feeds = "feeds.hold"
    cooling = "cooling.changes" if new["cooling"] != old["cooling"] else "cooling.same"
    lines = [_say(turn, feeds, **v), _say(turn, cooling, **v), _say(turn, "bill", **v)]
    return "\n\n".join([_say(turn, lead, **v), "\n".join(f"- {line}" for line in lines), f"**{_say(turn, 'table_title')}**\n\n{_table(turn, [old, new])}"])


def each(turn: Turn, args: dict, gpus: list[str]) -> str:
    """Each part's servers in the same racks: how many a rack takes, at what load, and how many racks."""
    plans = []
    for gpu in gpus:
        outcome = turn.call("plan_facility", {**args, "gpu": gpu})
        if not outcome.ok:
            return turn.error(outcome)
        plans.append(outcome.result)
        cite(turn, outcome.result)
    fits = "each.fleet" if (args["servers"] or 0) > 1 or (args["gpus"] or 0) > SERVER_GPUS else "each.fits"  # a count was stated
    lines = [_say(turn, fits if r["servers_per_rack"] else "each.none_fits", **_plan_values(turn, r)) for r in plans]
    lead = _say(turn, "each.lead", rack=number(plans[0]["rack_power_kw"], 0))
    return "\n\n".join([f"**{lead}**", "\n".join(f"- {line}" for line in lines), f"**{_say(turn, 'each.table_title')}**\n\n{_table(turn, plans)}"])


def _plan_values(turn: Turn, r: dict) -> dict:
    """Every figure of one plan a sentence may name, formatted once; a swap names them per plan, ``old_``/``new_``."""
    return {
        "system": turn.text(r["system"]),
        "server_kw": number(r["server_kw"], 1),
        "it": number(r["it_kw"], 1),
        "per_rack": r["servers_per_rack"],
        "rack_load": number(r["rack_load_kw"], 1),
        "rack": number(r["rack_power_kw"], 0),
        "servers": r["servers"],
        "racks": r["racks"] or "—",
        "cooling": _say(turn, f"cooling_kind.{r['cooling']}"),
        "bill": money(r["cost_per_year"], r["currency"]),
    }


def _table(turn: Turn, plans: list[dict]) -> str:
    """The plans side by side, one column per configuration."""
    rows = [
        [_say(turn, "row.server_kw"), *(number(r["server_kw"], 1) for r in plans)],
        [_say(turn, "row.it_kw"), *(number(r["it_kw"], 1) for r in plans)],
        [_say(turn, "row.facility_kw"), *(number(r["facility_kw"], 1) for r in plans)],
        [_say(turn, "row.per_rack"), *(str(r["servers_per_rack"]) for r in plans)],
        [_say(turn, "row.racks"), *(str(r["racks"] or "—") for r in plans)],
        [_say(turn, "row.rack_load"), *(number(r["rack_load_kw"], 1) for r in plans)],
        [_say(turn, "row.bill"), *(money(r["cost_per_year"], r["currency"]) for r in plans)],
    ]
    return table([_say(turn, "row.item"), *(turn.text(r["system"]) for r in plans)], rows)


def _values(turn: Turn, old: dict, new: dict) -> dict:
    """Both plans' figures (the same racks and servers: the old plan's) and the differences between them."""
    before = _plan_values(turn, old)
    it_change = new["it_kw"] - old["it_kw"]
    return {
        **{f"old_{key}": value for key, value in before.items()},
        **{f"new_{key}": value for key, value in _plan_values(turn, new).items()},
        "servers": before["servers"],
        "rack": before["rack"],
        "it_change": number(abs(it_change), 1),
        "it_percent": number(abs(it_change) / old["it_kw"] * 100, 0) if old["it_kw"] else "—",
        "facility_change": number(abs(new["facility_kw"] - old["facility_kw"]), 1),
        "pue": number(old["facility_kw"] / old["it_kw"], 2) if old["it_kw"] else "—",
        "bill_change": money(abs(new["cost_per_year"] - old["cost_per_year"]), new["currency"]),
        "bill_direction": _say(turn, "more" if new["cost_per_year"] >= old["cost_per_year"] else "less"),
    }


def _say(turn: Turn, key: str, **values) -> str:
    return WORDING.say(turn, key, **values)
