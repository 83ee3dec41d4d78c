"""The cluster-network question ("32 nodes of 8 GPUs: how many leaf and spine switches, InfiniBand or RoCE?"):
switch and link counts per fabric option from the size_fabric tool, wording from the package text.yaml (section facility_fabric)."""

from __future__ import annotations

import math

from advisor.contract import Source
from advisor.markdown import table
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from tools.recommend.configs import SERVER_GPUS

WORDING = Wording("facility", "facility_fabric")


def answer(turn: Turn, servers: int | None, gpus: int | None, choice: bool = False) -> str:
    """``choice``: the question asks which fabric ("InfiniBand or RoCE?") rather than how many switches."""
    per_server = turn.slots.gpus_per_server or SERVER_GPUS
    if not servers and gpus:
        servers = math.ceil(gpus / per_server)
    if not servers:
        return _say(turn, "ask_count")
    outcome = turn.call("size_fabric", {"servers": servers, "gpus_per_server": per_server})
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    plans = r["plans"]
    first = plans[0]
    common = {"servers": r["servers"], "gpus_per_server": r["gpus_per_server"], "nics": r["nics"]}
    if choice and len(plans) > 1:
        other = plans[1]
        lead = _say(turn, "lead_choice", **common, first_name=turn.text(first["name"]), switches=first["switches"] or "—",
                    other_name=turn.text(other["name"]), other_switches=other["switches"] or "—")  # fmt: skip
    elif all(p["tiers"] == 1 for p in plans):
        lead = _say(turn, "lead_one", **common)
    elif first["tiers"] == 3:
        lead = _say(turn, "lead_three", **common, first_name=turn.text(first["name"]), ports=first["ports_400g"],
                    max_servers=first["max_servers_two_tier"])  # fmt: skip
    else:
        lead = _say(turn, "lead", **common, first_name=turn.text(first["name"]), **_counts(first))
    options = [_option(turn, plan) for plan in plans]
    assumptions = [turn.text(row) for row in WORDING.data["assumptions"]]
    stated = _stated_link(turn, r)
    if stated:
        assumptions.insert(0, stated)
    _cite(turn, plans)
    value, formula = _say(turn, "headers.value"), _say(turn, "headers.formula")
    rows = [
        [f"{turn.text(p['name'])}: {turn.text(i['label'])}", str(int(i["value"])), f"`{turn.formula(i)}`"]
        for p in plans
        for i in p["items"]
    ]
    sources = [[turn.text(p["name"]), str(p["ports_400g"]), f"[{p['title']}]({p['url']}) ({p['date']})"] for p in plans]
    return "\n\n".join([
        lead,  # the counts, then each option's counts; how the tree is wired follows them (the options are the decision)
        f"**{_say(turn, 'options_title')}**\n" + "\n".join(f"- {line}" for line in options),
        _say(turn, "reasoning"),
        f"**{_say(turn, 'assumptions_title')}**\n" + "\n".join(f"- {line}" for line in assumptions),
        table([_say(turn, "details_title"), value, formula], rows),
        table([_say(turn, "sources_title"), _say(turn, "headers.ports"), _say(turn, "headers.source")], sources),
    ])  # fmt: skip


def _stated_link(turn: Turn, result: dict) -> str | None:
    """The links the user said the servers have ("8 × 400G NDR", "200Gb/s RoCE"), held against the plan's one NIC per GPU at
    the tool's line rate: said as matching, or as what changes the counts; None when no link rate was stated."""
    rate, count = turn.ask.link_speed_gbps, turn.ask.link_count
    if rate is None:
        return None
    per_server = result["gpus_per_server"]
    same = rate == result["nic_gbps"] and count in (None, per_server)
    key = f"link_stated.{'same' if same else 'other'}{'' if count else '_rate'}"  # "200Gb/s RoCE" says no count of links
    return _say(turn, key, rate=f"{rate:g}", count=count, planned=f"{result['nic_gbps']:g}", per_server=per_server)


def _counts(plan: dict) -> dict:
    return {k: plan[k] for k in ("leaves", "spines", "switches", "nic_cables", "spine_cables")}


def _option(turn: Turn, plan: dict) -> str:
    shape = {1: "one", 2: "two", 3: "three"}[plan["tiers"]]
    switches = _say(turn, f"switches_text.{shape}", **_counts(plan), max_servers=plan["max_servers_two_tier"])
    return _say(turn, "option", name=turn.text(plan["name"]), ports=plan["ports_400g"], switches_text=switches,
                strengths=turn.text(plan["strengths"]), caveats=turn.text(plan["caveats"]))  # fmt: skip


def _cite(turn: Turn, plans: list[dict]) -> None:
    seen = {u for s in turn.sources for u in s.urls}
    for plan in plans:
        if plan["url"] not in seen:
            seen.add(plan["url"])
            turn.sources.append(Source(doc_id=f"fabric:{plan['fabric']}", title=plan["title"], urls=[plan["url"]]))


def _say(turn: Turn, key: str, **values) -> str:
    return WORDING.say(turn, key, **values)
