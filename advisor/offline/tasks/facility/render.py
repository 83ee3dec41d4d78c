"""The facility answer's sentences from plan_facility's results: the lead that answers what was asked, the summary,
the options a buyer can act on, the assumptions and the folded tables. Wording from the package text.yaml (section
facility); every figure from the tool."""

from __future__ import annotations

from advisor.contract import Source
from advisor.markdown import money, number, table
from advisor.offline.tasks.facility import plan
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from knowledge.facility import shipped_facility_data

WORDING = Wording("facility", "facility")


PREPARE = "lead.prepare"  # the site-preparation checklist's lead (facility_prep.py), for the checks that ask which lead was given


def offer() -> tuple[str, str]:
    """What a concept answer offers to calculate for a facility question, (English, Chinese)."""
    text = WORDING.text("offer")
    return text.en, text.zh


def figure_values(turn: Turn, r: dict) -> dict:
    """Every figure a sentence may name, formatted once."""
    figures = {f["key"]: f for f in r["figures"]}
    cur = r["currency"]
    price = figures["electricity_price"]
    return {
        "system": turn.text(r["system"]), "servers": r["servers"], "server_kw": number(r["server_kw"], 1),
        "rack": number(r["rack_power_kw"], 1), "per_rack": r["servers_per_rack"], "racks": r["racks"] or "—",
        "load": number(r["rack_load_kw"], 1), "spare": number(r["rack_power_kw"] - r["rack_load_kw"], 1),
        "it": number(r["it_kw"], 1), "facility": number(r["facility_kw"], 1), "pue": number(figures["pue"]["value"], 2),
        "gpus": r["servers"] * r["gpus_per_server"], "cost": money(r["cost_per_year"], cur), "cost_month": money(r["cost_per_month"], cur), "energy": number(r["energy_mwh_per_year"], 0),
        "load_factor": number(figures["load_factor_pct"]["value"], 0), "price": money(price["value"], cur) if price["value"] >= 1 else f"{_symbol(cur)}{price['value']:g}",
        "tariff": turn.text(price["basis"]) if price.get("basis") else turn.t(*_SAID), "date": price.get("date", ""),
        "rack_load": number(r["rack_load_kw"], 1), "air_limit": number(r["air_limit_kw"], 0), "liquid_above": number(r["liquid_above_kw"], 0),
        "tdp": number(r["gpu_tdp_w"] or 0, 0), "in_rack": min(r["servers"], r["servers_per_rack"]) or 1,
        "limited_by": say(turn, f"limited_by.{r['limited_by']}"),
        "capacity": number(r["capacity_kw"] or 0, 0), "in_capacity": r["servers_in_capacity"],
        "circuit_kw": number(r["circuit_kw"] or 0, 1), "on_circuit": r["servers_on_circuit"],
        "server_basis": say(turn, "assumption.published" if r["server_kw_published"] else "assumption.estimated"),
        "max_total": number(r["servers"] * r["server_kw"], 1), "net_pct": number(figures["network_storage_pct"]["value"], 0),
        **_tight_values(turn, r, figures),
        **supply_values(turn, r, figures),
    }  # fmt: skip


def supply_socket(turn: Turn):
    """The ordinary wall socket of the stated supply's voltage (a 220 V supply: the mainland China socket), else the market's."""
    volts = (turn.ask.circuit or {}).get("volts")
    sockets = shipped_facility_data().circuits.wall_sockets
    return next((w for w in sockets if w.volts == volts), None) or plan.socket_of(turn)


def supply_values(turn: Turn, r: dict, figures: dict) -> dict:
    """The supply the user stated without a rating ("single-phase 220 V"): its phase and voltage, the rating each feed
    needs (the tool's supply_amps line) and how that compares with an ordinary socket of that voltage."""
    if not r.get("supply_only"):
        return {}
    circuit = turn.ask.circuit or {}
    formula = next(turn.formula(item) for item in r["items"] if item["key"] == "supply_amps")
    socket = supply_socket(turn)
    verdict = "over" if r["amps_needed"] > socket.amps else "within"
    return {"phase": say(turn, "summary.phase." + ("three" if circuit.get("three_phase") else "single")), "volts": number(circuit["volts"], 0),
            "supply_amps": r["amps_needed"], "supply_formula": formula, "derating_pct": number(figures["continuous_derating"]["value"] * 100, 0),
            "socket_verdict": say(turn, f"summary.socket_verdict.{verdict}", socket_amps=number(socket.amps, 0))}  # fmt: skip


