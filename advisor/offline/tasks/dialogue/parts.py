"""A message that asks several questions: each part's verdict, numbered, in one opening line, so the first screen
answers all of them; the parts follow, each with its own answer."""

from __future__ import annotations

from collections.abc import Callable

from advisor.nlu.facets import SPECS
from advisor.offline.tasks.facility import facility
from advisor.offline.tasks.facility import plan as facility_plan
from advisor.offline.wording import Wording
from advisor.offline.turn import Turn

WORDING = Wording("dialogue", "parts")
VERDICT_CHARS = 160  # one line of the opening per part; the part's own answer below has the rest
SENTENCE_ENDS = ("。", "！", "？", ". ", "! ", "? ")
NOT_A_VERDICT = ("🧮", "📌", "|", "- ", "```")  # an offer, a noted value, a table, a list, a command: not the answer


def verdict_of(body: str) -> str:
    """The first sentence of an answer: past a bold title line, plain (no bold), cut to one line."""
    for paragraph in body.split("\n\n"):
        line = paragraph.strip().split("\n")[0].strip()
        if not line or line.startswith(NOT_A_VERDICT) or (line.startswith("**") and line.endswith("**") and line.count("**") == 2):
            continue
        plain = line.replace("**", "").replace("__", "")
        ends = [plain.find(end) for end in SENTENCE_ENDS if end in plain]
        sentence = plain[: min(ends) + 1] if ends else plain
        return sentence if len(sentence) <= VERDICT_CHARS else sentence[: VERDICT_CHARS - 1].rstrip() + "…"
    return ""


def combined(turn: Turn, bodies: list[str]) -> str:
    """The opening line: "In short: (1) … (2) …" from each part's first sentence."""
    verdicts = [WORDING.say(turn, "verdict", index=index, verdict=verdict)
                for index, body in enumerate(bodies, 1) if (verdict := verdict_of(body))]  # fmt: skip
    if len(verdicts) < 2:
        return ""
    return WORDING.say(turn, "combined", verdicts=WORDING.say(turn, "joiner").join(verdicts))


# what a part asks of a site that the facility plan answers for the hardware of the thread
FACILITY_TASK = "facility"
RACK_PLAN_FIGURES = frozenset({"per_rack", "one_rack"})  # servers per rack: every rack plan states it
FACILITY_ASKS = frozenset({"cooling", "fabric", "fabric_choice", "power", "bill", "site", "prepare", "one_rack", "per_rack"})


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


def without_calculation(part: Turn, from_cards: Callable[[Turn], str]) -> str:
    """A part that runs no calculation of its own: a question no card or tool covers says so and what can be done;
    a site question (cooling, power, network of the thread's servers) gets the facility plan; anything else the
    cards (``from_cards``)."""
    if part.ask.beyond_reach:
        return WORDING.say(part, "beyond_reach")
    if facility_plan.fabric_for_one_server(part):
        return from_cards(part)
    if part.ask.facility_asks_now & FACILITY_ASKS and (facility_plan.asks_fabric(part) or facility_plan.takes_over(part) or part.slots.gpus):
        return facility.answer(part)
    return from_cards(part)


def without_repeats(turn: Turn, bodies: list[str], questions: list[str] = ()) -> list[str]:
    """A part whose answer opens with the same sentence as an earlier part's (the same card found twice) points back to
    that part instead of repeating it: one answer per question, no section twice. With the parts' ``questions`` the
    pointer names the question it has no answer of its own for, and says what can be worked out instead."""
    kept: list[str] = []
    for number, body in enumerate(bodies):
        verdict = verdict_of(body)
        earlier = next((index for index, shown in enumerate(kept, 1) if verdict and verdict_of(shown) == verdict), None)
        if earlier is None:
            kept.append(body)
        elif number < len(questions) and questions[number]:
            kept.append(WORDING.say(turn, "repeated_question", index=earlier, question=questions[number].strip().rstrip("?？!！。. ")))
        else:
            kept.append(WORDING.say(turn, "repeated", index=earlier))
    return kept


def with_context(part: Turn, after_part: bool) -> str | None:
    """A later part that names nothing of its own ("…second-hand A100s? what are the risks?") is searched with the part
    before it, so the card found is about that subject; None (the part alone) otherwise."""
    if not after_part or part.ask.named or not part.earlier or part.reading.facet.name != SPECS:  # "and cooling?" has a topic of its own
        return None
    return f"{part.earlier[-1]} {part.reading.text}"
