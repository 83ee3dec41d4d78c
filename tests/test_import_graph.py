"""No two modules of advisor/, tools/ or knowledge/ import each other, directly or round a longer circle.

The graph is read statically with ``ast``: every import statement counts, at module level, inside
functions and under ``if TYPE_CHECKING`` alike, because a circle that only a late import keeps from
failing still ties the modules together.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("advisor", "tools", "knowledge")


def module_files(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Dotted module name → file, for every module of the given top-level packages."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return modules


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The dotted name a (possibly relative) ``from ... import`` starts from."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imported_modules(module: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``module`` imports anywhere in its file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node, path.name == "__init__.py")
            for alias in node.names:  # `from pkg import mod` imports the module; `from mod import name` the module it names
                found.add(f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source)
    return (found & known) - {module}


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    modules = module_files(root, packages)
    known = set(modules)
    return {name: imported_modules(name, path, known) for name, path in modules.items()}


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of modules that reach each other (strongly connected components larger than one), Tarjan's algorithm."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []

    def visit(node: str) -> None:
        index[node] = lowest[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                lowest[node] = min(lowest[node], lowest[target])
            elif target in on_stack:
                lowest[node] = min(lowest[node], index[target])
        if lowest[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def one_circle(graph: dict[str, set[str]], group: list[str]) -> list[str]:
    """A shortest path from the group's first module back to itself, staying inside the group: the circle to print."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & members):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    return group


def describe(graph: dict[str, set[str]]) -> list[str]:
    return [" → ".join(one_circle(graph, group)) for group in import_circles(graph)]


def test_no_import_circles():
    circles = describe(import_graph())
    assert not circles, "import circles:\n" + "\n".join(circles)


def test_tools_and_knowledge_import_nothing_from_advisor():
    graph = import_graph()
    upward = [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        if module.split(".")[0] in ("tools", "knowledge")
        for target in sorted(targets)
        if target.split(".")[0] == "advisor"
    ]
    assert not upward, "\n".join(upward)


def test_the_graph_sees_every_kind_of_import(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "top.py").write_text("import pkg.sub.leaf\n")
    (package / "sub" / "leaf.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.sub import other\n")
    (package / "sub" / "other.py").write_text("def late():\n    from . import leaf\n    from ..top import name\n")
    graph = import_graph(tmp_path, ("pkg",))
    assert graph["pkg.top"] == {"pkg.sub.leaf"}
    assert graph["pkg.sub.leaf"] == {"pkg.sub.other"}
    assert graph["pkg.sub.other"] == {"pkg.sub.leaf", "pkg.top"}
    assert import_circles(graph) == [["pkg.sub.leaf", "pkg.sub.other", "pkg.top"]]
    assert describe(graph) == ["pkg.sub.leaf → pkg.sub.other → pkg.sub.leaf"]


def test_a_graph_without_circles_passes_and_a_self_import_is_no_circle():
    assert import_circles({"a": {"b", "a"}, "b": {"c"}, "c": set()}) == []
    assert describe({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a → b → c → a"]
