"""The take-overs of a task's own answer, as data: ``take_overs:`` in ``routes.yaml`` lists, per task, the smaller
writers that answer the question another way, in order ("rent or buy?" that weighs an API bill → the API bill; "is
$4.50/h fair for an H100?" → the rental market). The task's answer module supplies the words the table may use (its
conditions and writers, by name) and runs the chain before its own calculation; the order and which condition hands the
question to which writer live in the table.

A take-over runs wherever the task's answer runs (the route ``task``, a redirect, a thread's calculation re-run, a
writer that falls back on another task's answer), which is why it is part of the answer and not a route of its own.
A condition is a name the package gives or a yes/no field of the Ask (``not <name>`` negates); conditions are checked
in order and stop at the first that fails, so a condition that reads a slot (and marks it used) is read exactly where
the former if-chain read it; a condition two rows of one table name is asked once per run (a writer that declines
changes no condition of its table). A writer may decline (return None): the next take-over is tried. A row marked ``leads``
puts its writer's text before the answer instead of replacing it ("the KV cache left after the weights" before a
troubleshooting checklist); an empty lead is no lead, and the rows below it are tried as if it were not there.

Two kinds of table: a task's own (keyed by the task's name in ``tasks:``), which the router runs before the task's
answer (``router.TASKS``) with the words ``router.TAKE_OVER_WORDS`` gathers from the packages; and a writer's (keyed by
its name, e.g. ``spec_sheet``), which that writer runs itself wherever it is called. Every key is claimed by exactly
one ``TakeOvers`` (``claimed``), so a table nobody runs is a test failure, not a silent no-op.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict

from advisor.nlu.ask import Ask
from advisor.offline.turn import Turn

ROUTES_FILE = Path(__file__).with_name("routes.yaml")
NEGATION = "not "

TurnCondition = Callable[[Turn], bool]
Writer = Callable[[Turn], "str | None"]


def unknown_conditions(names: list[str], conditions: dict) -> list[str]:
    """The names of a row's ``when`` that are neither a condition the code gives nor a yes/no field of the Ask
    (``not <name>`` read as <name>): the import-time check shared by routes and take-overs."""
    unknown = []
    for name in names:
        name = name.removeprefix(NEGATION)
        field = Ask.model_fields.get(name)
        if name not in conditions and (field is None or field.annotation is not bool):
            unknown.append(name)
    return unknown


def condition_holds(name: str, conditions: dict, subject, ask: Ask) -> bool:
    """Whether a row's condition holds: a named condition called on ``subject`` (a turn or a routing; what it returns
    read as yes or no), else the Ask's yes/no field; ``not <name>`` negates. Shared by routes and take-overs."""
    negated = name.startswith(NEGATION)
    name = name.removeprefix(NEGATION)
    found = conditions[name](subject) if name in conditions else getattr(ask, name)
    return bool(found) != negated


def all_hold(names: list[str], conditions: dict, subject, ask: Ask) -> bool:
    """Whether all of a row's conditions hold, checked in order and stopping at the first that fails (a route's
    ``when``: one call per row, not one per condition)."""
    return all(condition_holds(name, conditions, subject, ask) for name in names)


class TakeOver(BaseModel):
    """One row of ``take_overs:`` in routes.yaml."""

    model_config = ConfigDict(extra="forbid")
    name: str
    when: list[str] = []
    writer: str
    leads: bool = False  # the writer's text goes before the answer, which still runs (the rows below are still tried)


