"""A question that names two cards and asks which, whether or what is worth it gets that judgement between them
(issue #36 item 3): troubleshooting needs a symptom or pasted output, and a concept card answers only when it is about the
cards named and the side asked; otherwise the comparison (sized for the model named) answers, in both languages."""

from __future__ import annotations

import pytest

from advisor.offline import router

# (route, language, message, the cards weighed: the opening names the verdict's card, the first lines both)
WEIGHED = [
    ("parts_weighed", "en", "Is one MI300X enough for a 70B, or are two H100s the safer bet?", ["MI300X", "H100"]),
    ("parts_weighed", "en", "We're worried the L40S will be too slow for a 70B, should we get the A100 instead?", ["A100", "L40S"]),
    ("parts_weighed", "en", "Nothing is broken yet, but would the L40S or the A100 be less trouble for our inference?", ["A100", "L40S"]),
    ("parts_worth_weighed", "en", "Is the L40S worth it compared with the A100 for inference?", ["A100", "L40S"]),
    ("parts_worth_weighed", "zh", "MI300X和H100哪个更值得买？", ["MI300X", "H100"]),
    ("value_premium", "zh", "H20跟H100比，跑大模型推理差多少，值不值得买？", ["H20", "H100"]),
]
# a card about the cards named and the side asked still answers; a confident comparison keeps its own route
KEPT = [
    ("judgement_card", "en", "H20 or 910B for serving?"),
    ("judgement_card", "zh", "H20和910B做推理选哪个？"),
    ("task", "zh", "L40S 和 A100 哪个更适合做推理？"),
]


@pytest.mark.parametrize(("route", "language", "message", "named"), WEIGHED, ids=[f"{r}-{lang}-{i}" for i, (r, lang, _, _) in enumerate(WEIGHED)])
def test_two_cards_weighed_get_the_comparison(offline_advisor, routes_taken, route, language, message, named):
    response = offline_advisor.answer(message, [])
    assert response.language == language
    assert routes_taken and routes_taken[-1][-1] == route, f"{message!r} took {routes_taken}"
    opening, *rest = response.summary.split("\n\n")
    assert any(card in opening for card in named), opening
    assert all(card in "\n\n".join([opening, *rest[:1]]) for card in named), response.summary


@pytest.mark.parametrize(("route", "language", "message"), KEPT, ids=[f"{r}-{lang}-{i}" for i, (r, lang, _) in enumerate(KEPT)])
def test_a_card_on_the_named_cards_or_a_sure_comparison_keeps_its_route(offline_advisor, routes_taken, route, language, message):
    response = offline_advisor.answer(message, [])
    assert response.language == language
    assert routes_taken and routes_taken[-1][-1] == route, f"{message!r} took {routes_taken}"


def test_troubleshooting_with_no_symptom_between_two_cards_is_the_comparison(monkeypatch):
    """Read as a problem, but no symptom stated nor output pasted: two cards weighed with no card on them are compared."""
    row = next(r for r in router.table().routes if r.name == "parts_weighed_no_symptom")
    names = [name.removeprefix("not ") for name in row.when]
    assert {"pasted_output", "reports_oom", "reports_serving", "reports_latency", "short_of_plan"} <= set(names)
    order = [r.name for r in router.table().routes]
    assert order.index("parts_weighed_no_symptom") < order.index("troubleshoot")
    assert order.index("parts_weighed") < order.index("unsure")