def _tight_values(turn: Turn, r: dict, figures: dict) -> dict:
    """The headroom of a rack that fits on paper but tight, the planning margin and the rack that keeps it free."""
    if not r.get("tight"):
        return {}
    margin = figures["rack_headroom_pct"]
    values = {"headroom": number(r["headroom_pct"], 0), "margin": number(margin["value"], 0), "margin_basis": turn.text(margin["basis"]),
              "planned_rack": number(r["planned_rack_kw"], 1), "rack": number(r["rack_power_kw"], 1)}  # fmt: skip
    return {**values, "plan_tight": say(turn, "lead.plan_tight", **values)}


_SAID = WORDING.pair("facility_phrases._said.as_you_gave_it")


def _symbol(currency: str) -> str:
    return "¥" if currency == "CNY" else "$"


def also_the_bill(turn: Turn, lead: str) -> bool:
    """"Two 30 A circuits per rack: how many servers fit, and the power bill?": the circuit's verdict leads, the bill
    follows it, so neither stated figure is left unused nor asked for."""
    return lead.startswith("lead.circuit") and plan.bill_asked(turn)


def lead_key(turn: Turn, r: dict) -> str:
    """The key of the first sentence, which answers what was asked: whether the servers fit the rack budget given,
    air or liquid, the yearly bill, what servers sharing one rack draw, how many a rack takes, else the load."""
    frame = turn.slots.frame
    if r.get("supply_only") and not frame.has("rack_power") and not plan.bill_asked(turn) and not r["whole_rack"]:
        return "lead.supply"  # "we only have single-phase 220 V": what that supply must be rated for leads, never a default feed
    if r["circuit_kw"] is not None and (not plan.bill_asked(turn) or plan.asks_now(turn, "per_rack")):  # "and the electricity?" later: the bill
        if r["servers_on_circuit"] == 0:
            return "lead.circuit_none"
        if plan.fleet(turn):
            return "lead.circuit_fits" if r["servers_on_circuit"] >= r["servers"] else "lead.circuit_short"
        return "lead.circuit"
    if r["capacity_kw"] is not None:
        return "lead.capacity"
    if frame.has("rack_power") and plan.fleet(turn) and not r["whole_rack"]:
        if r["servers_per_rack"] == 0:
            return "lead.none_fits"
        return ("lead.fits_tight" if r["tight"] else "lead.fits") if r["fits"] else "lead.does_not_fit"
    if frame.has("rack_power") and plan.asks(turn, "cooling") and not turn.slots.gpus and not r["whole_rack"]:
        # "can we air-cool 35 kW per rack?" names no hardware: the rack's own density against the air and liquid limits
        return f"lead.rack_air.{_density(r['rack_power_kw'], r)}"
    rack_known = frame.has("rack_power") or r["whole_rack"] or plan.in_one_rack(turn)
    # the density of a known rack is the question, and so it is for a follow-up on cooling alone ("what about cooling?")
    if (plan.asks(turn, "cooling") or plan.asks_now(turn, "site")) and (rack_known or (turn.reading.follow_up and plan.asks_now(turn, "cooling"))):
        return f"lead.cooling.{r['cooling']}"
    if frame.has("electricity_price") or turn.ask.tco_line == "energy" or plan.asks_now(turn, "bill"):
        return "lead.electricity_month" if plan.asks_now(turn, "monthly") else "lead.electricity"
    if plan.in_one_rack(turn):
        return "lead.one_rack"
    if not plan.fleet(turn) and not frame.has("rack_power") and plan.asks_server_power(turn):
        return "lead.server"
    if not r["whole_rack"] and (frame.has("rack_power") or plan.asks(turn, "per_rack")):
        if not r["servers_per_rack"]:
            return "lead.none_fits"
        return "lead.per_rack_tight" if r["tight"] else "lead.per_rack"
    return "lead.load"


# the site measures (Ask.parts, advisor/nlu/data/asked_measures.yaml) each lead answers: a lead by its key or its family
LEAD_MEASURES = {
    "lead.fits": {"rack", "power"}, "lead.fits_tight": {"rack", "power"}, "lead.per_rack_tight": {"rack"}, "lead.one_rack": {"rack", "power"}, "lead.does_not_fit": {"rack"}, "lead.none_fits": {"rack"},
    "lead.per_rack": {"rack"}, "lead.capacity": {"rack"}, "lead.server": {"power"}, "lead.load": {"power"},
    "lead.electricity": {"bill"}, "lead.electricity_month": {"bill"}, "lead.circuit": {"rack"}, "lead.cooling": {"cooling"}, "lead.supply": {"power"},
    "lead.rack_air": {"cooling", "rack"},  # the density verdict also says how many servers such a rack takes
}  # fmt: skip


