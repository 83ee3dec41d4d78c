"""The dialogue task's plan: what a message does to the thread, read from the Ask and the conversation's frames
(render.py words it; the answer modules setup_question.py, new_subject.py and parts.py run the calls; setup_render.py
words setup_question's results). The router's and the planner's conditions: a follow-up's changed values (``changes``),
a question of its own about the thread's setup (``asks_of_setup``), a new subject asked of a calculated thread
(``asks_new_subject``) and the turn that carries the thread's configuration into its answer (``carried``) with its
price's arguments (``price_args``), and whether a part of a several-question message asks its own question
(``asks_its_own``, ``with_context``). A changed value is echoed as the user said it (a card by its catalog name, a
length as the tokens read with its unit); nothing else is worded."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

from advisor.contract import ToolCall
from advisor.nlu.facets import SPECS
from advisor.nlu.frame import MONEY_ROLES, Frame, SlotValue  # the roles a stated rate takes
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from tools.recommend.configs import SERVER_GPUS  # the most cards a standard server holds: a larger count spans several

FOLLOWUP = Wording("dialogue", "followup")
NOT_TOLD = {"already_tried", "claim"}  # facts of a story, not values of a calculation
# "4 nodes of 8" states servers and cards per server; the total they make is the change a reader checks
PARTS_OF_TOTAL = ("server_count", "gpus_per_server")
COUNTED = {"concurrency", "batch", "audience", "server_count", "gpus_per_server", "tp", "pp", "dp"}  # "50 concurrent users" is shown as 50
RUNNING_COST = "running_cost:"  # a Change of a running cost (Ask.running_costs) rather than of a slot
# a problem thread gathers facts: only a value it replaces is a change, only a question pointing at its hardware a new subject
PROBLEM = "troubleshoot"


@dataclass(frozen=True)
class Change:
    slot: str
    new: str  # as this message states it (a card by its catalog name, a count as the total)
    old: str | None  # as the thread had it; None when the calculation used its default


def changes(turn: Turn) -> list[Change]:
    """The values this follow-up states that differ from what the thread held before it."""
    reading = turn.reading
    continues = reading.follow_up or (reading.intent == PROBLEM and turn.ask.thread_messages > 1)
    if not continues or not turn.earlier:  # a first message read as a follow-up changes nothing: there was nothing before it
        return []
    found = []
    running = {(said.start, said.surface) for said in turn.ask.running_costs}  # "colo at $180/kW-month": no rent nor price
    for slot in reading.frame.names():
        values = [v for v in reading.frame.slots[slot] if (v.start, v.surface) not in running]
        if not values:
            continue
        # a value carried beside the new one ("vs L40S" keeps the A6000, start -1) sets cards side by side: nothing replaced
        if slot in NOT_TOLD or any(v.start < 0 for v in values):
            continue
        if reading.before.all(slot) == [v.value for v in values]:  # said again, unchanged
            continue
        if slot in PARTS_OF_TOTAL and reading.frame.has("gpu_count"):
            continue
        old = _shown(turn, slot, reading.before.slots.get(slot, []))
        if old is None and reading.task == PROBLEM:
            continue
        found.append(Change(slot, _shown(turn, slot, values) or "", old))
    for said in turn.ask.running_costs:  # "what if the colo charges $180/kW-month?": a running cost the re-run now uses
        if said.start >= 0:
            unit = FOLLOWUP.say(turn, "per_kw_month") if said.per_kw else ""
            found.append(Change(RUNNING_COST + said.role, said.surface + unit, None))
    return found


def counts_only(turn: Turn) -> bool:
    """A follow-up that changes the number of cards or servers and nothing else ("and with 32 of them?")."""
    found = changes(turn)
    return bool(found) and all(change.slot in COUNTS for change in found)


def used_by_answer(turn: Turn, change: Change) -> bool:
    """Whether the calculation this turn ran read the changed value: a region or a budget stated after a memory answer is
    not an input of that figure, so the re-run cannot have moved because of it (a running cost always is one)."""
    if change.slot.startswith(RUNNING_COST):
        return True
    return change.slot in turn.slots.used or change.slot in turn.entities.used or not turn.calls


def _shown(turn: Turn, slot: str, values: list[SlotValue]) -> str | None:
    """A value as the reader knows it: a card or a model by its catalog name, a total of cards as the number (the user's "8" in
    "4 nodes of 8" is 32 cards), anything else as the user wrote it."""
    if slot == "gpu":
        said = [gpu.name if (gpu := turn.catalog.find_gpu(v.value)) else v.surface.strip() for v in values]
    elif slot == "model":  # "Llama 3.1 8B instead of Qwen2.5-32B", as the catalog names them, not the ids the reader keeps
        said = [model.name if (model := turn.catalog.find_model(str(v.value))) else v.surface.strip() for v in values]
    elif slot == "gpu_count":
        said = [str(v.value) for v in values]
    elif slot in FOLLOWUP.data["units"]:  # "32k context" is shown as the length read, with its unit
        said = [_measured(turn, slot, v) for v in values]
    else:
        said = [_plain(v) if slot in COUNTED else v.surface.strip() for v in values if v.surface.strip()]
    return " + ".join(said) if said else None


def _measured(turn: Turn, slot: str, value: SlotValue) -> str:
    """A value with a unit (text.yaml followup.units) as the number read and that unit: "32,768 tokens"."""
    if isinstance(value.value, int | float) and not isinstance(value.value, bool):
        return f"{value.value:,.0f} " + FOLLOWUP.say(turn, f"units.{slot}")
    return value.surface.strip()


def _plain(value: SlotValue) -> str:
    """A count the user wrote inside words ("50 concurrent users") as the number alone: the label says
    what it counts."""
    if isinstance(value.value, int) and not isinstance(value.value, bool):
        return f"{value.value:,}"
    return value.surface.strip()


# ---- a question of its own about the thread's setup (setup_question.py answers it) ----
CONCEPT = "concept"  # a general question asked inside a calculation's thread keeps that thread's task and values
# the threads whose answer holds a serving layout: a speed, a recommendation, a sizing
LAYOUT_TASKS = {"scaling": frozenset({"serving_speed", "recommend"}), "interconnect": frozenset({"serving_speed", "recommend", "memory", "max_fit"})}
COUNTS = frozenset({"gpu_count", "server_count", "gpus_per_server"})  # "will 4 cards be 4x faster?" may change the count, nothing else
SUBJECT_SLOTS = {"scaling": frozenset(), "interconnect": frozenset({"gpu_form"})}  # "is PCIe enough?" reads PCIe as a card's form: the link asked about


def thread_task(turn: Turn, task: str | None) -> str | None:
    """The calculation the thread holds: the task a follow-up continues, or the open one a general question is asked in
    ("is PCIe enough between them?" reads as a concept question, yet the thread's layout is what it asks about)."""
    reading = turn.reading
    return task if reading.follow_up else reading.task if reading.intent == CONCEPT else None


def asks_of_setup(turn: Turn, task: str | None) -> bool:
    """A follow-up in a thread with a layout that asks a subject of its own and changes at most the card count."""
    asked = turn.ask.follow_up_asks
    reading = turn.reading
    if asked is None or thread_task(turn, task) not in LAYOUT_TASKS[asked]:
        return False
    stated = set(reading.frame.names()) - COUNTS - SUBJECT_SLOTS[asked]
    # "if we add a second L40S, does it double the speed?" names the thread's card again: only the count changes
    same_card = reading.frame.all("gpu") == reading.before.all("gpu")
    return stated <= {"gpu"} and (not stated or same_card)


# ---- a new subject asked of a calculated thread (new_subject.py answers it) ----
TaskAnswers = dict[str, Callable[[Turn], str]]


def asks_new_subject(turn: Turn, thread_task: str | None, tasks: TaskAnswers) -> bool:
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


def price_args(turn: Turn, layout: dict) -> dict:
    """estimate_server_price's arguments for the thread's configuration ``layout``: the cards of one server (the count
    spread over its servers), in the answer's currency."""
    servers = max(int(layout.get("servers") or 1), 1)
    return {"gpu": layout["gpu"], "gpus": math.ceil(layout["count"] / servers), "currency": turn.currency}


# ---- the parts of a message that asks several questions (parts.py, planner.py) ----
# what a part asks of a site that the facility plan answers for the hardware of the thread
FACILITY_TASK = "facility"
RACK_PLAN_FIGURES = frozenset({"per_rack", "one_rack"})  # servers per rack: every rack plan states it
FACILITY_ASKS = frozenset({"cooling", "fabric", "fabric_choice", "power", "bill", "hosting", "site", "prepare", "one_rack", "per_rack"})


def asks_its_own(part: Turn, task: str | None = None) -> bool:
    """A later part that reads as the calculation an earlier part already runs (``task``), yet asks something else of it
    ("…? And what about cooling for that server?"): answered on its own, not folded into that calculation. A part that
    only changes a value ("…? and with 8k context?") or asks the figure that calculation already gives ("…in our 15 kW
    racks? how many per rack?" after a rack plan) is the same question told in steps."""
    asks = part.ask.facility_asks_now
    if task == FACILITY_TASK and asks and asks <= RACK_PLAN_FIGURES:
        return False
    if asks & FACILITY_ASKS or part.ask.beyond_reach:
        return True
    return not part.reading.frame.names() and part.reading.facet.name != SPECS


def with_context(part: Turn, after_part: bool) -> str | None:
    """A later part that names nothing of its own ("…second-hand A100s? what are the risks?") is searched with the part
    before it, so the card found is about that subject; None (the part alone) otherwise."""
    if not after_part or part.ask.named or not part.earlier or part.reading.facet.name != SPECS:  # "and cooling?" has a topic of its own
        return None
    return f"{part.earlier[-1]} {part.reading.text}"


# ---- the guard and the figure a follow-up asks about: decided here, worded by render.py ----
UNREADABLE = ("empty", "emoji_only", "unsupported")  # language flags that leave nothing to read (in this order)


def unreadable_kind(turn: Turn) -> str | None:
    """Why a message cannot be read (a key of text.yaml guard: empty, emoji only, an unsupported language, nonsense
    naming no model, card or size); None if readable."""
    flags = set(turn.reading.language_info.flags)
    found = next((flag for flag in UNREADABLE if flag in flags), None)
    if found is None and "nonsense" in flags and not (turn.entities.models or turn.entities.gpus or turn.entities.params):
        found = "nonsense"
    return found


def figure_tool(calls: list[ToolCall]) -> ToolCall | None:
    """The call behind an answer's figure: the first successful call of a tool the figure table (text.yaml
    followup.figure.tools) knows; None when the answer ran none."""
    tools = FOLLOWUP.data["figure"]["tools"]
    return next((call for call in calls if call.name in tools and call.result and getattr(call, "ok", True)), None)

