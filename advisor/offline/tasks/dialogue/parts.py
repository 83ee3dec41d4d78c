"""A part of a several-question message that runs no calculation of its own (``without_calculation``): a site question
gets the facility plan of the thread's hardware, anything else the cards. Which part asks its own question is plan.py's
(``asks_its_own``, ``with_context``), the opening line and the pointers back are render.py's (``combined``,
``without_repeats``)."""

from __future__ import annotations

from collections.abc import Callable

from advisor.offline.tasks.dialogue.plan import FACILITY_ASKS
from advisor.offline.tasks.dialogue.render import PARTS
from advisor.offline.tasks.facility import facility
from advisor.offline.tasks.facility import plan as facility_plan
from advisor.offline.turn import Turn


def without_calculation(part: Turn, from_cards: Callable[[Turn], str]) -> str:
    """A part that runs no calculation of its own: a question no card or tool covers says so and what can be done;
    a site question (cooling, power, network of the thread's servers) gets the facility plan; anything else the
    cards (``from_cards``)."""
    if part.ask.beyond_reach:
        return PARTS.say(part, "beyond_reach")
    if facility_plan.fabric_for_one_server(part):
        return from_cards(part)
    if part.ask.facility_asks_now & FACILITY_ASKS and (facility_plan.asks_fabric(part) or facility_plan.takes_over(part) or part.slots.gpus):
        return facility.answer(part)
    return from_cards(part)