@lru_cache(maxsize=1)
def routes_data() -> dict:
    """routes.yaml as read, once per process: the router validates its routes from it, take-overs their rows."""
    return yaml.safe_load(ROUTES_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def table() -> dict[str, list[TakeOver]]:
    raw = routes_data().get("take_overs") or {}
    return {task: [TakeOver.model_validate(row) for row in rows] for task, rows in raw.items()}


_CLAIMED: dict[str, "TakeOvers"] = {}


def claimed() -> dict[str, "TakeOvers"]:
    """Each ``take_overs:`` key → the ``TakeOvers`` that runs it (filled as the answer modules and the router import)."""
    return dict(_CLAIMED)


def gathered(*vocabularies: dict) -> dict:
    """The words of several packages in one vocabulary; one name given two different meanings is an error, not a
    silent override."""
    words: dict = {}
    for vocabulary in vocabularies:
        for name, meaning in vocabulary.items():
            if words.get(name, meaning) is not meaning:
                raise LookupError(f"take-over word {name!r} is given two meanings")
            words[name] = meaning
    return words


class TakeOvers:
    """The take-overs of one table (a task's or a writer's), with the conditions and writers its code names."""

    def __init__(self, task: str, conditions: dict[str, TurnCondition], writers: dict[str, Writer], given: tuple[str, ...] = ()):
        """``given``: writers the caller passes at each run (``answer(turn, name=writer)``), where the code that runs
        the table cannot import the writer (the recommendation, which falls back on the memory answer itself)."""
        self.task, self.conditions, self.writers, self.given = task, conditions, writers, given
        self.rows = table().get(task, [])
        unknown = [f"{row.name}: writer {row.writer}" for row in self.rows if row.writer not in writers and row.writer not in given]
        for row in self.rows:
            unknown += [f"{row.name}: condition {name}" for name in unknown_conditions(row.when, conditions)]
        if unknown:
            raise LookupError(f"{ROUTES_FILE.name} take_overs.{task} names what its code does not give: " + "; ".join(unknown))
        if task in _CLAIMED and _CLAIMED[task] is not self:
            raise LookupError(f"{ROUTES_FILE.name} take_overs.{task} is run by two tables")
        _CLAIMED[task] = self

    def _holds(self, name: str, turn: Turn, known: dict[str, bool]) -> bool:
        """``name`` on ``turn``; a condition two rows name is asked once per run (``known``)."""
        bare = name.removeprefix(NEGATION)
        if bare not in known:
            known[bare] = condition_holds(bare, self.conditions, turn, turn.ask)
        return known[bare] != name.startswith(NEGATION)

    def _run(self, turn: Turn, own: Callable[[Turn], str] | None, given: dict[str, Writer]) -> str | None:
        if set(given) != set(self.given):
            raise TypeError(f"take_overs.{self.task} is run with the writers {sorted(self.given)}, not {sorted(given)}")
        writers = {**self.writers, **given}
        leads: list[str] = []
        written = None
        known: dict[str, bool] = {}
        for row in self.rows:
            if all(self._holds(name, turn, known) for name in row.when):
                found = writers[row.writer](turn)
                if row.leads:
                    leads += [found] if found else []
                elif found is not None:
                    written = found
                    break
        if written is None and own is not None:
            written = own(turn)
        return None if written is None else "\n\n".join([*leads, written])

    def answer(self, turn: Turn, **given: Writer) -> str | None:
        """The answer of the first take-over whose conditions hold and whose writer answers (after any leads); None when
        none does. ``given``: the writers named in ``given`` at construction."""
        return self._run(turn, None, given)

    def before(self, answer: Callable[[Turn], str]) -> Callable[[Turn], str]:
        """``answer`` behind this table's take-overs."""

        def taken_over(turn: Turn) -> str:
            return self._run(turn, answer, {})

        return taken_over


class Section(BaseModel):
    """One row of ``sections:`` in routes.yaml."""

    model_config = ConfigDict(extra="forbid")
    name: str
    when: list[str] = []
    unless: list[str] = []  # sections above, any of which written makes this one unneeded (the first that writes wins)
    writer: str


class Sections:
    """A writer's parts as data (routes.yaml ``sections.<name>``), written in the table's order: each row whose conditions
    hold (over the writer's ``subject``, e.g. the spec sheet, or the Ask's yes/no fields) and that no alternative above
    replaced. ``rows``: a table in place of routes.yaml's (a test's)."""

    def __init__(self, name: str, conditions: dict[str, Callable], writers: dict[str, Callable], rows: list[dict] | None = None):
        raw = routes_data().get("sections", {}).get(name, []) if rows is None else rows
        self.rows = [Section.model_validate(row) for row in raw]
        self.conditions, self.writers = conditions, writers
        names = [row.name for row in self.rows]
        unknown = [f"{row.name}: writer {row.writer}" for row in self.rows if row.writer not in writers]
        for row in self.rows:
            unknown += [f"{row.name}: condition {name}" for name in unknown_conditions(row.when, conditions)]
            unknown += [f"{row.name}: unless {name}" for name in row.unless if name not in names[: names.index(row.name)]]
        if unknown:
            raise LookupError(f"{ROUTES_FILE.name} sections.{name} names what its code does not give: " + "; ".join(unknown))

    def write(self, subject, ask: Ask) -> str:
        """The sections written for ``subject``, joined as paragraphs; a writer returns a text or a list of them."""
        written: dict[str, list[str]] = {}
        for row in self.rows:
            if any(written.get(name) for name in row.unless):
                continue
            if all_hold(row.when, self.conditions, subject, ask):
                text = self.writers[row.writer](subject)
                written[row.name] = [t for t in ([text] if isinstance(text, str) else text) if t]
        return "\n\n".join(text for texts in written.values() for text in texts)
