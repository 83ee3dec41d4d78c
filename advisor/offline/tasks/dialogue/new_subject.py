"""A follow-up that asks a side of the thread's configuration its calculation did not answer (``Ask.follow_up_subject``,
data/follow_up_subjects.yaml ``new_subjects``): "how much power would that draw? fits a 15 kW rack?" after a
recommendation gets the site plan of the recommended cards, "and what would that cost?" after a sizing the price of a
configuration that holds it, "does the chassis matter?" the card on chassis read against that configuration. The
follow-up's own subject decides the answer; the thread's configuration (model, cards, count, servers, TP split,
precision: what the answer concluded with, setup_question.layout_of) is carried into it from the calculation behind the previous answer (the tool calls the client sent back, else that calculation run
again, unseen). The previous answer is never repeated: when nothing new can be worked out, the answer says what can be
computed for that configuration and asks one question."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from advisor.contract import ToolCall
from advisor.markdown import money
from advisor.nlu.frame import MONEY_ROLES, Frame, SlotValue  # the roles a stated rate takes
from advisor.offline.tasks.concept import knowledge
from advisor.offline.tasks.dialogue import followup
from advisor.offline.tasks.dialogue.setup_question import layout_of
from advisor.offline.tasks.facility import facility
from advisor.offline.tasks.recommend.price_view import range_text
from advisor.offline.tasks.tco import rent_prices
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from tools.recommend.configs import SERVER_GPUS  # the most cards a standard server holds: a larger count spans several

WORDING = Wording("dialogue", "new_subject")
CARRIED = ("gpu", "gpu_count", "server_count", "gpus_per_server", "tp", "precision")  # the configuration a new subject is asked of
TaskAnswers = dict[str, Callable[[Turn], str]]
PROBLEM = "troubleshoot"  # a problem thread gathers evidence: only a question pointing at its hardware is a new subject



def applies(turn: Turn, thread_task: str | None, tasks: TaskAnswers) -> bool:
    """A later message asking a new subject of a calculated thread, naming no model of its own."""
    subject = turn.ask.follow_up_subject
    if subject is None or thread_task not in tasks:
        return False
    if thread_task in subject.not_after:  # "how fast?" after a speed changes that speed: a re-run
        return False
    if thread_task == PROBLEM and not turn.ask.points_at_setup:  # "could the power supply be the cause?" is evidence for the
        return False  # diagnosis; "what power supply would these need?" asks of the cards the problem runs on
    if thread_task in subject.rerun_with_rate and any(turn.reading.frame.has(role) for role in MONEY_ROLES):
        return False  # "with power at $0.20/kWh?" after rent-or-buy, "renting them at $2.10 an hour?" after a run's time: that calculation with the rate
    if turn.entities.gpus and not turn.reading.follow_up and not turn.ask.points_at_setup:  # "what does an H100 server cost?"
        return False  # after a sizing is a question of its own; "what do those H100s cost?" points at the thread's
    return not (turn.entities.models or turn.entities.params)


def configuration(turn: Turn, thread: Turn, thread_task: str, tasks: TaskAnswers, previous: list[ToolCall]) -> dict | None:
    """The configuration behind the previous answer: from the tool calls the client sent back, else from that answer's
    calculation run again on ``thread`` (the previous message's turn; its words and calls are not shown)."""
    layout = layout_of(turn, previous) if previous else None
    if layout is None:
        tasks[thread_task](thread)
        layout = layout_of(thread, thread.calls)
    servers = thread.reading.state.get("server_count")
    if layout is not None and layout.get("servers", 1) <= 1 and servers:  # "4 of these servers" said earlier
        layout["servers"] = servers
    said = turn.reading.frame  # "and what would 4 H100s cost?": what this message states replaces the thread's
    if said.has("gpu") and (gpu := turn.catalog.find_gpu(str(said.get("gpu")))) is not None:
        layout = {**(layout or {"count": 1, "servers": 1}), "gpu": gpu.id, "label": None, "tp": None}
    if layout is not None:
        for slot, key in (("gpu_count", "count"), ("server_count", "servers")):
            if said.has(slot):  # another count: the split the answer chose for the old one no longer holds
                layout = {**layout, key: said.get(slot), "label": None, "tp": None}
    return layout


def carried(turn: Turn, layout: dict | None, task: str | None) -> Turn:
    """The turn with the thread's configuration in its conversation frame (what this message states wins), answered as ``task``."""
    state = Frame(dict(turn.reading.state.slots))
    if layout is not None:
        servers = max(int(layout.get("servers") or 1), 1)
        values = {"gpu": (layout["gpu"], layout["gpu"]), "gpu_count": (layout["count"], str(layout["count"]))}
        known_servers = servers > 1 or turn.reading.state.has("server_count")
        if known_servers:
            values["server_count"] = (servers, str(servers))
        if layout["count"] % servers == 0 and (known_servers or layout["count"] <= SERVER_GPUS):  # 1,200 cards are no one server
            values["gpus_per_server"] = (layout["count"] // servers, str(layout["count"] // servers))
        # the split and precision the answer concluded with: 1,200 cards sized as 150 copies of TP=8 are no TP=1200 group
        tp = layout.get("tp")
        if tp and layout["count"] % tp == 0 and not turn.reading.state.has("tp"):
            values["tp"] = (tp, str(tp))
        if layout.get("precision") and not turn.reading.state.has("precision"):
            values["precision"] = (layout["precision"], layout["precision"])
        for slot, (value, surface) in values.items():
            if not turn.reading.frame.has(slot):
                state.slots[slot] = [SlotValue(value, surface)]  # start -1: carried, not said in this message
    reading = dataclasses.replace(turn.reading, state=state, task=task or turn.reading.task)
    return dataclasses.replace(turn, reading=reading)  # the same calls, sources and assumptions; the Ask read again


def answer(turn: Turn, thread: Turn, thread_task: str, tasks: TaskAnswers, previous: list[ToolCall] = (), route: str | None = None) -> str:
    """The new subject's answer for the thread's configuration (``thread``: the previous message's turn), with a line
    saying which configuration that is; ``route``: the answer a caller already chose (the site of the thread)."""
    subject = turn.ask.follow_up_subject
    route = route or subject.route
    layout = configuration(turn, thread, thread_task, tasks, list(previous))
    inner = carried(turn, layout, route if route in tasks else thread_task)
    turn.compared_itself = True  # a new question, not a changed value: no "with … instead of …" lead
    if route == "facility":
        body = facility.answer(inner) if layout is not None or inner.slots.gpus else ""
    elif route == "price" and layout is not None and turn.ask.asks_rental_price:  # "what would that cost to rent per month?": the rent, not the purchase
        body = rent_prices.answer(inner)
    elif route == "price":
        body = _price(inner, layout) if layout is not None else tasks["recommend"](carried(turn, None, "recommend"))
    elif route == "card":  # the card read against the configuration (followup.with_setup names it): no second note
        query = subject.query  # the subject's own search words (a card named in them would narrow the cards that may answer)
        question = getattr(query, turn.language)[0] if query is not None else None
        # searched as a question of its own: the configuration's card would narrow the cards allowed to answer to those naming it
        return followup.with_setup(inner, knowledge.concept(turn, question=question, no_calculation=True)) or _cannot(turn, layout)
    else:
        body = tasks[route](inner)
    turn.slots.mark(*inner.slots.used)
    turn.entities.mark(*inner.entities.used)
    if not body.strip():
        return _cannot(turn, layout)
    if layout is None:
        return body
    blocks = body.split("\n\n")
    note = WORDING.say(turn, "for_configuration", config=_config_words(turn, layout))
    return "\n\n".join([blocks[0], note, *blocks[1:]])


def _price(turn: Turn, layout: dict) -> str:
    """What the thread's configuration costs: the whole machines (cards and the host of their server class), per server
    and in all, from estimate_server_price; a price the tool cannot give leaves the body empty."""
    servers = max(int(layout.get("servers") or 1), 1)
    per_server = math.ceil(layout["count"] / servers)
    outcome = turn.call("estimate_server_price", {"gpu": layout["gpu"], "gpus": per_server, "currency": turn.currency})
    if not outcome.ok:
        return ""
    r, whole = outcome.result, outcome.result.get("whole")
    if not whole:  # no dated card price: what is known for this configuration, and the one figure that completes it
        if r.get("host") is None:
            return ""
        return WORDING.say(turn, "price.no_card_price", config=_config_words(turn, layout), gpu=r.get("gpu_name") or layout["gpu"],
                           host=money(r["host"], turn.currency), servers=servers, per_server=per_server)
    currency = whole["currency"]
    figures = {"config": _config_words(turn, layout), "total": range_text(whole["low"] * servers, whole["high"] * servers, currency),
               "each": range_text(whole["low"], whole["high"], currency), "servers": servers, "per_server": per_server, "gpu": r["gpu_name"],
               "host": money(r["host"], currency) if r.get("host") is not None else "—", "date": whole["date"],
               "card": range_text(r["card"]["low"], r["card"]["high"], currency) if r.get("card") else "—"}  # fmt: skip
    lines = [WORDING.say(turn, "price.lead", **figures)]
    if whole["basis"] != "quote":
        lines.append(WORDING.say(turn, "price.parts", **figures))
    lines.append(WORDING.say(turn, "price.estimate" if whole["basis"] == "estimate" else "price.dated", **figures))
    lines.append(WORDING.say(turn, "price.next"))
    for source in whole.get("sources", [])[:3]:
        turn.cite(f"price:{layout['gpu']}:{source[:40]}", r["gpu_name"], source, citation=source)
    return "\n\n".join(lines)


def _config_words(turn: Turn, layout: dict) -> str:
    """"4× Instinct MI300X in 1 server" as the reader knows it: the recommendation's own label when it has one."""
    if layout.get("label"):
        return layout["label"]
    gpu = turn.catalog.find_gpu(layout["gpu"])
    name = gpu.name if gpu else layout["gpu"]
    servers = max(int(layout.get("servers") or 1), 1)
    key = "config.servers" if servers > 1 else "config.cards"
    words = WORDING.say(turn, key, count=layout["count"], gpu=name, servers=servers, per_server=layout["count"] // servers)
    tp = layout.get("tp")
    if tp and layout["count"] > tp and layout["count"] % tp == 0:  # "1200× L20 (150 copies at TP=8)": the split the answer chose
        words += WORDING.say(turn, "config.copies", copies=layout["count"] // tp, tp=tp)
    return words


def _cannot(turn: Turn, layout: dict | None) -> str:
    """Nothing new to work out: what the advisor can compute for the configuration, and one precise question."""
    if layout is None:
        return WORDING.say(turn, "cannot.no_configuration")
    return WORDING.say(turn, "cannot.for_configuration", config=_config_words(turn, layout))


# Answers whose count is an input, not the question, and that no new-subject route above already gives the thread's
# configuration (a speed, a price or a site asked of it are answered for that configuration there)
TAKES_A_COUNT = ("training_time",)
CONCLUDED_BY = ("recommend_gpus", "estimate_training_time", "estimate_throughput")  # calls whose count the answer chose


def keep_concluded_count(turn: Turn, task: str | None, previous: list[ToolCall], thread_layout: Callable[[], dict | None]) -> None:
    """"how many H100s for an 8B full fine-tune?" (4) then "how long for 1B tokens?": the run is timed on the 4 cards
    the previous answer concluded with, not on a default 8. A count (with its card) that no message stated but the previous
    answer chose is put into this turn's conversation frame, as carried (start -1), and said as an assumption.
    ``thread_layout`` runs the previous answer's calculation again when the client did not send its calls back."""
    state = turn.reading.state
    if task not in TAKES_A_COUNT or not turn.earlier or turn.count_asked or any(state.has(slot) for slot in ("gpu_count", "server_count")):
        return
    layout = layout_of(turn, previous) if previous else thread_layout()
    # the layout is read from a call whose count the answer chose, not from a sizing of the cards as stated
    chose = layout is not None and (not previous or any(call.name in CONCLUDED_BY and call.args is layout["args"] for call in previous))
    if not chose or not layout.get("count") or (state.has("gpu") and state.get("gpu") != layout["gpu"]):
        return
    carried_values = {"gpu": layout["gpu"], "gpu_count": layout["count"]}
    for frame in {id(f): f for f in (state, turn.slots.frame)}.values():  # the Slots view may hold the state itself
        for slot, value in carried_values.items():
            frame.slots.setdefault(slot, [SlotValue(value, str(value))])
    turn.assume(*WORDING.both("kept_count", config=_config_words(turn, layout)))
