"""Range checks for numeric tool inputs that fail with a bilingual ``AdvisorError``.

Request models keep numeric fields unconstrained on purpose: a tool called directly (not via the
registry) must still answer "utilisation 150%" with a helpful message in both languages rather
than a pydantic traceback.
"""

from __future__ import annotations

import math
import sys

from knowledge.bilingual import AdvisorError
from knowledge.wording import shipped

INPUT_NAMES = shipped("input_names_text.yaml")  # callers pass *INPUT_NAMES.pair(key) as the two names
ERRORS = shipped("input_errors_text.yaml")
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
        raise AdvisorError(code, *_filled("range.not_finite", name_en, name_zh, got=got), hint)
    too_low = minimum is not None and (value <= minimum if exclusive_minimum else value < minimum)
    too_high = maximum is not None and value > maximum
    if not (too_low or too_high):
        return value
    shown = {"value": f"{value:g}", "maximum": f"{maximum:g}" if maximum is not None else ""}
    if minimum is not None:
        low = ERRORS.text("range.above" if exclusive_minimum else "range.at_least", minimum=f"{minimum:g}")
        sentence = "range.between" if maximum is not None else "range.too_low"
        raise AdvisorError(code, *_filled(sentence, name_en, name_zh, low=low, **shown), hint)
    raise AdvisorError(code, *_filled("range.too_high", name_en, name_zh, **shown), hint)


def _filled(key: str, name_en: str, name_zh: str, **values) -> tuple[str, str]:
    """The error sentence in both languages, each naming the input in its own language."""
    return ERRORS.pick(key, "en", name=name_en, **values), ERRORS.pick(key, "zh", name=name_zh, **values)
