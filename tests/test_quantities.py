"""Number and model-size parsing in both scripts, including never failing on junk."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.quantities import find_numbers, parse_number, parse_param_count


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("70亿", 7e9),
        ("七十亿", 7e9),
        ("700亿", 7e10),
        ("1.5万亿", 1.5e12),
        ("两万", 2e4),
        ("25万", 2.5e5),
        ("1,000", 1000),
        ("1.8k", 1800),
        ("7B", 7e9),
        ("1.5T", 1.5e12),
        ("3.5M", 3.5e6),
        ("十二", 12),
        ("两", 2),
        ("一百零五", 105),
        ("一万五", 15000),
        ("两千五", 2500),
        ("3万5", 35000),
        ("1万5000", 15000),
        ("一万零五", 10005),
        ("一亿五千万", 1.5e8),
        ("1亿5000万", 1.5e8),
        ("三千五百万", 3.5e7),
        ("三点五亿", 3.5e8),
        ("二〇二四", 2024),
        ("七八", 8),  # a spoken range is read as its top
        ("三五十", 50),
        ("两三百", 300),
        ("十七八", 18),
        ("十", 10),
        ("１，０００", 1000),  # full-width digits and comma
        ("７Ｂ", 7e9),
        ("7 billion", 7e9),
        ("2w", 2e4),
        ("约70亿", 7e9),
        ("1e9", 1e9),
        ("-3", -3),
        ("负两万", -2e4),
        ("1,234,567", 1234567),
    ],
)
def test_parse_number_reads_both_scripts(text, expected):
    assert parse_number(text) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["", "   ", "abc", "万", "k", "7B5", "1.2.3", "A100", "80GB", "7 bits", "5万万", "3点5", "1e999"])
def test_parse_number_rejects_non_numbers(text):
    assert parse_number(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7B", 7e9),
        ("7b", 7e9),
        ("70亿参数", 7e9),
        ("0.5B", 5e8),
        ("1.5T", 1.5e12),
        ("405B", 4.05e11),
        ("405b params", 4.05e11),
        ("7B模型", 7e9),
        ("70 亿 个参数", 7e9),
        ("七百亿", 7e10),
        ("8 billion parameters", 8e9),
        ("7000000000", 7e9),
    ],
)
def test_parse_param_count(text, expected):
    assert parse_param_count(text) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["7", "8x7B", "abc", "0", "-7B", "0B", "参数", "7 GB"])
def test_parse_param_count_needs_a_positive_size_with_magnitude(text):
    assert parse_param_count(text) is None


@given(st.integers(min_value=0, max_value=10**15))
def test_arabic_integers_round_trip_with_and_without_commas(n):
    assert parse_number(str(n)) == n
    assert parse_number(f"{n:,}") == n


@given(st.integers(min_value=1, max_value=9999), st.integers(min_value=0, max_value=9999))
def test_yi_and_wan_groups_compose(yi, wan):
    text = f"{yi}亿{wan}万" if wan else f"{yi}亿"
    assert parse_number(text) == yi * 1e8 + wan * 1e4


NOISY_ALPHABET = "0123456789.,-+eEkKmMbBtTwW 一二两三四五六七八九十百千万亿零点负参数个约~GgAa亿万,，。/()"


@settings(max_examples=400)
@given(st.one_of(st.text(alphabet=NOISY_ALPHABET, max_size=20), st.text(max_size=20)))
def test_parsers_never_raise_and_return_finite_numbers(text):
    for value in (parse_number(text), parse_param_count(text)):
        assert value is None or math.isfinite(value)
    count = parse_param_count(text)
    assert count is None or count >= 1e6
    for match in find_numbers(text):
        assert math.isfinite(match.value)


def test_parsers_tolerate_non_strings():
    assert parse_number(None) is None  # type: ignore[arg-type]
    assert parse_param_count(7) is None  # type: ignore[arg-type]
    assert find_numbers(None) == []  # type: ignore[arg-type]


def test_find_numbers_locates_quantities_and_skips_product_names():
    text = "我们有8张A100 80GB，想训练70亿参数的模型，预算两万美元，约1.5k tokens"
    found = [(m.text, m.value) for m in find_numbers(text)]
    assert found == [("8", 8), ("80", 80), ("70亿", 7e9), ("两万", 2e4), ("1.5k", 1500)]
    first = find_numbers(text)[2]
    assert text[first.start : first.end] == "70亿"


def test_find_numbers_splits_lists_but_keeps_thousands():
    assert [m.value for m in find_numbers("8,16 or 1,000,000 GPUs")] == [8, 16, 1_000_000]


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("每个机柜供电 18千瓦", [18.0]),  # kilowatt: 千 is the unit's prefix
        ("园区总共 3兆瓦", [3.0]),
        ("三十千瓦的柜子", [30.0]),
        ("预算 8千块", [8000.0]),  # 千 before a currency word stays the number's magnitude
        ("两台服务器 6万元", [2.0, 60000.0]),
    ],
)
def test_a_magnitude_character_that_starts_a_unit_word_belongs_to_the_unit(text, numbers):
    assert [match.value for match in find_numbers(text)] == numbers
