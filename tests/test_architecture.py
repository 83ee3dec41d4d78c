"""The layers import downwards only: advisor → tools → knowledge; tools stay pure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# What each layer may not import: the layers above it, and (for the pure calculators) I/O frameworks.
FORBIDDEN = {
    "knowledge": {"tools", "advisor", "benchmarks", "tests"},
    "tools": {"advisor", "benchmarks", "tests", "langchain", "langchain_core", "langchain_openai", "gradio", "fastapi",
              "chromadb", "httpx", "requests", "sentence_transformers", "slack_bolt", "yaml"},
}  # fmt: skip


def imported_roots(path: Path) -> set[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {(alias.name.split(".")[0], node.lineno) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add((node.module.split(".")[0], node.lineno))
    return found


def python_files(layer: str) -> list[Path]:
    return sorted((ROOT / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_upward_or_io_imports(layer):
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {root}"
        for path in python_files(layer)
        for root, line in imported_roots(path)
        if root in FORBIDDEN[layer]
    ]
    assert not offenders, "\n".join(offenders)


def test_the_check_sees_an_upward_import(tmp_path):
    module = tmp_path / "bad.py"
    module.write_text("from advisor.registry import Registry\nimport tools.memory\n")
    assert {root for root, _ in imported_roots(module)} == {"advisor", "tools"}

