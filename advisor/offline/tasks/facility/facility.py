"""Data-centre questions answered with arithmetic: servers per rack at a power budget, racks, IT and facility load,
air or liquid, electricity per year. The figures come from the plan_facility tool; the wording from the package text.yaml (section facility)."""

from __future__ import annotations

from advisor.markdown import money, number, table
from advisor.nlu.frame import Money
from advisor.offline.tasks.facility import facility_fabric, facility_prep, facility_swap
from advisor.offline.tasks.facility.sources import cite
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.facility import shipped_facility_data
from tools.cost.money import DEFAULT_USD_TO_CNY, convert
from tools.recommend.configs import SERVER_GPUS

WORDING = Wording("facility", "facility")
DEFAULT_GPU = "h100-sxm"
PREPARE = "lead.prepare"  # the site-preparation checklist's lead (facility_prep.py), for the checks that ask which lead was given
# Amounts that make a money question a rent-or-buy comparison rather than an electricity bill (so do the words in
# text.yaml facility.asks.comparison)
COMPARISON_SLOTS = ("server_price", "cloud_price", "discount", "budget")


def asks_only_electricity(turn: Turn) -> bool:
    """A first question about the power bill alone ("electricity per year for 64 8-GPU A100 servers?"): the facility plan answers it with
    the load behind the bill; a question with a price to rent or buy at is a rent-or-buy comparison."""
    frame = turn.reading.frame
    return (
        not turn.reading.follow_up
        and turn.ask.tco_line == "energy"
        and not any(frame.has(slot) for slot in COMPARISON_SLOTS)
        and not _asks(turn, "comparison")
    )


def offer() -> tuple[str, str]:
    """What a concept answer offers to calculate for a facility question, (English, Chinese)."""
    text = WORDING.text("offer")
    return text.en, text.zh


def asks_fabric(turn: Turn) -> bool:
    """A question about the cluster's network (leaf/spine switches, or InfiniBand vs RoCE) with servers or GPUs to connect."""
    servers, gpus = _counts(turn)
    if not (servers or gpus):
        return False
    if _asks_now(turn, "fabric") or _asks_now(turn, "fabric_choice"):
        return True
    return turn.reading.follow_up and turn.ask.thread_messages > 1 and turn.ask.fabric_opened  # "and with 64 nodes?" after a fabric count


def takes_over(turn: Turn) -> bool:
    """A facility question that names a card, which a spec card or a knowledge snippet would otherwise answer: stated
    feeds, the power bill alone, one server's draw, or what a site must prepare."""
    servers, gpus = _counts(turn)
    if not (turn.slots.gpus or servers or gpus):
        return False
    if turn.ask.states_circuit or _asks_now(turn, "site") or _asks_now(turn, "prepare"):
        return True
    if turn.ask.replaces_hardware and (_asks_now(turn, "power") or _asks_now(turn, "bill")):  # what swapping the cards adds
        return True
    if _asks_now(turn, "bill"):
        return not any(turn.reading.frame.has(slot) for slot in COMPARISON_SLOTS) and not _asks_now(turn, "comparison")
    return _asks_server_power(turn)


def prepares_site(turn: Turn) -> bool:
    """What a room must have for named servers or cards ("three 8x H200 servers arrive in January: what does the data
    centre need?"): a preparation checklist, whatever calculation the classifier guessed from the counts."""
    servers, gpus = _counts(turn)
    return _asks_now(turn, "prepare") and bool(turn.slots.gpus or servers or gpus)


SITE_SIDES = frozenset({"cooling", "power", "prepare", "site"})


def asks_site_of_thread(turn: Turn) -> bool:
    """A follow-up that asks the site side of the thread's hardware ("what about cooling?" after a sizing on H20): the
    plan for those cards, not a general card on cooling."""
    return turn.reading.follow_up and bool(turn.ask.facility_asks_now & SITE_SIDES) and bool(turn.slots.gpus)


def fabric_for_one_server(turn: Turn) -> bool:
    """A network question whose counts come to a single server ("…between two of them" read without its count): a
    switch count for one box answers nothing, so the cards answer it instead."""
    servers, gpus = _counts(turn)
    per_server = turn.slots.gpus_per_server or SERVER_GPUS
    return asks_fabric(turn) and (servers or 1) < 2 and (gpus or 0) <= per_server


