"""Wording lives in YAML text files, not in code: a .py file under advisor/ or tools/ holds Chinese only when
tests/data/chinese_in_code.yaml allows it (a word table woven into code, with its reason, or a file on the
shrinking not-yet-moved list)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = yaml.safe_load((ROOT / "tests" / "data" / "chinese_in_code.yaml").read_text(encoding="utf-8"))
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LAYERS = ("advisor", "tools")


def holds_chinese(text: str) -> bool:
    return bool(HAN.search(text))


def files_with_chinese() -> set[str]:
    return {
        path.relative_to(ROOT).as_posix()
        for layer in LAYERS
        for path in (ROOT / layer).rglob("*.py")
        if holds_chinese(path.read_text(encoding="utf-8"))
    }


def test_no_file_holds_chinese_unless_listed():
    listed = set(ALLOWED["word_tables"]) | set(ALLOWED["not_yet_moved"])
    unlisted = sorted(files_with_chinese() - listed)
    assert not unlisted, "put the wording in a {key: {en, zh}} YAML text file (knowledge/wording.py): " + ", ".join(unlisted)


def test_the_not_yet_moved_list_only_shrinks():
    waiting, moved = set(ALLOWED["not_yet_moved"]), set(ALLOWED["moved"] or ())
    assert not waiting & moved, f"moved files may not come back: {sorted(waiting & moved)}"
    stale = sorted(waiting - files_with_chinese())
    assert not stale, f"these hold no Chinese any more: move them from not_yet_moved to moved: {stale}"
    assert not moved & files_with_chinese(), "a file under moved: holds Chinese again"


def test_each_word_table_says_why_and_exists():
    for path, reason in ALLOWED["word_tables"].items():
        assert (ROOT / path).is_file(), path
        assert isinstance(reason, str) and len(reason.split()) >= 5, f"{path}: one line saying why its words cannot be data"
    assert not set(ALLOWED["word_tables"]) & set(ALLOWED["not_yet_moved"])


def test_the_check_sees_chinese_in_code_and_comments():
    assert holds_chinese('label = "显存"') and holds_chinese("# 例如：两张卡")
    assert not holds_chinese('label = "memory"  # GB, ×, →, “quotes”')
