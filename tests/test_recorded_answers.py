"""Recorded answers: the offline summary of each question in tests/recorded/questions.yaml is compared with its
approved recording, so a change in wording or figures shows up as a diff to review rather than slipping past a
substring check. After an intended change, rewrite the recordings with ``UPDATE_RECORDED=1`` and review the diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from advisor.contract import ChatTurn

RECORDED = Path(__file__).parent / "recorded"
QUESTIONS = yaml.safe_load((RECORDED / "questions.yaml").read_text(encoding="utf-8"))
UPDATE = os.environ.get("UPDATE_RECORDED") == "1"


def _recording(turns: list[str], summary: str) -> str:
    asked = "\n".join(f"> {turn}" for turn in turns)
    return f"{asked}\n\n{summary.strip()}\n"


def _answer(advisor, turns: list[str]) -> str:
    history: list[ChatTurn] = []
    for turn in turns[:-1]:
        reply = advisor.answer(turn, history)
        history += [ChatTurn(role="user", content=turn), ChatTurn(role="assistant", content=reply.answer, tool_calls=reply.tool_calls)]
    return advisor.answer(turns[-1], history).summary


def test_the_recorded_set_is_bilingual_and_each_id_is_unique():
    ids = [case["id"] for case in QUESTIONS]
    assert len(ids) == len(set(ids))
    assert sum(i.startswith("en-") for i in ids) >= 12 and sum(i.startswith("zh-") for i in ids) >= 12


@pytest.mark.parametrize("case", QUESTIONS, ids=[case["id"] for case in QUESTIONS])
def test_answer_matches_its_recording(case, offline_advisor):
    path = RECORDED / f"{case['id']}.md"
    actual = _recording(case["turns"], _answer(offline_advisor, case["turns"]))
    if UPDATE or not path.exists():
        path.write_text(actual, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"{path.name} was missing and has been recorded; review it and commit it")
        return
    assert actual == path.read_text(encoding="utf-8"), f"{path.name} changed: rerun with UPDATE_RECORDED=1 if intended"