def _asks_server_power(turn: Turn) -> bool:
    return _asks_now(turn, "power") and _asks_now(turn, "server")


def answer(turn: Turn) -> str:
    if asks_fabric(turn):
        servers, gpus = _counts(turn)
        choice = _asks_now(turn, "fabric_choice") and not _asks_now(turn, "fabric")  # "IB or RoCE?" rather than "how many switches?"
        return facility_fabric.answer(turn, servers, gpus, choice=choice)
    servers, gpus = _counts(turn)
    if turn.ask.replaces_hardware and len(turn.slots.gpus) >= 2:  # "our A100 boxes → H200": what the site must add
        return facility_swap.answer(turn, plan_args(turn, turn.slots.gpus[0], servers, gpus), turn.slots.gpus[1])
    if len(turn.slots.gpus) >= 2 and not turn.reading.follow_up:  # "H20 and 910B servers in 12 kW racks": each part's verdict
        return facility_swap.each(turn, plan_args(turn, turn.slots.gpus[0], servers, gpus), turn.slots.gpus)
    outcome = turn.call("plan_facility", plan_args(turn, _gpu(turn), servers, gpus))
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    if r["circuit_kw"] is not None and not _fleet(turn) and (r["servers_on_circuit"] or 0) > 1:
        # no count stated: the load and the bill are those of the servers the feeds carry
        outcome = turn.call("plan_facility", {**outcome.args, "servers": r["servers_on_circuit"]})
        if not outcome.ok:
            return turn.error(outcome)
        r = outcome.result
    cite(turn, r)
    values = _values(turn, r)
    if _asks_now(turn, "prepare") and (prepared := facility_prep.checklist(turn, outcome.args, r, values, turn.china_buyer)):
        # what the room must have, line by line; a China buyer of a part they cannot buy new hears so, with parts they can
        china = _china_high_density(turn, r, PREPARE)
        status = [_say(turn, "summary.china", gpu=r["gpu_name"], status=_say(turn, f"china_status.{r['china']}"), rule=turn.text(r["china_rule"]))] if china else []
        options = _china_alternatives(turn, r, values, PREPARE)
        listed = [f"**{_say(turn, 'options_title')}**\n" + "\n".join(f"- {line}" for line in options)] if options else []
        return "\n\n".join([prepared[0], *status, *prepared[1:], *listed, *_details(turn, r)])
    lead = _lead(turn, r)
    blocks = [_say(turn, lead, **values), turn.t(" ", "").join(_summary(turn, r, values, lead))]
    if _china_high_density(turn, r, lead):
        blocks.append(
            _say(turn, "summary.china", gpu=r["gpu_name"], status=_say(turn, f"china_status.{r['china']}"), rule=turn.text(r["china_rule"]))
        )
    options = _china_alternatives(turn, r, values) + _options(turn, r, values)
    if options:  # what a buyer can do comes before the fold; the assumptions follow it
        blocks.append(f"**{_say(turn, 'options_title')}**\n" + "\n".join(f"- {line}" for line in options))
    blocks.append(f"**{_say(turn, 'assumptions_title')}**\n" + "\n".join(f"- {line}" for line in _assumptions(turn, r, values, lead)))
    blocks += _details(turn, r)
    return "\n\n".join(blocks)


def plan_args(turn: Turn, gpu: str, servers: int | None, gpus: int | None) -> dict:
    """The plan_facility arguments for ``gpu`` at the stated counts, rack budget, PUE, tariff, region and feeds."""
    s = turn.slots
    currency = _currency(turn)
    rack_kw, capacity_kw = s.rack_power_kw, None
    if rack_kw is not None and rack_kw > shipped_facility_data().planning.largest_rack_kw.value:  # "500 kW of capacity": a room
        rack_kw, capacity_kw = None, rack_kw
    return {
        "gpu": gpu,
        "servers": servers,
        "gpus": gpus,
        "gpus_per_server": s.gpus_per_server,
        "rack_power_kw": rack_kw,
        "capacity_kw": capacity_kw,
        "pue": s.pue,
        "electricity_price": _in(s.power_price, currency),
        "currency": currency,
        "region": s.region,
        "one_rack": _in_one_rack(turn) or None,
        "circuit": turn.ask.circuit,  # the site's feeds hold for the whole conversation
    }


