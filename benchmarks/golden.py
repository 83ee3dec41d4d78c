"""The offline planner's golden questions (tests/data/planner_golden.yaml), checked one by one.

Shared by the test suite (each case must pass) and `make bench` (pass rate and answer latency).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path

import yaml

from advisor.contract import AdvisorResponse, ChatTurn

GOLDEN_FILE = Path(__file__).resolve().parent.parent / "tests" / "data" / "planner_golden.yaml"


@lru_cache(maxsize=1)
def load_cases() -> list[dict]:
    return yaml.safe_load(GOLDEN_FILE.read_text(encoding="utf-8"))


def question(case: dict) -> str:
    if "q_repeat" in case:
        return case["q_repeat"]["text"] * case["q_repeat"]["times"]
    return case["q"]


def history(case: dict, advisor) -> list[ChatTurn]:
    turns: list[ChatTurn] = []
    for earlier in case.get("history", []):
        answer = advisor.answer(earlier, list(turns)).answer
        turns += [ChatTurn(role="user", content=earlier), ChatTurn(role="assistant", content=answer)]
    return turns


def _same(expected, actual) -> bool:
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        return isinstance(actual, (int, float)) and math.isclose(actual, expected, rel_tol=0.01)
    return expected == actual


def problems(case: dict, response: AdvisorResponse) -> list[str]:
    """Everything wrong with ``response`` for ``case``; empty when it passes."""
    found: list[str] = []
    if response.mode != "offline":
        found.append(f"mode {response.mode}")
    if response.language != case["lang"]:
        found.append(f"language {response.language} != {case['lang']}")
    names = [call.name for call in response.tool_calls]
    if case["tool"] is None:
        if names:
            found.append(f"unexpected tool calls {names}")
    elif not names or names[0] != case["tool"]:
        found.append(f"first tool {names[:1]} != {case['tool']}")
    else:
        call = response.tool_calls[0]
        if (call.error is not None) != case.get("error", False):
            found.append(f"tool error {call.error}")
        for key, expected in case.get("args", {}).items():
            if not _same(expected, call.args.get(key)):
                found.append(f"arg {key}={call.args.get(key)!r}, expected {expected!r}")
    found += [f"answer lacks /{p}/" for p in case["contains"] if not re.search(p, response.answer, re.IGNORECASE)]
    found += [f"answer contains {t!r}" for t in case.get("absent", []) if t in response.answer]
    return found
