"""The calculators under tools/ read their wording from knowledge/ text files by key: every literal key a module
names must exist in the file it reads, and the phrases it fills must come out in the asked language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from knowledge.bilingual import AdvisorError
from knowledge.wording import shipped
from tools.checks import INPUT_NAMES, check_range
from tools.cost.money import normalize_currency

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = re.compile(r'^(\w+) = shipped\("([\w.]+)"\)', re.M)
IMPORTED = {"INPUT_NAMES": "input_names_text.yaml", "MEMORY_TEXT": "memory_text.yaml"}
ALIASED = re.compile(r"\b(INPUT_NAMES|MEMORY_TEXT) as (\w+)")
LOOKUP = re.compile(r'\b(\w+)\.(?:text|pair|pick|both|entry)\("([\w.\-]+)"')


def literal_keys() -> list[tuple[str, str, str]]:
    """(module, text file, key) for every lookup with a literal key in tools/."""
    found = []
    for path in sorted((ROOT / "tools").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        files = dict(IMPORTED) | dict(SHIPPED.findall(source))
        files |= {alias: IMPORTED[name] for name, alias in ALIASED.findall(source)}
        for variable, key in LOOKUP.findall(source):
            if variable in files:
                found.append((path.relative_to(ROOT).as_posix(), files[variable], key))
    return found


KEYS = literal_keys()


def test_the_scan_finds_the_lookups():
    modules = {module for module, _, _ in KEYS}
    assert len(KEYS) > 150 and {"tools/cost/tco.py", "tools/memory/training.py", "tools/serving/report.py"} <= modules


@pytest.mark.parametrize("module,file,key", KEYS, ids=[f"{m}:{k}" for m, _, k in KEYS])
def test_every_literal_key_exists(module, file, key):
    try:
        shipped(file).entry(key)
    except (KeyError, TypeError):
        pytest.fail(f"{module} reads '{key}', which {file} does not hold")


def test_a_range_error_names_the_input_in_each_language():
    with pytest.raises(AdvisorError) as caught:
        check_range(0, *INPUT_NAMES.pair("cards"), minimum=1, maximum=8, code="invalid_gpu_count")
    assert caught.value.en.startswith("GPUs must be at least 1") and caught.value.en.endswith("got 0.")
    assert caught.value.zh.startswith("卡数必须不小于 1") and "收到的是 0" in caught.value.zh


def test_currency_words_of_both_languages_come_from_data():
    assert normalize_currency("  RMB ") == "CNY" and normalize_currency("人民币") == "CNY" and normalize_currency("美金") == "USD"
    with pytest.raises(AdvisorError) as caught:
        normalize_currency("欧元")
    assert "USD" in caught.value.en and "人民币" in caught.value.zh and caught.value.suggestions == ["USD", "CNY"]