def _counts(turn: Turn) -> tuple[int | None, int | None]:
    """Servers and GPUs as stated. A count before a whole system's name ("4 DGX B200") counts servers, not cards."""
    s = turn.slots
    servers, gpus = s.servers, s.gpu_count
    named = turn.slots.frame.surface("gpu").casefold()
    if servers is None and gpus and s.gpus_per_server is None and any(word in named for word in shipped_facility_data().system_words):
        return gpus, None
    if servers and gpus and s.gpus_per_server is None and gpus <= 8:  # "two 8-GPU servers" read without a per-server link: 8 per server
        return servers, None
    if servers is None and gpus is None and s.gpus and _sold_as_rack(s.gpus[0]):  # "two GB200 NVL72 racks"
        return turn.ask.rack_count, None
    if servers is None and gpus is None:  # "a 16-node cluster"
        return turn.ask.node_count, None
    return servers, None if servers else gpus


def _sold_as_rack(gpu: str) -> bool:
    system = shipped_facility_data().system_for(gpu)
    return system is not None and system.gpus_per_server > SERVER_GPUS


def _gpu(turn: Turn) -> str:
    if turn.slots.gpus:
        return turn.slots.gpus[0]
    turn.assume(*WORDING.pair("facility_phrases.gpu.gpu_h100_sxm_none_named"))
    return DEFAULT_GPU


def _currency(turn: Turn) -> str:
    price = turn.slots.power_price
    if price is not None:
        return price.currency
    return turn.currency


def _in(amount: Money | None, currency: str) -> float | None:
    return None if amount is None else convert(amount.amount, amount.currency, currency, DEFAULT_USD_TO_CNY)


def _values(turn: Turn, r: dict) -> dict:
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
        "limited_by": _say(turn, f"limited_by.{r['limited_by']}"),
        "capacity": number(r["capacity_kw"] or 0, 0), "in_capacity": r["servers_in_capacity"],
        "circuit_kw": number(r["circuit_kw"] or 0, 1), "on_circuit": r["servers_on_circuit"],
        "server_basis": _say(turn, "assumption.published" if r["server_kw_published"] else "assumption.estimated"),
    }  # fmt: skip


_SAID = WORDING.pair("facility_phrases._said.as_you_gave_it")


def _symbol(currency: str) -> str:
    return "¥" if currency == "CNY" else "$"


def _lead(turn: Turn, r: dict) -> str:
    """The key of the first sentence, which answers what was asked: whether the servers fit the rack budget given,
    air or liquid, the yearly bill, what servers sharing one rack draw, how many a rack takes, else the load."""
    frame = turn.slots.frame
    if r["circuit_kw"] is not None and not (_asks_now(turn, "bill") or turn.ask.tco_line == "energy"):  # "and the electricity?" later: the bill
        if r["servers_on_circuit"] == 0:
            return "lead.circuit_none"
        if _fleet(turn):
            return "lead.circuit_fits" if r["servers_on_circuit"] >= r["servers"] else "lead.circuit_short"
        return "lead.circuit"
    if r["capacity_kw"] is not None:
        return "lead.capacity"
    if frame.has("rack_power") and _fleet(turn) and not r["whole_rack"]:
        if r["servers_per_rack"] == 0:
            return "lead.none_fits"
        return "lead.fits" if r["fits"] else "lead.does_not_fit"
    rack_known = frame.has("rack_power") or r["whole_rack"] or _in_one_rack(turn)
    # the density of a known rack is the question, and so it is for a follow-up on cooling alone ("what about cooling?")
    if (_asks(turn, "cooling") or _asks_now(turn, "site")) and (rack_known or (turn.reading.follow_up and _asks_now(turn, "cooling"))):
        return f"lead.cooling.{r['cooling']}"
    if frame.has("electricity_price") or turn.ask.tco_line == "energy" or _asks_now(turn, "bill"):
        return "lead.electricity_month" if _asks_now(turn, "monthly") else "lead.electricity"
    if _in_one_rack(turn):
        return "lead.one_rack"
    if not _fleet(turn) and not frame.has("rack_power") and _asks_server_power(turn):
        return "lead.server"
    if not r["whole_rack"] and (frame.has("rack_power") or _asks(turn, "per_rack")):
        return "lead.per_rack" if r["servers_per_rack"] else "lead.none_fits"
    return "lead.load"


