"""Threads of two or three turns across topics (sizing, serving, facility, TCO, concept, troubleshooting), in both
languages: no answer shows a section twice, a table never gives one quantity two different figures, and a follow-up
continues its thread instead of repeating the answer before it word for word."""

from __future__ import annotations

import re

import pytest

from advisor.contract import ChatTurn

THREADS = [
    ("en", ["Which GPUs do we need to serve Qwen2.5-72B to 100 users?", "and on H20?", "how about cooling?"]),
    ("zh", ["部署Qwen2.5-72B给100个用户用，需要什么卡？", "H20呢？", "散热怎么办？"]),
    ("en", ["How much does one 8-GPU H100 server draw?", "and three of them in a 25 kW rack?"]),
    ("zh", ["一台8卡H100服务器功耗是多少？", "三台放进25千瓦的机柜可以吗？"]),
    ("en", ["Rent or buy 16 H100 for 3 years?", "and the electricity?"]),
    ("zh", ["16张H100用三年，租还是买？", "电费呢？"]),
    ("en", ["Is NVLink needed for training on PCIe cards?", "and for the A800?"]),
    ("zh", ["PCIe卡训练需要NVLink吗？", "A800呢？"]),
    ("en", ["GPU utilisation sits around 30-40% when training a 13B model on 8 A100s", "and with 16 GPUs?"]),
    ("zh", ["8卡A100训练13B模型，GPU利用率只有30-40%", "换成16卡呢？"]),
    ("en", ["Two 8x H200 servers arrive next month: what must the server room have?", "and with four servers?"]),
    ("zh", ["下个月到2台8卡H200，机房需要准备什么？", "四台呢？"]),
]

TABLE_ROW = re.compile(r"^\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|")
HEADING = re.compile(r"^\*\*[^*]+\*\*$")


def _conversation(advisor, turns):
    history, replies = [], []
    for message in turns:
        reply = advisor.answer(message, history)
        replies.append(reply)
        history += [ChatTurn(role="user", content=message), ChatTurn(role="assistant", content=reply.answer, tool_calls=reply.tool_calls)]
    return replies


def _sections(answer: str) -> list[str]:
    return [line.strip() for line in answer.split("\n") if HEADING.match(line.strip())]


def _paragraphs(answer: str) -> list[str]:
    return [p.strip() for p in answer.split("\n\n") if len(p.strip()) > 60 and not p.strip().startswith("|")]


def _problems(answer: str) -> list[str]:
    """A section heading or a paragraph shown twice, or one quantity of a table given two different figures."""
    found = []
    sections = _sections(answer)
    found += [f"section twice: {s}" for s in set(sections) if sections.count(s) > 1]
    paragraphs = _paragraphs(answer)
    found += [f"paragraph twice: {p[:80]}" for p in set(paragraphs) if paragraphs.count(p) > 1]
    figures: dict[tuple[str, str], str] = {}
    table = ""
    for line in answer.split("\n"):
        row = TABLE_ROW.match(line)
        if not row:
            table = ""
            continue
        label, value = row.groups()
        if not table:
            table = label  # a table's first cell is its title: the same label may stand in another table
            continue
        if figures.setdefault((table, label), value) != value:
            found.append(f"{label}: {figures[(table, label)]} and {value}")
    return found


def test_the_checks_catch_a_repeated_section_and_two_figures_for_one_quantity():
    body = "**Options**\n- a\n\n**Options**\n- b\n\n| Item | Value |\n|---|---|\n| IT load | 11.2 kW |\n| IT load | 12.0 kW |"
    problems = _problems(body)
    assert any("section twice" in p for p in problems) and any("IT load" in p for p in problems)
    assert not _problems("**Options**\n- a\n\n| Item | Value |\n|---|---|\n| IT load | 11.2 kW |")


@pytest.mark.parametrize(("language", "turns"), THREADS, ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(THREADS)])
def test_a_thread_shows_each_section_and_figure_once(offline_advisor, language, turns):
    replies = _conversation(offline_advisor, turns)
    for reply in replies:
        assert reply.language == language
        assert not _problems(reply.answer), _problems(reply.answer)
    for before, after in zip(replies, replies[1:]):  # a follow-up moves the thread on: not the same opening again
        assert after.summary.split("\n")[0] != before.summary.split("\n")[0], after.summary[:200]
