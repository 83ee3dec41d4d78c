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



# The task packages (advisor/offline/tasks/<task>/) read what was asked from the Ask and its value types, never from
# the understanding pipeline itself: the NLU modules they may import are its public vocabulary, listed here.
NLU_PUBLIC = {
    "advisor.nlu.ask": "the typed Ask, the one object answers read",
    "advisor.nlu.frame": "the value types a slot holds (SlotValue, Money, Frame)",
    "advisor.nlu.slot_schema": "the slots' names in both languages, for notes that name a value, and why an unused one changes nothing",
    "advisor.nlu.subjects": "the subject vocabulary (what a card or a question is about), shared with retrieval",
    "advisor.nlu.facets": "the facet vocabulary (specs, compliance, quality...), shared with retrieval",
}
TASKS_MAY_NOT = ("advisor.interfaces", "advisor.llm", "advisor.proposal", "advisor.service", "advisor.deps")


def imported_modules(path: Path) -> set[tuple[str, int]]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {(alias.name, node.lineno) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add((node.module, node.lineno))
    return found


def boundary_offences(path: Path) -> list[str]:
    offences = []
    for module, line in imported_modules(path):
        if module.startswith("advisor.nlu") and module not in NLU_PUBLIC:
            offences.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{line} imports the NLU's internals ({module})")
        elif module.startswith(TASKS_MAY_NOT):
            offences.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{line} imports a layer above the answers ({module})")
    return offences


def test_task_packages_read_the_ask_not_the_understanding_pipeline():
    offenders = [o for path in sorted((ROOT / "advisor" / "offline" / "tasks").rglob("*.py")) for o in boundary_offences(path)]
    assert not offenders, "\n".join(offenders)


def test_every_task_package_keeps_its_wording_in_one_text_file():
    packages = [p for p in (ROOT / "advisor" / "offline" / "tasks").iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    assert len(packages) >= 9
    for package in packages:
        texts = sorted(path.name for path in package.glob("*.yaml"))
        assert list(package.glob("*.py")) and texts in ([], ["text.yaml"]), f"{package.name}: one text.yaml per task, not {texts}"


def test_the_boundary_check_sees_an_internal_import(tmp_path):
    module = tmp_path / "bad.py"
    module.write_text("from advisor.nlu.reader import COMMITMENT_AFTER\nfrom advisor.nlu.ask import Ask\nimport advisor.llm.agent\n")
    offences = boundary_offences(module)
    assert len(offences) == 2 and "advisor.nlu.reader" in offences[0] + offences[1]
