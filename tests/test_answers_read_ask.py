"""Understanding is decided once, in advisor/nlu: the offline answers read ``turn.ask`` (and the slots), never the
user's words again. An answer that compiles a pattern or reads the message's text is reported here, unless it is on
the short list below with the reason it still needs the text."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OFFLINE = ROOT / "advisor" / "offline"
ANSWERS = OFFLINE / "tasks"
USER_TEXT = ("message", "task_messages")  # attributes holding what the user wrote
READING_TEXT = "text"  # ``<turn>.reading.text``: the message as the reading keeps it

# (file, function) → why it may still read the user's text. Keep this short: a new entry needs a reason that the
# text is data for a tool or a search, not a decision about what was asked.
READS_TEXT = {
    ("knowledge.py", "concept"): "the question's own words are the knowledge-base search query",
    ("serving.py", "_finish"): "the question's own words are the search query for related reading",
    ("recommend.py", "recommend"): "the question's own words are the search query for related reading",
    ("fit.py", "memory"): "the question's own words are the search query for related reading",
    ("plan.py", "reported"): "a pasted log or error is the diagnosis tool's input, passed on as written",
    ("plan.py", "with_context"): "a later part's words, with the part before them, are the knowledge-base search query",
}
# (file, constant) → why a pattern is compiled outside the understanding layer.
COMPILES = {
    ("turn.py", "FIELD_NAME"): "reads a tool's suggestion, not the user's words",
    ("turn.py", "SETTING"): "reads a tool's suggestion, not the user's words",
    ("plan.py", "re.findall"): "the concept plan splits catalog card names and search-hit titles into words, not the user's",
}


def _user_text_reads(path: Path) -> set[tuple[str, str]]:
    """(file, function) for every read of ``<something>.message``, ``.task_messages`` or ``<something>.reading.text``
    naming the user's words.

    ``AdvisorError(...).message(language)`` is a call of a method, not the message, and is not counted."""
    found = set()

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            if isinstance(child, ast.Attribute) and (child.attr in USER_TEXT or _reading_text(child)) and not _called(child, node):
                found.add((path.name, function))
            visit(child, name)

    visit(ast.parse(path.read_text(encoding="utf-8")), "<module>")
    return found


def _reading_text(attribute: ast.Attribute) -> bool:
    return attribute.attr == READING_TEXT and isinstance(attribute.value, ast.Attribute) and attribute.value.attr == "reading"


def _called(attribute: ast.Attribute, parent: ast.AST) -> bool:
    return isinstance(parent, ast.Call) and parent.func is attribute


def _re_call(node: ast.AST, names: set[str]) -> str | None:
    """``re.<name>(...)`` for one of ``names``: the name, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names:
        owner = node.func.value
        return node.func.attr if isinstance(owner, ast.Name) and owner.id == "re" else None
    return None


def _compiled_patterns(path: Path) -> set[tuple[str, str]]:
    """(file, constant) for every ``NAME = re.compile(...)``, and (file, "re.search") and the like for inline calls."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and _re_call(node.value, {"compile"}):
            found |= {(path.name, target.id) for target in node.targets if isinstance(target, ast.Name)}
        elif inline := _re_call(node, {"search", "match", "findall", "fullmatch", "finditer", "sub", "split"}):
            found.add((path.name, f"re.{inline}"))
    return found


def test_answers_read_the_ask_not_the_message():
    reads = set().union(*(_user_text_reads(path) for path in sorted(ANSWERS.rglob("*.py"))))
    unexpected = sorted(reads - set(READS_TEXT))
    assert not unexpected, f"answers reading the user's text again (read turn.ask instead): {unexpected}"


def test_no_patterns_compiled_outside_understanding():
    compiled = set().union(*(_compiled_patterns(path) for path in sorted(OFFLINE.rglob("*.py"))))
    unexpected = sorted(compiled - set(COMPILES))
    assert not unexpected, f"patterns in advisor/offline (cue words belong in advisor/nlu/data): {unexpected}"


def test_every_exception_is_still_needed():
    """An exception whose code is gone is removed from the list, so the list only ever shrinks."""
    reads = set().union(*(_user_text_reads(path) for path in sorted(ANSWERS.rglob("*.py"))))
    compiled = set().union(*(_compiled_patterns(path) for path in sorted(OFFLINE.rglob("*.py"))))
    assert sorted(set(READS_TEXT) - reads) == []
    assert sorted(set(COMPILES) - compiled) == []


def test_the_checks_see_a_regex_and_a_message_read(tmp_path):
    """The detectors themselves: a module doing both is caught, a bilingual error's .message(...) call is not."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import re\nCHEAP = re.compile('cheap')\n"
        "def answer(turn):\n    return CHEAP.search(turn.message)\n"
        "def error(turn, e):\n    return e.message(turn.language)\n",
        encoding="utf-8",
    )
    assert _user_text_reads(sample) == {("sample.py", "answer")}
    assert _compiled_patterns(sample) == {("sample.py", "CHEAP")}


def test_the_check_sees_the_reading_text(tmp_path):
    module = tmp_path / "writer.py"
    module.write_text("def lead(turn):\n    return turn.reading.text.count(' and ') + len(turn.text('x'))\n")
    assert _user_text_reads(module) == {("writer.py", "lead")}
