"""A question of several measures in one sentence ("power draw and network for 4x8 H100 nodes?", "how much VRAM and how
fast on 2x4090?"): every measure asked (``Ask.parts``) is answered, each by its own calculation, in the order asked; and a
limit the user states ("our racks are 25 kW", "budget $150k") is judged against the figure the answer computed, before the
verdict. Which tool answers a measure and which figure a limit bounds are data (``measure_parts.yaml``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from advisor.markdown import money, number
from advisor.offline.turn import Turn
from knowledge.wording import Wording
from tools.cost.money import DEFAULT_USD_TO_CNY, convert

DATA_FILE = Path(__file__).with_name("measure_parts.yaml")
WORDING = Wording(Path(__file__).with_name("planner_text.yaml"))
LOOKUPS = frozenset({"search_knowledge", "check_capability"})


class Measure(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answered_by: list[str] = Field(min_length=1)
    task: str
    facility: list[str] = []


class Figure(BaseModel):
    model_config = ConfigDict(extra="forbid")
    field: str
    currency: str | None = None


class Limit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str
    per: list[str] = []
    figures: dict[str, Figure] = Field(min_length=1)
    judged_by: list[str] = []


class PartsData(BaseModel):
    model_config = ConfigDict(extra="forbid")
    measures: dict[str, Measure]
    limits: dict[str, Limit]


@lru_cache(maxsize=1)
def parts_data() -> PartsData:
    return PartsData.model_validate(yaml.safe_load(DATA_FILE.read_text(encoding="utf-8")))


def _ran(turn: Turn, since: int = 0) -> set[str]:
    return {call.name for call in turn.calls[since:] if call.ok and call.name not in LOOKUPS}


def answered(measure: str, tools: set[str]) -> bool:
    known = parts_data().measures.get(measure)
    return known is None or bool(tools & set(known.answered_by))


def unanswered(turn: Turn) -> list[str]:
    """The measures of a several-measure question that the calculation given so far did not answer; none for a question of
    one measure, or when no calculation ran (a card answers a judgement; parts are for figures)."""
    tools = _ran(turn)
    if len(turn.ask.parts) < 2 or not tools:
        return []
    return [measure for measure in turn.ask.parts if not answered(measure, tools)]


def part_turn(turn: Turn, measure: str) -> Turn:
    """The turn of one part: the same message, read as the measure's calculation, asking the site only what this part
    asks ("power draw and network": the power part is no network count); its calls and sources join the answer's."""
    known = parts_data().measures[measure]
    reading = replace(turn.reading, intent=known.task, task=known.task, confidence=1.0)
    part = Turn(turn.message, reading, turn.registry, turn.catalog, turn.calls, turn.sources, turn.assumptions, earlier=turn.earlier)
    others = {ask for name in turn.ask.parts if name != measure for ask in parts_data().measures[name].facility if name in parts_data().measures}
    asks = (part.ask.facility_asks_now - others) | set(known.facility)
    part.ask = part.ask.model_copy(update={"facility_asks_now": frozenset(asks), "facility_asks": frozenset((part.ask.facility_asks - others) | asks),
                                           "parts": (measure,)})
    return part


def answer_parts(turn: Turn, body: str, answer: Callable[[Turn], str]) -> list[tuple[tuple[str, ...], str]]:
    """``body`` (the answer given) and one answer per measure it left out, each run by ``answer`` on its part's turn, in
    the order the measures were asked: [(measures answered, text)]. A part whose calculation cannot answer its measure
    (a value it needs was not stated) is left out rather than asked back."""
    missing = unanswered(turn)
    if not missing:
        return []
    given = tuple(m for m in turn.ask.parts if m not in missing)
    found = [(given, body)]
    for measure in missing:
        if any(measure in measures for measures, _ in found):
            continue
        before = len(turn.calls)
        text = answer(part_turn(turn, measure))
        tools = _ran(turn, before)
        if not text or not answered(measure, tools):
            del turn.calls[before:]
            continue
        found.append((tuple(m for m in missing if m == measure or (m not in given and answered(m, tools) and not any(m in f for f, _ in found))), text))
    if len(found) < 2:
        return []
    order = {measure: index for index, measure in enumerate(turn.ask.parts)}
    return sorted(found, key=lambda item: min((order[m] for m in item[0]), default=len(order)))


