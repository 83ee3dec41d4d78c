"""Conversations for answer tests: a message asked after earlier ones (each answered in turn), and the calls of one tool."""

from __future__ import annotations

from advisor.contract import ChatTurn


def ask(advisor, message, *earlier):
    """The answer to ``message`` after ``earlier`` messages, each answered by ``advisor`` first."""
    history = []
    for text in earlier:
        history += [ChatTurn(role="user", content=text), ChatTurn(role="assistant", content=advisor.answer(text, history).answer)]
    return advisor.answer(message, history)


def thread(advisor, *messages, with_tools=True):
    """Each message answered after the ones before it; every answer, in order. The history carries the tool calls, as
    clients send them, unless ``with_tools`` is False (a client that sends text only)."""
    history, answers = [], []
    for text in messages:
        response = advisor.answer(text, history)
        answers.append(response)
        history += [ChatTurn(role="user", content=text),
                    ChatTurn(role="assistant", content=response.answer, tool_calls=response.tool_calls if with_tools else [])]
    return answers


def calls(response, name):
    """The calls of tool ``name`` behind an answer, in order."""
    return [call for call in response.tool_calls if call.name == name]


def lead(response) -> str:
    """The answer's first paragraph as shown (the verdict block of the summary)."""
    return response.summary.strip().split("\n\n", 1)[0]


def first_line(response) -> str:
    """The first line of the answer as shown (the summary)."""
    return response.summary.strip().split("\n")[0]