TIGHT_LEADS = {"lead.fits_tight", "lead.per_rack_tight"}  # a fit on paper with less headroom than the planning margin


def measures_of(lead: str) -> set[str]:
    """What a lead answers: "lead.cooling.air" answers cooling, "lead.circuit_short" the rack (the feeds' verdict)."""
    for key in (lead, ".".join(lead.split(".")[:2]), lead.split("_")[0]):
        if key in LEAD_MEASURES:
            return LEAD_MEASURES[key]
    return set()


def lead_keys(turn: Turn, r: dict) -> list[str]:
    """The first sentences: the lead that answers the question, then one for each other site measure the same sentence
    asks ("the power bill, and do they fit in the racks?": the bill, then the racks), in the order asked."""
    lead = lead_key(turn, r)
    covered = measures_of(lead) | ({"bill"} if also_the_bill(turn, lead) else set())
    keys = [lead]
    for measure in turn.ask.parts:
        if measure not in covered and (key := _lead_for(turn, r, measure)):
            keys.append(key)
            covered |= measures_of(key)
    order = {measure: index for index, measure in enumerate(turn.ask.parts)}
    return sorted(keys, key=lambda key: min((order[m] for m in measures_of(key) if m in order), default=-1))


def _lead_for(turn: Turn, r: dict, measure: str) -> str | None:
    """The lead that answers one site measure from the same plan; None for a measure the plan does not answer."""
    if measure == "power":
        return "lead.load" if plan.fleet(turn) else "lead.server"
    if measure == "bill":
        return "lead.electricity_month" if plan.asks_now(turn, "monthly") else "lead.electricity"
    if measure == "cooling":
        return f"lead.cooling.{r['cooling']}"
    if measure == "rack" and not r["whole_rack"] and r["circuit_kw"] is None:
        if not r["servers_per_rack"]:
            return "lead.none_fits"
        if plan.fleet(turn):
            return ("lead.fits_tight" if r["tight"] else "lead.fits") if r["fits"] else "lead.does_not_fit"
        return "lead.per_rack_tight" if r["tight"] else "lead.per_rack"
    return None


def _density(kw: float, r: dict) -> str:
    """How a rack of ``kw`` is cooled: by room air, air only with containment or rear doors, or liquid (the tool's limits)."""
    return "air" if kw <= r["air_limit_kw"] else "air_limit" if kw <= r["liquid_above_kw"] else "liquid"


def china_high_density(turn: Turn, r: dict, lead: str) -> bool:
    """A China buyer planning a dense system they cannot buy new (a liquid-cooled rack, or racks past air's comfort
    zone): the answer says so and offers air-cooled parts they can buy; a bill question is answered alone."""
    dense = r["whole_rack"] or r["liquid_as_sold"] or r["cooling"] != "air"
    return dense and not lead.startswith("lead.electricity") and turn.china_buyer and r["china"] in WORDING.data["china_status"]


def china_alternatives(turn: Turn, r: dict, v: dict, lead: str | None = None) -> list[str]:
    """For a China buyer of a part they cannot buy new: the same GPU count on air-cooled parts they can, each
    planned by the same tool (servers, kW, racks at the air-cooling limit)."""
    if not china_high_density(turn, r, lead or lead_key(turn, r)):
        return []
    lines = []
    for gpu in shipped_facility_data().china_air_cooled.get(turn.catalog.gpu(r["gpu_name"]).segment, ()):
        outcome = turn.call("plan_facility", {"gpu": gpu, "gpus": v["gpus"], "currency": r["currency"], "region": turn.slots.region})
        if not outcome.ok:  # a part with no rack server on file is left out, not guessed
            continue
        alt = outcome.result
        lines.append(say(turn, "option.china_alternative", alt_system=turn.text(alt["system"]), alt_servers=alt["servers"],
                          alt_kw=number(alt["server_kw"], 1), alt_racks=alt["racks_at_air_limit"] or alt["racks"], gpus=v["gpus"],
                          air_limit=v["air_limit"]))  # fmt: skip
    return lines


