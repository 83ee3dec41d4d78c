"""The facility task's plan: what a message asks of the site (the Ask's facility words, counts and feeds) and the
plan_facility arguments it is answered with. No wording here beyond the assumption of a default card; the
sentences are render.py's."""

from __future__ import annotations

from advisor.nlu.frame import Money
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.facility import shipped_facility_data
from knowledge.fact_gaps import fact_gaps
from knowledge.region_tariffs import region_tariffs
from tools.cost.money import DEFAULT_USD_TO_CNY, convert
from tools.recommend.configs import SERVER_GPUS

WORDING = Wording("facility", "facility")


# Amounts that make a money question a rent-or-buy comparison rather than an electricity bill (so do the words in
# text.yaml facility.asks.comparison)
COMPARISON_SLOTS = ("server_price", "cloud_price", "discount", "budget")
DEFAULT_GPU = "h100-sxm"
# The values of a site that plan_args reads beside the hardware: a follow-up stating one of these re-runs the plan
SITE_INPUTS = frozenset({"electricity_price", "pue", "rack_power"})


def asks_only_electricity(turn: Turn) -> bool:
    """A first question about the power bill alone ("electricity per year for 64 8-GPU A100 servers?"): the facility plan answers it with
    the load behind the bill; a question with a price to rent or buy at is a rent-or-buy comparison."""
    frame = turn.reading.frame
    return (
        not turn.reading.follow_up
        and turn.ask.tco_line == "energy"
        and not any(frame.has(slot) for slot in COMPARISON_SLOTS)
        and not asks(turn, "comparison")
    )


def asks_fabric(turn: Turn) -> bool:
    """A question about the cluster's network (leaf/spine switches, or InfiniBand vs RoCE) with servers or GPUs to connect."""
    servers, gpus = counts(turn)
    if not (servers or gpus):
        return False
    if asks_now(turn, "fabric") or asks_now(turn, "fabric_choice"):
        return True
    return turn.reading.follow_up and turn.ask.thread_messages > 1 and turn.ask.fabric_opened  # "and with 64 nodes?" after a fabric count


def takes_over(turn: Turn) -> bool:
    """A facility question that names a card, which a spec card or a knowledge snippet would otherwise answer: stated
    feeds, the power bill alone, one server's draw, or what a site must prepare."""
    servers, gpus = counts(turn)
    if not (turn.slots.gpus or servers or gpus):
        return False
    if turn.ask.states_circuit or asks_now(turn, "site") or asks_now(turn, "prepare") or asks_now(turn, "socket"):
        return True
    if turn.ask.replaces_hardware and (asks_now(turn, "power") or asks_now(turn, "bill")):  # what swapping the cards adds
        return True
    if asks_now(turn, "bill"):
        return not any(turn.reading.frame.has(slot) for slot in COMPARISON_SLOTS) and not asks_now(turn, "comparison")
    return asks_server_power(turn)


def has_hardware(turn: Turn) -> bool:
    """The message names the hardware and how many of it ("four 8x H100 servers"): enough for a facility plan."""
    servers, gpus = counts(turn)
    return bool(turn.slots.gpus) and bool(servers or gpus)


def colocation_region(turn: Turn) -> str | None:
    """"colo cost per kW in Virginia?", "colo cost per kW in Shanghai?": the region of a colocation rate asked on its own (no
    cards, not a line of a thread's rent-or-buy) when knowledge/region_tariffs.yaml lists it, whether its rate is sourced
    there or a recorded gap (knowledge/fact_gaps.yaml); else None (a rent-or-buy of a default machine answers nothing asked)."""
    region = turn.ask.site_region
    continues = bool(turn.earlier) and (turn.ask.thread_messages > 1 or turn.reading.follow_up)  # "and the colo fee?" after a rent-or-buy
    if turn.ask.tco_line != "colocation" or region is None or turn.slots.gpus or continues:
        return None
    found = region_tariffs().get(region)
    if found is None:
        return None
    return region if found.colocation is not None or fact_gaps().covers(f"region_tariffs.{region}.colocation") else None


def colocation_rate_args(turn: Turn, currency: str) -> dict:
    """plan_facility's arguments for its colocation rate alone: one server of the default card (the rate per kW-month does not
    depend on it), in the region asked about (its own sourced rate, or the fallback), priced in ``currency``."""
    return {"gpu": DEFAULT_GPU, "servers": 1, "currency": currency, "region": turn.ask.site_region}


def prepares_site(turn: Turn) -> bool:
    """What a room must have for named servers or cards ("three 8x H200 servers arrive in January: what does the data
    centre need?"): a preparation checklist, whatever calculation the classifier guessed from the counts."""
    servers, gpus = counts(turn)
    return asks_now(turn, "prepare") and bool(turn.slots.gpus or servers or gpus)


SITE_SIDES = frozenset({"cooling", "power", "prepare", "site"})


def asks_site_of_thread(turn: Turn) -> bool:
    """A follow-up that asks the site side of the thread's hardware ("what about cooling?" after a sizing on H20): the
    plan for those cards, not a general card on cooling."""
    return turn.reading.follow_up and bool(turn.ask.facility_asks_now & SITE_SIDES) and bool(turn.slots.gpus)


