"""The code-size rows of `make bench` report long files and compiled regexes, and never fail the bench."""

from __future__ import annotations

from benchmarks.code_size import compiled_regexes, long_files, rows


def _tree(tmp_path, files: dict[str, str]):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_only_files_over_the_limit_are_listed_longest_first(tmp_path):
    root = _tree(tmp_path, {
        "advisor/short.py": "x = 1\n" * 400,
        "advisor/deep/long.py": "x = 1\n" * 401,
        "tools/longer.py": "x = 1\n" * 450,
        "knowledge/huge.py": "x = 1\n" * 900,  # data loaders are not sized
    })  # fmt: skip
    assert long_files(root) == [("tools/longer.py", 450), ("advisor/deep/long.py", 401)]


def test_compiled_regexes_are_counted_under_advisor_only(tmp_path):
    root = _tree(tmp_path, {
        "advisor/a.py": "import re\nA = re.compile(r'a')\nB = re.compile(r'b', re.I)\n",
        "advisor/sub/c.py": "C = re.compile('c')\nD = re.search('d', 'x')\n",
        "tools/t.py": "T = re.compile('t')\n",
    })  # fmt: skip
    assert compiled_regexes(root) == 3


def test_the_rows_report_without_failing(tmp_path):
    root = _tree(tmp_path, {"advisor/long.py": "R = re.compile('x')\n" * 401, "tools/ok.py": ""})
    size_row, rules_row = rows(root)
    assert size_row["result"] == "1: advisor/long.py (401)"
    assert rules_row["result"] == "401 compiled regexes under advisor/"
    assert all(row["soft"] and row["ok"] for row in (size_row, rules_row))
    assert rows(_tree(tmp_path / "clean", {"advisor/a.py": "", "tools/b.py": ""}))[0]["result"] == "0: none"
