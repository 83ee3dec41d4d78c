"""Offline planner golden questions (tests/data/planner_golden.yaml): tool, key arguments, facts, language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from advisor.contract import ChatTurn

CASES = yaml.safe_load((Path(__file__).parent / "data" / "planner_golden.yaml").read_text(encoding="utf-8"))


def question(case: dict) -> str:
    if "q_repeat" in case:
        return case["q_repeat"]["text"] * case["q_repeat"]["times"]
    return case["q"]


def matches(expected, actual) -> bool:
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        return isinstance(actual, (int, float)) and actual == pytest.approx(expected, rel=0.01)
    return expected == actual


def test_golden_set_is_large_and_bilingual():
    assert len(CASES) >= 40
    assert sum(c["lang"] == "zh" for c in CASES) >= 18
    assert len({c["id"] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_golden(case, offline_advisor):
    history = []
    for earlier in case.get("history", []):
        history.append(ChatTurn(role="user", content=earlier))
        history.append(ChatTurn(role="assistant", content=offline_advisor.answer(earlier, history[:-1]).answer))
    response = offline_advisor.answer(question(case), history)

    assert response.mode == "offline"
    assert response.language == case["lang"]
    names = [call.name for call in response.tool_calls]
    if case["tool"] is None:
        assert names == []
    else:
        assert names and names[0] == case["tool"], names
        call = response.tool_calls[0]
        assert (call.error is not None) == case.get("error", False), call.error
        for key, expected in case.get("args", {}).items():
            assert matches(expected, call.args.get(key)), (key, call.args.get(key))
    for pattern in case["contains"]:
        assert re.search(pattern, response.answer, re.IGNORECASE), (pattern, response.answer[:600])
    for text in case.get("absent", []):
        assert text not in response.answer