def fabric_for_one_server(turn: Turn) -> bool:
    """A network question whose counts come to a single server ("…between two of them" read without its count): a
    switch count for one box answers nothing, so the cards answer it instead."""
    servers, gpus = counts(turn)
    per_server = turn.slots.gpus_per_server or SERVER_GPUS
    return asks_fabric(turn) and (servers or 1) < 2 and (gpus or 0) <= per_server


def asks_server_power(turn: Turn) -> bool:
    return asks_now(turn, "power") and asks_now(turn, "server")


def plan_args(turn: Turn, gpu: str, servers: int | None, gpus: int | None) -> dict:
    """The plan_facility arguments for ``gpu`` at the stated counts, rack budget, PUE, tariff, region and feeds."""
    s = turn.slots
    currency = _currency(turn)
    rack_kw, capacity_kw = s.rack_power_kw, None
    if rack_kw is not None and rack_kw > shipped_facility_data().planning.largest_rack_kw.value:  # "500 kW of capacity": a room
        rack_kw, capacity_kw = None, rack_kw
    if on_wall_socket(turn):
        # One machine on one office socket: a count and a rack budget said earlier in the thread describe the data
        # centre, not the office, so only a count this message states is kept.
        rack_kw = capacity_kw = None
        if not turn.reading.frame.has("server_count"):
            servers, gpus = 1, None
    return {
        "gpu": gpu,
        "servers": servers,
        "gpus": gpus,
        "gpus_per_server": s.gpus_per_server or one_machine_holds(turn, gpu, servers, gpus),
        "rack_power_kw": rack_kw,
        "capacity_kw": capacity_kw,
        "pue": s.pue,
        "electricity_price": _in(s.power_price, currency),
        "currency": currency,
        "region": turn.ask.site_region or s.region,  # where the servers run picks its own power and colocation prices
        "one_rack": in_one_rack(turn) or None,
        "circuit": turn.ask.circuit or wall_socket(turn),  # the site's feeds hold for the whole conversation
    }


def one_machine_holds(turn: Turn, gpu: str, servers: int | None, gpus: int | None) -> int | None:
    """Fewer cards than a server holds, in one machine ("a 2-GPU tower", a dual-card workstation, "4x 4090 in one box"):
    one machine of that many cards, so its power and cooling are that machine's, not an 8-GPU rack server's. A part sold
    in its own reference system (DGX, NVL72) keeps that system unless the user's own desktop or workstation is said.
    None: the default server."""
    cards = gpus or (turn.slots.gpu_count if servers == 1 else None)  # "one box with 4 cards": counts() keeps the box
    if not cards or (servers or 1) != 1 or cards >= SERVER_GPUS:
        return None
    if turn.ask.personal_machine or shipped_facility_data().system_for(gpu) is None:
        return cards
    return None


def on_wall_socket(turn: Turn) -> bool:
    """"Can one of them run in the office on a normal socket?" with no feeds stated: the feeds are one wall socket."""
    return turn.ask.circuit is None and asks_now(turn, "socket")


def socket_of(turn: Turn):
    """The wall socket taken for the site's market (mainland China, else the North American default)."""
    market = turn.ask.market or ("cn" if turn.ask.site_region == "cn" or _currency(turn) == "CNY" else None)
    return shipped_facility_data().circuits.wall_socket(market)


def wall_socket(turn: Turn) -> dict | None:
    """The plan_facility ``circuit`` of one ordinary wall socket, when that is what the message asks about."""
    if not on_wall_socket(turn):
        return None
    socket = socket_of(turn)
    return {"amps": socket.amps, "volts": socket.volts, "feeds": 1}


def counts(turn: Turn) -> tuple[int | None, int | None]:
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


def gpu_of(turn: Turn) -> str:
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


def fleet(turn: Turn) -> bool:
    """More than one server: a count of servers, or more cards than one server holds ("8 GPUs" alone is one server)."""
    servers, gpus = counts(turn)
    return (servers or 0) > 1 or (gpus or 0) > SERVER_GPUS


def in_one_rack(turn: Turn) -> bool:
    """Several servers asked about in one rack ("two servers in one rack"); "how many per rack" of one server asks how many fit instead."""
    return fleet(turn) and not turn.slots.frame.has("rack_power") and asks(turn, "one_rack")


def asks_now(turn: Turn, what: str) -> bool:
    """Whether this message itself asks for ``what``: a word from an earlier turn does not redirect a later one."""
    return what in turn.ask.facility_asks_now


def bill_asked(turn: Turn) -> bool:
    """This message asks for the electricity bill ("and the power bill?", "what is the electricity per year?")."""
    return asks_now(turn, "bill") or turn.ask.tco_line == "energy"


def asks(turn: Turn, what: str) -> bool:
    """Whether the question, with the follow-ups that changed it, asks for ``what`` (words in nlu/data/site_words.yaml)."""
    return what in turn.ask.facility_asks
