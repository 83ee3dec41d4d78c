"""The routing table (advisor/offline/routes.yaml): every name it uses exists, each route can be reached, the order of
the table is the precedence, and a redirect changes the task the routes below it see."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from advisor.offline import router
from advisor.offline.router import NO_TASK, Route, RouteTable, Routing
from advisor.offline.takeovers import NEGATION

ROUTES = router.table().routes


def fake_routing(intent: str, task: str | None, ask: dict | None = None) -> Routing:
    """A message as the table sees it, without reading one: an intent, a task and the Ask's flags."""
    reading = SimpleNamespace(intent=intent)
    turn = SimpleNamespace(reading=reading, ask=SimpleNamespace(**(ask or {})))
    return Routing(turn=turn, task=task, understanding=None)


def only_these_hold(monkeypatch, holding: set[str]) -> None:
    """Every named condition is false but ``holding``; the Ask's yes/no fields likewise."""
    for name in router.CONDITIONS:
        monkeypatch.setitem(router.CONDITIONS, name, lambda routing, name=name: name in holding)


def use_table(monkeypatch, rows: list[dict], tasks: dict | None = None) -> None:
    table = RouteTable.model_validate({"tasks": tasks or {}, "routes": rows})
    monkeypatch.setattr(router, "table", lambda: table)


def _situation(route: Route) -> tuple[str, str | None, set[str], dict]:
    """An intent, a task and the conditions under which ``route`` admits the message and nothing else is claimed."""
    intent = route.intent[0] if route.intent else next(i for i in ("memory", "specs") if i not in route.not_intent)
    if route.task:
        task = None if route.task[0] == NO_TASK else route.task[0]
    else:
        task = next(t for t in ("memory", "specs", "recommend") if t not in route.not_task)
    holding = {name for name in route.when if not name.startswith(NEGATION)}
    ask = {name: name in holding for name in (n.removeprefix(NEGATION) for r in ROUTES for n in r.when) if name not in router.CONDITIONS}
    return intent, task, holding, ask


@pytest.mark.parametrize("route", ROUTES, ids=[r.name for r in ROUTES])
def test_each_route_can_be_reached(monkeypatch, route):
    intent, task, holding, ask = _situation(route)
    only_these_hold(monkeypatch, holding)
    routing = fake_routing(intent, task, ask)
    router.chosen(routing)
    assert route.name in routing.taken, f"{route.name} is shadowed by {routing.taken}"


def test_only_the_last_route_admits_every_message():
    *rest, last = ROUTES
    assert not (last.intent or last.not_intent or last.task or last.not_task or last.when) and last.handler
    unconditional = [r.name for r in rest if not (r.intent or r.not_intent or r.task or r.not_task or r.when)]
    assert not unconditional, f"every route below these is unreachable: {unconditional}"


def test_the_earlier_of_two_matching_routes_answers(monkeypatch):
    rows = [{"name": "first", "when": ["follow_up"], "handler": "concept"}, {"name": "second", "when": ["names_gpu"], "handler": "facility"}]
    only_these_hold(monkeypatch, {"follow_up", "names_gpu"})
    use_table(monkeypatch, rows)
    assert router.chosen(fake_routing("specs", "specs")).name == "first"
    use_table(monkeypatch, rows[::-1])
    assert router.chosen(fake_routing("specs", "specs")).name == "second"


def test_a_redirect_changes_the_task_the_routes_below_see(monkeypatch):
    rows = [
        {"name": "bill_only", "task": ["tco"], "when": ["asks_only_electricity"], "redirect": "facility"},
        {"name": "site", "task": ["facility"], "handler": "facility"},
        {"name": "rest", "handler": "task"},
    ]
    use_table(monkeypatch, rows)
    only_these_hold(monkeypatch, {"asks_only_electricity"})
    routing = fake_routing("tco", "tco")
    assert router.chosen(routing).name == "site" and routing.task == "facility" and routing.taken == ["bill_only", "site"]
    only_these_hold(monkeypatch, set())
    routing = fake_routing("tco", "tco")
    assert router.chosen(routing).name == "rest" and routing.task == "tco"


def test_a_negated_condition_and_an_ask_field_are_read(monkeypatch):
    use_table(monkeypatch, [{"name": "why", "when": ["not names_gpu", "asks_why"], "handler": "where_from"}, {"name": "rest", "handler": "task"}])
    only_these_hold(monkeypatch, set())
    assert router.chosen(fake_routing("memory", "memory", {"asks_why": True})).name == "why"
    assert router.chosen(fake_routing("memory", "memory", {"asks_why": False})).name == "rest"
    only_these_hold(monkeypatch, {"names_gpu"})
    assert router.chosen(fake_routing("memory", "memory", {"asks_why": True})).name == "rest"


def test_a_misspelt_name_in_the_table_fails_at_load(monkeypatch):
    use_table(monkeypatch, [{"name": "typo", "when": ["asks_fabrik"], "handler": "facility"}, {"name": "rest", "handler": "task"}])
    with pytest.raises(LookupError, match="asks_fabrik"):
        router._check_names()
    use_table(monkeypatch, [{"name": "rest", "handler": "answer_everything"}])
    with pytest.raises(LookupError, match="answer_everything"):
        router._check_names()


def test_a_route_names_one_outcome():
    with pytest.raises(ValueError, match="exactly one"):
        Route(name="both", handler="task", redirect="facility")
    with pytest.raises(ValueError, match="exactly one"):
        Route(name="neither")


def test_every_task_has_an_answer_and_a_route_reaches_it():
    assert set(router.TASKS) == set(router.table().tasks)
    assert all(callable(answer) for answer in router.TASKS.values())
    redirected = {r.redirect for r in ROUTES if r.redirect}
    assert redirected <= set(router.TASKS), "a redirect must name a task of the table"