def _china_high_density(turn: Turn, r: dict, lead: str) -> bool:
    """A China buyer planning a dense system they cannot buy new (a liquid-cooled rack, or racks past air's comfort
    zone): the answer says so and offers air-cooled parts they can buy; a bill question is answered alone."""
    dense = r["whole_rack"] or r["liquid_as_sold"] or r["cooling"] != "air"
    return dense and not lead.startswith("lead.electricity") and turn.china_buyer and r["china"] in WORDING.data["china_status"]


def _china_alternatives(turn: Turn, r: dict, v: dict, lead: str | None = None) -> list[str]:
    """For a China buyer of a part they cannot buy new: the same GPU count on air-cooled parts they can, each
    planned by the same tool (servers, kW, racks at the air-cooling limit)."""
    if not _china_high_density(turn, r, lead or _lead(turn, r)):
        return []
    lines = []
    for gpu in shipped_facility_data().china_air_cooled.get(turn.catalog.gpu(r["gpu_name"]).segment, ()):
        outcome = turn.call("plan_facility", {"gpu": gpu, "gpus": v["gpus"], "currency": r["currency"], "region": turn.slots.region})
        if not outcome.ok:  # a part with no rack server on file is left out, not guessed
            continue
        alt = outcome.result
        lines.append(_say(turn, "option.china_alternative", alt_system=turn.text(alt["system"]), alt_servers=alt["servers"],
                          alt_kw=number(alt["server_kw"], 1), alt_racks=alt["racks_at_air_limit"] or alt["racks"], gpus=v["gpus"],
                          air_limit=v["air_limit"]))  # fmt: skip
    return lines


def _fleet(turn: Turn) -> bool:
    """More than one server: a count of servers, or more cards than one server holds ("8 GPUs" alone is one server)."""
    servers, gpus = _counts(turn)
    return (servers or 0) > 1 or (gpus or 0) > SERVER_GPUS


def _in_one_rack(turn: Turn) -> bool:
    """Several servers asked about in one rack ("two servers in one rack"); "how many per rack" of one server asks how many fit instead."""
    return _fleet(turn) and not turn.slots.frame.has("rack_power") and _asks(turn, "one_rack")


def _asks_now(turn: Turn, what: str) -> bool:
    """Whether this message itself asks for ``what``: a word from an earlier turn does not redirect a later one."""
    return what in turn.ask.facility_asks_now


def _asks(turn: Turn, what: str) -> bool:
    """Whether the question, with the follow-ups that changed it, asks for ``what`` (words in nlu/data/site_words.yaml)."""
    return what in turn.ask.facility_asks


def _summary(turn: Turn, r: dict, v: dict, lead: str) -> list[str]:
    if lead.startswith("lead.electricity"):  # the bill was asked: the load behind it, not the rack plan
        return [_say(turn, "summary.load", **v)]
    if r["circuit_kw"] is not None:  # the feeds were asked about: their arithmetic and the load, not a rack plan
        formulas = {item["key"]: turn.formula(item) for item in r["items"]}
        redundancy = _say(turn, "summary.redundancy." + ("redundant" if r["circuit_redundant"] else "plain"))
        return [
            _say(turn, "summary.circuit", feed_formula=formulas["feed_kw"], circuit_formula=formulas["circuit_kw"], redundancy=redundancy)
        ]
    lines = []
    if lead == "lead.server":  # one server's draw was asked: its cooling and bill, not a rack plan
        pass
    elif r["whole_rack"]:
        lines.append(_say(turn, "summary.whole_rack", **v))
    elif r["servers_per_rack"]:
        lines.append(_say(turn, "summary.racks", **v))
    else:
        lines.append(_say(turn, "summary.racks_none", **v))
    if not lead.startswith("lead.cooling"):
        lines.append(_say(turn, f"summary.cooling.{r['cooling']}", **v))
    if not lead.startswith("lead.electricity"):
        lines.append(_say(turn, "summary.money", **v))
    if lead not in ("lead.load", "lead.server"):
        lines.append(_say(turn, "summary.load", **v))
    return lines


