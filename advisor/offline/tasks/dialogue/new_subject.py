"""A follow-up that asks a side of the thread's configuration its calculation did not answer (``Ask.follow_up_subject``,
data/follow_up_subjects.yaml ``new_subjects``): "how much power would that draw? fits a 15 kW rack?" after a
recommendation gets the site plan of the recommended cards, "and what would that cost?" after a sizing the price of a
configuration that holds it, "does the chassis matter?" the card on chassis read against that configuration. The
follow-up's own subject decides the answer; the thread's configuration (model, cards, count, servers, TP split,
precision: what the answer concluded with, setup_question.layout_of) is carried into it from the calculation behind the previous answer (the tool calls the client sent back, else that calculation run
again, unseen). The previous answer is never repeated: when nothing new can be worked out, the answer says what can be
computed for that configuration and asks one question. Whether a message is a new subject and the turn it is answered
on are plan.py's (``asks_new_subject``, ``carried``, ``price_args``); its sentences render.py's."""

from __future__ import annotations

from collections.abc import Callable

from advisor.contract import ToolCall
from advisor.nlu.frame import SlotValue
from advisor.offline.tasks.concept import knowledge
from advisor.offline.tasks.dialogue import plan, render
from advisor.offline.tasks.dialogue.plan import TaskAnswers
from advisor.offline.tasks.dialogue.setup_question import layout_of
from advisor.offline.tasks.facility import facility
from advisor.offline.tasks.tco import rent_prices
from advisor.offline.turn import Turn


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


def answer(turn: Turn, thread: Turn, thread_task: str, tasks: TaskAnswers, previous: list[ToolCall] = (), route: str | None = None) -> str:
    """The new subject's answer for the thread's configuration (``thread``: the previous message's turn), with a line
    saying which configuration that is; ``route``: the answer a caller already chose (the site of the thread)."""
    subject = turn.ask.follow_up_subject
    route = route or subject.route
    layout = configuration(turn, thread, thread_task, tasks, list(previous))
    inner = plan.carried(turn, layout, route if route in tasks else thread_task)
    turn.compared_itself = True  # a new question, not a changed value: no "with … instead of …" lead
    if route == "facility":
        body = facility.answer(inner) if layout is not None or inner.slots.gpus else ""
    elif route == "price" and layout is not None and turn.ask.asks_rental_price:  # "what would that cost to rent per month?": the rent, not the purchase
        body = rent_prices.answer(inner)
    elif route == "price":
        body = _price(inner, layout) if layout is not None else tasks["recommend"](plan.carried(turn, None, "recommend"))
    elif route == "card":  # the card read against the configuration (followup.with_setup names it): no second note
        query = subject.query  # the subject's own search words (a card named in them would narrow the cards that may answer)
        question = getattr(query, turn.language)[0] if query is not None else None
        # searched as a question of its own: the configuration's card would narrow the cards allowed to answer to those naming it
        return render.with_setup(inner, knowledge.concept(turn, question=question, no_calculation=True)) or render.cannot(turn, layout)
    else:
        body = tasks[route](inner)
    turn.slots.mark(*inner.slots.used)
    turn.entities.mark(*inner.entities.used)
    if not body.strip():
        return render.cannot(turn, layout)
    if layout is None:
        return body
    blocks = body.split("\n\n")
    note = render.NEW_SUBJECT.say(turn, "for_configuration", config=render.config_words(turn, layout))
    return "\n\n".join([blocks[0], note, *blocks[1:]])


def _price(turn: Turn, layout: dict) -> str:
    """What the thread's configuration costs (estimate_server_price at plan.price_args, worded by render.price); a price
    the tool cannot give leaves the body empty."""
    args = plan.price_args(turn, layout)
    outcome = turn.call("estimate_server_price", args)
    return render.price(turn, layout, args, outcome.result) if outcome.ok else ""


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
    turn.assume(*render.NEW_SUBJECT.both("kept_count", config=render.config_words(turn, layout)))
