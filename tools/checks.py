"""Range checks for numeric tool inputs that fail with a bilingual ``AdvisorError``.

Request models keep numeric fields unconstrained on purpose: a tool called directly (not via the
registry) must still answer "utilisation 150%" with a helpful message in both languages rather
than a pydantic traceback.
"""

from __future__ import annotations

import math
import sys

from knowledge.bilingual import AdvisorError

MAX_FLOAT_INT = int(sys.float_info.max)  # a larger int overflows float(), which every formula uses


def is_finite_number(value: float) -> bool:
    """True for a real number a formula can use: not NaN/±inf, and no int beyond float range."""
    if isinstance(value, int):
        return abs(value) <= MAX_FLOAT_INT
    return math.isfinite(value)


def shown_number(value: object) -> str:
    """``repr`` for error messages, safe for ints too long to print (Python refuses > 4300 digits)."""
    if isinstance(value, int) and not is_finite_number(value):
        return "-1.8e308…" if value < 0 else "1.8e308…"
    return repr(value)


def check_range(
    value: float,
    name_en: str,
    name_zh: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    exclusive_minimum: bool = False,
    code: str = "invalid_number",
    hint: list[str] | tuple[str, ...] = (),
) -> float:
    """Return ``value`` if it is a finite number within the bounds, else raise ``AdvisorError``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not is_finite_number(value):
        got = shown_number(value)[:80]  # a direct caller may pass any object, even a 1 MB string
        raise AdvisorError(code, f"{name_en} must be a finite number; got {got}.", f"{name_zh}必须是有限的数字，收到的是 {got}。", hint)
    too_low = minimum is not None and (value <= minimum if exclusive_minimum else value < minimum)
    too_high = maximum is not None and value > maximum
    if not (too_low or too_high):
        return value
    if minimum is not None and maximum is not None:
        low_en = f"above {minimum:g}" if exclusive_minimum else f"at least {minimum:g}"
        low_zh = f"大于 {minimum:g}" if exclusive_minimum else f"不小于 {minimum:g}"
        en = f"{name_en} must be {low_en} and at most {maximum:g}; got {value:g}."
        zh = f"{name_zh}必须{low_zh}且不大于 {maximum:g}，收到的是 {value:g}。"
    elif minimum is not None:
        en = f"{name_en} must be {'above' if exclusive_minimum else 'at least'} {minimum:g}; got {value:g}."
        zh = f"{name_zh}必须{'大于' if exclusive_minimum else '不小于'} {minimum:g}，收到的是 {value:g}。"
    else:
        en = f"{name_en} must be at most {maximum:g}; got {value:g}."
        zh = f"{name_zh}不能大于 {maximum:g}，收到的是 {value:g}。"
    raise AdvisorError(code, en, zh, hint)
