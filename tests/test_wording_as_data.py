"""Words moved out of code stay in use: the NLU's pattern words compile and each is read by a module, and the doors,
the CLI and the settings word their messages in both languages from YAML."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from advisor.cli import build_parser
from advisor.config import ConfigError, Settings
from advisor.interfaces.door_text import TEXT, worded_error
from advisor.interfaces.sessions import LOGIN_TEXT
from advisor.nlu.extractors.times import ALWAYS_ON
from advisor.nlu.pattern_words import WORDS_FILE, alternatives, pattern_words
from advisor.retrieval.lexical import STOPWORDS

ROOT = Path(__file__).resolve().parent.parent
CJK = re.compile(r"[\u4e00-\u9fff]")
SOURCE = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "advisor").rglob("*.py"))
LISTS = list(yaml.safe_load(WORDS_FILE.read_text(encoding="utf-8")))


@pytest.mark.parametrize("key", LISTS)
def test_each_pattern_list_is_read_by_a_module_and_compiles(key):
    assert f'"{key}"' in SOURCE or f"'{key}'" in SOURCE, f"{key} in pattern_words.yaml is read by no module"
    if isinstance(pattern_words(key), list):
        re.compile(alternatives(key))


@pytest.mark.parametrize(
    ("text", "always_on"),
    [("the box runs 24/7 for inference", True), ("机器一年到头不关机", True), ("它全年无休地跑推理", True),
     ("a 24 GB card for a week", False), ("每天只开八小时", False)],
)  # fmt: skip
def test_the_around_the_clock_words_from_data_still_match(text, always_on):
    assert bool(ALWAYS_ON.search(text)) is always_on


def test_stopwords_hold_both_languages():
    assert {"the", "which"} <= STOPWORDS and {"怎么", "的"} <= STOPWORDS and "显存" not in STOPWORDS


def test_a_worded_error_fills_both_languages():
    error = worded_error("rate_limited", limit=30, seconds=12)
    assert error.code == "rate_limited" and "30" in error.en and "12" in error.en
    assert CJK.search(error.zh) and "30" in error.zh and "{" not in error.zh
    assert worded_error("body_too_large", "body_too_large_limit", limit=99).code == "body_too_large"


def test_the_sign_in_page_says_each_notice_chinese_first():
    for key, notice in LOGIN_TEXT.items():
        zh, en = notice.split(" · ")
        assert CJK.search(zh) and not CJK.search(en), key
        assert (en, zh) == TEXT.pair(f"login.{key}")


def test_cli_help_lines_carry_both_languages():
    shown = " ".join(build_parser().format_help().split())
    assert "Bilingual GPU advisor" in shown and CJK.search(shown)


def test_a_bad_public_url_is_refused_in_both_languages():
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({"ADVISOR_PUBLIC_URL": "gopher://wiki"})
    assert "gopher://wiki" in refused.value.en and "gopher://wiki" in refused.value.zh and CJK.search(refused.value.zh)
