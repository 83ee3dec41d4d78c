"""Replacing the GPUs in place with another part ("our four A100 boxes → H200"): what the site must add.

Both configurations are planned with the same counts, rack budget, PUE and tariff; the answer is the difference —
IT and facility load, power per rack and racks, cooling, and the yearly bill — and whether the feeds must change."""

from __future__ import annotations

from advisor.markdown import money, number, table
from advisor.offline.tasks.facility.sources import cite
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

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
    rows = [
        [_say(turn, "row.server_kw"), number(old["server_kw"], 1), number(new["server_kw"], 1)],
        [_say(turn, "row.it_kw"), number(old["it_kw"], 1), number(new["it_kw"], 1)],
        [_say(turn, "row.facility_kw"), number(old["facility_kw"], 1), number(new["facility_kw"], 1)],
        [_say(turn, "row.per_rack"), str(old["servers_per_rack"]), str(new["servers_per_rack"])],
        [_say(turn, "row.racks"), str(old["racks"] or "—"), str(new["racks"] or "—")],
        [_say(turn, "row.rack_load"), number(old["rack_load_kw"], 1), number(new["rack_load_kw"], 1)],
        [_say(turn, "row.bill"), money(old["cost_per_year"], old["currency"]), money(new["cost_per_year"], new["currency"])],
    ]
    details = table([_say(turn, "row.item"), turn.text(old["system"]), turn.text(new["system"])], rows)
    return "\n\n".join([_say(turn, lead, **v), "\n".join(f"- {line}" for line in lines), f"**{_say(turn, 'table_title')}**\n\n{details}"])


def _values(turn: Turn, old: dict, new: dict) -> dict:
    """Every figure a sentence may name, formatted once."""
    it_change = new["it_kw"] - old["it_kw"]
    return {
        "servers": old["servers"],
        "old_system": turn.text(old["system"]),
        "new_system": turn.text(new["system"]),
        "old_it": number(old["it_kw"], 1),
        "new_it": number(new["it_kw"], 1),
        "it_change": number(abs(it_change), 1),
        "it_percent": number(abs(it_change) / old["it_kw"] * 100, 0) if old["it_kw"] else "—",
        "facility_change": number(abs(new["facility_kw"] - old["facility_kw"]), 1),
        "pue": number(old["facility_kw"] / old["it_kw"], 2) if old["it_kw"] else "—",
        "old_server_kw": number(old["server_kw"], 1),
        "new_server_kw": number(new["server_kw"], 1),
        "rack": number(old["rack_power_kw"], 0),
        "old_rack_load": number(old["rack_load_kw"], 1),
        "new_rack_load": number(new["rack_load_kw"], 1),
        "old_racks": old["racks"] or "—",
        "new_racks": new["racks"] or "—",
        "old_cooling": _say(turn, f"cooling_kind.{old['cooling']}"),
        "new_cooling": _say(turn, f"cooling_kind.{new['cooling']}"),
        "old_bill": money(old["cost_per_year"], old["currency"]),
        "new_bill": money(new["cost_per_year"], new["currency"]),
        "bill_change": money(abs(new["cost_per_year"] - old["cost_per_year"]), new["currency"]),
        "bill_direction": _say(turn, "more" if new["cost_per_year"] >= old["cost_per_year"] else "less"),
    }


def _say(turn: Turn, key: str, **values) -> str:
    return WORDING.say(turn, key, **values)