def summary_lines(turn: Turn, r: dict, v: dict, lead: str, also: tuple[str, ...] = ()) -> list[str]:
    """The second paragraph: what else the plan says, without what a lead (``lead`` and the leads of the other measures
    asked, ``also``) said already."""
    said = set().union(*(measures_of(key) for key in (lead, *also)))
    if lead.startswith("lead.electricity"):  # the bill was asked: the load behind it, not the rack plan
        return [] if {"lead.load", "lead.server"} & set(also) else [say(turn, "summary.load", **v)]
    if r["circuit_kw"] is not None:  # the feeds were asked about: their arithmetic and the load, not a rack plan
        formulas = {item["key"]: turn.formula(item) for item in r["items"]}
        redundancy = say(turn, "summary.redundancy." + ("redundant" if r["circuit_redundant"] else "plain"))
        return [
            say(turn, "summary.circuit", feed_formula=formulas["feed_kw"], circuit_formula=formulas["circuit_kw"], redundancy=redundancy)
        ]
    lines = [say(turn, "summary.supply", **v)] if r.get("supply_only") and lead != "lead.supply" else []  # the stated supply is used, whatever leads
    if lead == "lead.server":  # one server's draw was asked: its cooling and bill, not a rack plan
        pass
    elif r["whole_rack"]:
        lines.append(say(turn, "summary.whole_rack", **v))
    elif r["servers_per_rack"]:
        lines.append(say(turn, "summary.racks", **v))
    else:
        lines.append(say(turn, "summary.racks_none", **v))
    if "cooling" not in said:  # a lead on the cooling says it already
        lines.append(say(turn, f"summary.cooling.{r['cooling']}", **v))
    if "bill" not in said:
        lines.append(say(turn, "summary.money", **v))
    if lead not in ("lead.load", "lead.server") and not {"lead.load", "lead.server"} & set(also):
        lines.append(say(turn, "summary.load", **v))
    return lines


def assumption_lines(turn: Turn, r: dict, v: dict, lead: str, also: tuple[str, ...] = ()) -> list[str]:
    """The assumptions that could change this verdict: for a rack question the server's maximum and the rack budget, for
    a load or a bill also PUE, price and the network allowance (all of them are in the inputs table below)."""
    figures = {f["key"]: f for f in r["figures"]}
    server = figures["server_kw"]
    basis = "assumption.stated" if server["stated"] else "assumption.published" if r["server_kw_published"] else "assumption.estimated"
    lines = [say(turn, "assumption.max_draw", **{**v, "server_basis": say(turn, basis)})]
    if {lead, *also} & {"lead.electricity", "lead.electricity_month", "lead.load"}:
        lines.append(say(turn, "assumption.pue_stated" if figures["pue"]["stated"] else "assumption.pue_default", **v))
        lines.append(say(turn, "assumption.price_stated" if figures["electricity_price"]["stated"] else "assumption.price_default", **v))
        network = figures["network_storage_pct"]
        pct = number(network["value"], 0)
        if network["stated"]:
            lines.append(say(turn, "assumption.network_stated", pct=pct))
        else:
            key = "assumption.network_assumed" if network.get("assumed") else "assumption.network"
            lines.append(say(turn, key, pct=pct, basis=turn.text(network["basis"]) if network.get("basis") else ""))
    if r["tight"] and {lead, *also} & TIGHT_LEADS:
        lines.append(say(turn, "assumption.headroom", **v))
    rack = figures["rack_power_kw"]
    if not rack["stated"] and not r["whole_rack"] and lead != "lead.server":
        lines.append(say(turn, "assumption.rack_default", rack=v["rack"], basis=turn.text(rack["basis"])))
    lines += [turn.text(note) for note in r["notes"]]
    return lines