def label(turn: Turn, measures: tuple[str, ...]) -> str:
    labels = [turn.t(*WORDING.pair(f"measure_labels.{m}")) for m in measures]
    return turn.t(*WORDING.pair("measure_label_joiner")).join(labels)


# ---- limits ---------------------------------------------------------------------------------------------------------


def _field(result: Any, path: str) -> Any:
    for step in path.split("."):
        if isinstance(result, list):
            result = result[int(step)] if step.isdigit() and int(step) < len(result) else None
        elif isinstance(result, dict):
            result = result.get(step)
        else:
            return None
    return result


def _stated(turn: Turn, slot: str, limit: Limit) -> tuple[float, str | None] | None:
    """The limit as stated in this conversation: an amount (and its currency for money), or None."""
    if not turn.reading.state.has(slot):
        return None
    if limit.kind == "money":
        amount = getattr(turn.slots, slot, None)
        if amount is None or (limit.per and getattr(amount, "per", "once") not in limit.per):
            return None
        return float(amount.amount), amount.currency
    value = turn.reading.state.get(slot)
    return (float(value), None) if isinstance(value, int | float) else None


def _shown(turn: Turn, kind: str, value: float, currency: str | None) -> str:
    if kind == "money":
        return money(value, currency or "USD")
    return turn.t(*WORDING.pair(f"limit_units.{kind}")).format(value=number(value, 1))


BLOCK_STARTS = ("#", "|", "- ", "* ", "```", ">", "1. ")  # markdown blocks that cannot share a paragraph with a sentence


def judge_limits(turn: Turn, body: str) -> str:
    """``body`` led by a verdict on each stated limit that a figure of this answer's calculations meets or breaks, unless
    the answer's own lead already judges it (measure_parts.yaml ``judged_by``, or ``turn.judged``)."""
    lines = []
    for slot, limit in parts_data().limits.items():
        if slot in turn.judged:
            continue
        call = next((c for c in turn.calls if c.ok and c.result and c.name in limit.figures), None)
        if call is None or call.name in limit.judged_by:
            continue
        stated = _stated(turn, slot, limit)
        figure = limit.figures[call.name]
        value = _field(call.result, figure.field)
        if stated is None or not isinstance(value, int | float):
            continue
        currency = _field(call.result, figure.currency) if figure.currency else None
        bound = convert(stated[0], stated[1], currency, DEFAULT_USD_TO_CNY) if limit.kind == "money" and stated[1] and currency else stated[0]
        shown = {"name": turn.t(*WORDING.pair(f"limit_names.{slot}")), "limit": _shown(turn, limit.kind, stated[0], stated[1]),
                 "figure": turn.t(*WORDING.pair(f"limit_figures.{slot}")).format(value=_shown(turn, limit.kind, float(value), currency)),
                 "spare": _shown(turn, limit.kind, bound - value, currency), "excess": _shown(turn, limit.kind, value - bound, currency)}
        lines.append(turn.t(*WORDING.pair("limit_judged.within" if value <= bound else "limit_judged.over")).format(**shown))
        turn.judged.add(slot)
    if not lines:
        return body
    # one paragraph: the limit's verdict, then the answer's own lead (the configuration, the price, the load it is sized for),
    # so the lead still opens the answer; a body that opens with a block (heading, table, list, code) keeps it apart
    lead, gap, rest = body.partition("\n\n")
    if lead and not lead.lstrip().startswith(BLOCK_STARTS):
        joined = turn.t(" ", "").join([*lines, lead])  # Chinese sentences follow one another without a space
        return "\n\n".join([joined, rest]) if gap else joined
    return "\n\n".join([*lines, body])
