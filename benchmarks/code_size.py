"""Two numbers about the code itself, reported by `make bench` but never failing it.

Long modules and hand-written patterns are worth watching, not worth blocking a change for: a file
over the soft limit is listed so the next change to it can split it, and the count of compiled
regexes under advisor/ shows whether understanding is drifting back to keyword rules.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOFT_MAX_LINES = 400
SIZED_LAYERS = ("advisor", "tools")
COMPILED_PATTERN = "re.compile("


def long_files(root: Path = ROOT, layers: tuple[str, ...] = SIZED_LAYERS, limit: int = SOFT_MAX_LINES) -> list[tuple[str, int]]:
    """(path relative to root, line count) of every Python file over ``limit`` lines, longest first."""
    counted = [
        (path.relative_to(root).as_posix(), len(path.read_text(encoding="utf-8").splitlines()))
        for layer in layers
        for path in sorted((root / layer).rglob("*.py"))
    ]
    return sorted(((name, count) for name, count in counted if count > limit), key=lambda item: (-item[1], item[0]))


def compiled_regexes(root: Path = ROOT, layer: str = "advisor") -> int:
    return sum(path.read_text(encoding="utf-8").count(COMPILED_PATTERN) for path in (root / layer).rglob("*.py"))


def rows(root: Path = ROOT) -> list[dict]:
    long = long_files(root)
    listed = ", ".join(f"{name} ({count})" for name, count in long) or "none"
    return [
        {"name": f"files over {SOFT_MAX_LINES} lines ({', '.join(f'{layer}/' for layer in SIZED_LAYERS)})",
         "result": f"{len(long)}: {listed}", "target": "report only: split when next touched", "ok": True, "soft": True},
        {"name": "hand-written rules", "result": f"{compiled_regexes(root)} compiled regexes under advisor/",
         "target": "report only: fewer is better", "ok": True, "soft": True},
    ]  # fmt: skip
