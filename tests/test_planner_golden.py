"""Offline planner golden questions (tests/data/planner_golden.yaml): tool, key arguments, facts, language."""

from __future__ import annotations

import pytest

from benchmarks.golden import history, load_cases, problems, question

CASES = load_cases()


def test_golden_set_is_large_and_bilingual():
    assert len(CASES) >= 40
    assert sum(c["lang"] == "zh" for c in CASES) >= 18
    assert len({c["id"] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_golden(case, offline_advisor):
    response = offline_advisor.answer(question(case), history(case, offline_advisor))
    assert problems(case, response) == [], response.answer[:800]
