"""What a room must have before GPU servers arrive ("four HGX boxes next quarter: what does the server room need?"):
a checklist of power, A+B feeds and PDUs, cooling, network cabling, space and floor, and the electricity bill, each
line with the figures of the plan_facility and size_fabric tools. The wording is in the package text.yaml (section facility_prep)."""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.tasks.facility import render
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.facility import shipped_facility_data

WORDING = Wording("facility", "facility_prep")
CHINA = "cn"


def checklist(turn: Turn, plan_args: dict, r: dict, v: dict, china_buyer: bool) -> list[str]:
    """The verdict line and the checklist, or [] when a tool refuses (the plain facility answer then stands).
    ``plan_args``: the plan_facility call behind ``r``; ``v``: its figures as facility.py formats them."""
    feeds = WORDING.data["feeds"][CHINA if china_buyer else "default"]
    stated = turn.ask.circuit  # the supply the user stated ("single-phase 220 V") is the one the feeds are planned on
    volts, three_phase = (stated["volts"], bool(stated.get("three_phase"))) if stated else (feeds["volts"], True)
    in_rack = v["in_rack"]
    rack = turn.call("plan_facility", {**plan_args, "servers": in_rack, "gpus": None, "capacity_kw": None, "one_rack": None,
                                       "circuit": {"amps": 1, "volts": volts, "three_phase": three_phase, "feeds": 2, "redundant": True}})  # fmt: skip
    if not rack.ok or rack.result["amps_needed"] is None:
        return []
    phase = render.say(turn, "summary.phase." + ("three" if three_phase else "single"))
    figures = {**v, "amps": rack.result["amps_needed"], "volts": number(volts, 0), "phase": phase, "rack_load": number(r["rack_load_kw"], 1),
               "cooling": _say(turn, f"cooling.{r['cooling']}"), "liquid_above": number(r["liquid_above_kw"], 0),
               "rack_units": number(shipped_facility_data().planning.rack_units.value, 0)}  # fmt: skip
    lines = [
        _say(turn, "item.power", **figures),
        _say(turn, "item.feeds", **figures),
        _say(turn, f"item.cooling.{r['cooling']}", **figures),
        _network(turn, r),
        _say(turn, "item.space", **figures),
        _say(turn, "item.money", **figures),
    ]
    if not stated:  # no supply said: the planning convention of the market, as an assumption the user's own feeds replace
        turn.assumptions.append(_say(turn, "assumption_feeds", volts=feeds["volts"], source=f"[{feeds['title']}]({feeds['url']}), {feeds['date']}"))
    return [_say(turn, "lead", **figures), f"**{_say(turn, 'checklist_title')}**\n" + "\n".join(f"- {line}" for line in lines)]


def _network(turn: Turn, r: dict) -> str:
    if r["servers"] < 2:
        return _say(turn, "item.network_single")
    outcome = turn.call("size_fabric", {"servers": r["servers"], "gpus_per_server": r["gpus_per_server"]})
    if not outcome.ok:
        return _say(turn, "item.network_single")
    fabric = outcome.result
    plan = fabric["plans"][0]
    if plan["tiers"] == 1:
        return _say(turn, "item.network_one", nics=fabric["nics"])
    return _say(turn, "item.network", nics=fabric["nics"], fabric=turn.text(plan["name"]), switches=plan["switches"],
                leaves=plan["leaves"], spines=plan["spines"], spine_cables=plan["spine_cables"])  # fmt: skip


def _say(turn: Turn, key: str, **values) -> str:
    return WORDING.say(turn, key, **values)