def option_lines(turn: Turn, r: dict, v: dict) -> list[str]:
    if lead_key(turn, r).startswith("lead.electricity"):
        return []
    if r["whole_rack"]:
        return [say(turn, "option.liquid", **v)]
    lines = []
    # A cap of 0 W means the server's other parts alone exceed the supply: capping the cards is no option at all.
    if r["cap_server_kw"] is not None and r["cap_gpu_w"] > 0:
        per_rack_capped = int(r["rack_power_kw"] / r["cap_server_kw"] + 1e-9)
        cap = {**v, "cap_gpu": number(r["cap_gpu_w"], 0), "cap_server": number(r["cap_server_kw"], 1), "per_rack_capped": per_rack_capped,
               "cap_pct": number(r["cap_gpu_w"] / r["gpu_tdp_w"] * 100, 0)}  # fmt: skip
        on_feeds = "option.cap_circuit" if r["circuit_kw"] is not None else "option.cap"
        beyond = "option.cap_circuit_impractical" if r["circuit_kw"] is not None else "option.cap_impractical"
        lines.append(say(turn, on_feeds if r["cap_practical"] else beyond, **cap))
    if r["amps_needed"] is not None and not r.get("supply_only"):  # a supply stated without a rating: its rating is the lead, not an option
        lines.append(say(turn, "option.bigger_feeds", **{**v, "amps_needed": r["amps_needed"]}))
    if r["racks"] and r["racks"] > 1:
        lines.append(say(turn, "option.spread", **v))
    dense = r["racks_at_air_limit"]
    if r["circuit_kw"] is not None:  # the feeds, not the rack, are the limit: denser racks do not help
        dense = None
    if dense and r["rack_power_kw"] < r["air_limit_kw"] and (r["racks"] is None or dense < r["racks"]):
        lines.append(say(turn, "option.dense", **{**v, "dense_racks": dense}))
    elif dense and r["cooling"] != "air":  # past air's comfort zone: spreading out keeps it on air
        lines.append(say(turn, "option.stay_on_air", **{**v, "dense_racks": dense}))
    if r["cooling"] != "air" or (r["rack_power_kw"] > r["air_limit_kw"] and r["circuit_kw"] is None):  # feeds may serve several racks
        lines.append(say(turn, "option.liquid", **v))
    return lines


def detail_tables(turn: Turn, r: dict) -> list[str]:
    """The formulas, the inputs with their sources, and the tariffs on file: three tables, each titled in its first
    header cell so that no title is left above the fold without its table."""
    value, formula, source = (say(turn, f"headers.{key}") for key in ("value", "formula", "source"))
    rows = []
    for f in r["figures"]:
        name = say(turn, f"input_names.{f['key']}")
        shown = f"{number(f['value'], 4 if f['value'] < 1 else 1)} {f['unit']}".strip()
        if f["stated"]:
            where = say(turn, "you_said")
        elif f.get("assumed"):  # no page gives the value: said as ours, the page only shows what it covers
            where = say(turn, "planning_assumption", title=f["title"], url=f["url"], date=f["date"])
        elif f.get("url"):
            where = f"[{f['title']}]({f['url']}) ({f['date']})"
        else:
            where = say(turn, "shared_default")
        rows.append([name, shown, where])
    tables = [table([say(turn, "details_title"), value, formula], turn.item_rows(r["items"])), table([say(turn, "inputs_title"), value, source], rows)]
    on_file = tariffs_on_file(turn, r)
    if on_file:
        tariffs = [[turn.text(t.name), f"{_symbol(t.currency)}{t.price:g}", f"[{t.source.title}]({t.source.url}) ({t.date})"] for t in on_file]
        china = any(t.currency == "CNY" for t in on_file)  # the western-hub gap is a China buyer's question only
        tables.append(table([say(turn, "tariffs_title"), value, source], tariffs) + ("\n\n" + say(turn, "tariffs_note") if china else ""))
    return tables


def tariffs_on_file(turn: Turn, r: dict) -> list:
    """The tariffs on file a reader can compare their own with: only when the bill was asked, and only those in the
    currency the bill is priced in (a China buyer's yuan bill is not followed by US state prices, nor a rack question by
    any price list)."""
    leads = lead_keys(turn, r)
    if not (plan.bill_asked(turn) or any(key.startswith("lead.electricity") for key in leads)):
        return []
    return [t for t in shipped_facility_data().tariffs if t.currency == r["currency"]]


def hosting(turn: Turn, r: dict) -> str:
    """What hosting the servers costs a month: colocation (the sourced rate per kW-month × the plan's IT load) plus the
    month's electricity, with the rate's basis and pages; a rate converted from USD says so."""
    c, cur = r["colocation"], r["currency"]
    for url in c["urls"]:
        if all(url not in s.urls for s in turn.sources):
            turn.sources.append(Source(doc_id=f"facility:colocation:{url}", title=say(turn, "hosting.source_title"), urls=[url]))
    converted = say(turn, "hosting.converted", fx=number(c["usd_to_cny"], 2)) if c["converted"] else ""
    return say(turn, "hosting.lead", hosting=money(c["hosting_per_month"], cur), colo=money(c["per_month"], cur), kw=number(c["kw"]),
               rate=money(c["per_kw_month"], cur), power=money(r["cost_per_month"], cur), date=c["date"], converted=converted,
               servers=r["servers"], system=turn.text(Text.model_validate(r["system"])))  # fmt: skip


def say(turn: Turn, key: str, **values) -> str:
    return WORDING.say(turn, key, **values)