def _assumptions(turn: Turn, r: dict, v: dict, lead: str) -> list[str]:
    """The assumptions that could change this verdict: for a rack question the server's maximum and the rack budget, for
    a load or a bill also PUE, price and the network allowance (all of them are in the inputs table below)."""
    figures = {f["key"]: f for f in r["figures"]}
    server = figures["server_kw"]
    basis = "assumption.stated" if server["stated"] else "assumption.published" if r["server_kw_published"] else "assumption.estimated"
    lines = [_say(turn, "assumption.max_draw", **{**v, "server_basis": _say(turn, basis)})]
    if lead in ("lead.electricity", "lead.electricity_month", "lead.load"):
        lines.append(_say(turn, "assumption.pue_stated" if figures["pue"]["stated"] else "assumption.pue_default", **v))
        lines.append(_say(turn, "assumption.price_stated" if figures["electricity_price"]["stated"] else "assumption.price_default", **v))
        lines.append(_say(turn, "assumption.network", pct=number(figures["network_storage_pct"]["value"], 0)))
    rack = figures["rack_power_kw"]
    if not rack["stated"] and not r["whole_rack"] and lead != "lead.server":
        lines.append(_say(turn, "assumption.rack_default", rack=v["rack"], basis=turn.text(rack["basis"])))
    lines += [turn.text(note) for note in r["notes"]]
    return lines


def _options(turn: Turn, r: dict, v: dict) -> list[str]:
    if _lead(turn, r).startswith("lead.electricity"):
        return []
    if r["whole_rack"]:
        return [_say(turn, "option.liquid", **v)]
    lines = []
    if r["cap_server_kw"] is not None:
        per_rack_capped = int(r["rack_power_kw"] / r["cap_server_kw"] + 1e-9)
        cap = {**v, "cap_gpu": number(r["cap_gpu_w"], 0), "cap_server": number(r["cap_server_kw"], 1), "per_rack_capped": per_rack_capped,
               "cap_pct": number(r["cap_gpu_w"] / r["gpu_tdp_w"] * 100, 0)}  # fmt: skip
        on_feeds = "option.cap_circuit" if r["circuit_kw"] is not None else "option.cap"
        beyond = "option.cap_circuit_impractical" if r["circuit_kw"] is not None else "option.cap_impractical"
        lines.append(_say(turn, on_feeds if r["cap_practical"] else beyond, **cap))
    if r["amps_needed"] is not None:
        lines.append(_say(turn, "option.bigger_feeds", **{**v, "amps_needed": r["amps_needed"]}))
    if r["racks"] and r["racks"] > 1:
        lines.append(_say(turn, "option.spread", **v))
    dense = r["racks_at_air_limit"]
    if r["circuit_kw"] is not None:  # the feeds, not the rack, are the limit: denser racks do not help
        dense = None
    if dense and r["rack_power_kw"] < r["air_limit_kw"] and (r["racks"] is None or dense < r["racks"]):
        lines.append(_say(turn, "option.dense", **{**v, "dense_racks": dense}))
    elif dense and r["cooling"] != "air":  # past air's comfort zone: spreading out keeps it on air
        lines.append(_say(turn, "option.stay_on_air", **{**v, "dense_racks": dense}))
    if r["cooling"] != "air" or (r["rack_power_kw"] > r["air_limit_kw"] and r["circuit_kw"] is None):  # feeds may serve several racks
        lines.append(_say(turn, "option.liquid", **v))
    return lines


def _details(turn: Turn, r: dict) -> list[str]:
    """The formulas, the inputs with their sources, and the tariffs on file: three tables, each titled in its first
    header cell so that no title is left above the fold without its table."""
    value, formula, source = (_say(turn, f"headers.{key}") for key in ("value", "formula", "source"))
    rows = []
    for f in r["figures"]:
        name = _say(turn, f"input_names.{f['key']}")
        shown = f"{number(f['value'], 4 if f['value'] < 1 else 1)} {f['unit']}".strip()
        if f["stated"]:
            where = _say(turn, "you_said")
        elif f.get("url"):
            where = f"[{f['title']}]({f['url']}) ({f['date']})"
        else:
            where = _say(turn, "shared_default")
        rows.append([name, shown, where])
    tariffs = [
        [turn.text(t.name), f"{_symbol(t.currency)}{t.price:g}", f"[{t.source.title}]({t.source.url}) ({t.date})"]
        for t in shipped_facility_data().tariffs
    ]
    return [
        table([_say(turn, "details_title"), value, formula], turn.item_rows(r["items"])),
        table([_say(turn, "inputs_title"), value, source], rows),
        table([_say(turn, "tariffs_title"), value, source], tariffs) + "\n\n" + _say(turn, "tariffs_note"),
    ]


def _say(turn: Turn, key: str, **values) -> str:
    return WORDING.say(turn, key, **values)
