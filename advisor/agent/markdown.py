"""Formatting helpers shared by the offline planner's answers."""

from __future__ import annotations

from collections.abc import Sequence

from tools.money import SYMBOLS


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def number(value: float, digits: int = 1) -> str:
    """Readable figure: thousands separators, no trailing '.0' noise on big numbers."""
    if value is None:
        return "—"
    if abs(value) >= 1e12:  # FLOPs and token counts read better in scientific notation
        return f"{value:.3g}".replace("e+", "e")
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:,.0f}"


def money(amount: float | None, currency: str) -> str:
    if amount is None:
        return "—"
    return f"{SYMBOLS.get(currency, '')}{number(amount, 2 if abs(amount) < 100 else 0)}"


def bullet_list(items: Sequence[str]) -> str:
    return "\n".join(f"- {item}" for item in items if item)


def pick(language: str, en: str, zh: str) -> str:
    return zh if language == "zh" else en
