"""Which language to answer in, and whether the message is something we can read at all.

The advisor speaks Chinese and English only. Users mix both freely ("4090 跑 LoRA 够吗"), paste
English logs under a Chinese question, or write in a language we do not support; the reply
language follows the human prose, and anything else falls back to English with a flag.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from pydantic import BaseModel, Field

from advisor.contract import Language
from tools.cost.money import Currency

Script = Literal["zh", "en", "ja", "ko", "ru", "ar", "other", "none"]
Flag = Literal["empty", "emoji_only", "nonsense", "unsupported", "mixed"]

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
FOREIGN_SCRIPTS: dict[Script, re.Pattern[str]] = {
    "ja": re.compile(r"[\u3040-\u30ff\u31f0-\u31ff]"),  # kana: Chinese text never needs it
    "ko": re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]"),
    "ru": re.compile(r"[\u0400-\u04ff]"),
    "ar": re.compile(r"[\u0600-\u06ff\u0750-\u077f]"),
    "other": re.compile(r"[\u0370-\u03ff\u0590-\u05ff\u0900-\u097f\u0e00-\u0e7f]"),  # Greek, Hebrew, Hindi, Thai
}
LATIN_WORD = re.compile(r"[A-Za-z]+")
# A word standing alone: the "a" of "A100" or the "h" of "H20" is part of a name, not the English article
STANDALONE_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]+(?![A-Za-z0-9])")
# Function words carry the language of a sentence; product names ("H100", "LoRA") do not.
ENGLISH_WORDS = frozenset(
    """a an the is are was were be been am do does did can could should would will shall may might must
    i you we they he she it my your our their me us them this that these those what which who whom whose
    why how when where there here if then than so but or and not no yes of in on at to for from with by
    about into over under per as any some much many more most enough need needs want wants have has had
    get got buy rent run use using train training fit fits best better good help please tell explain
    just also only very too still vs""".split()
)
# Lines of a pasted log or stack trace: their English says nothing about the user's language.
LOG_LINE = re.compile(
    r"Traceback|Error|Exception|WARN|INFO|DEBUG|NCCL|Xid|CUDA|^\s*(?:File \"|at |\[|\d{2,4}[-/:])|\d{2}:\d{2}:\d{2}"
)
PLAUSIBLE_WORD = re.compile(r"^(?=.*[aeiouy])(?!.*[bcdfghjklmnpqrstvwxz]{5})[a-z]+$")


class LanguageInfo(BaseModel):
    """How to read and answer a message."""

    language: Language = Field(description="Language to answer in: 'zh' or 'en' (English when unsupported).")
    detected: Script = Field(description="Dominant script/language seen, e.g. 'ja' for Japanese; 'none' if no words.")
    supported: bool = Field(description="False when the message is written in a language other than 中文/English.")
    flags: list[Flag] = Field(default_factory=list, description="empty, emoji_only, nonsense, unsupported, mixed.")


def detect_language(text: str) -> Language:
    """'zh' or 'en': the language the reply should be written in."""
    return analyze_language(text).language


def default_currency(language: str) -> Currency:
    """The currency of an amount written without one: yuan in a Chinese message, dollars otherwise."""
    return "CNY" if language == "zh" else "USD"


def analyze_language(text: str) -> LanguageInfo:
    """Reply language plus flags for empty, emoji-only, gibberish or unsupported-language input."""
    if not isinstance(text, str) or not text.strip():
        return LanguageInfo(language="en", detected="none", supported=True, flags=["empty"])
    text = unicodedata.normalize("NFKC", text)
    han = len(HAN.findall(text))
    foreign = {script: len(pattern.findall(text)) for script, pattern in FOREIGN_SCRIPTS.items()}
    prose = "\n".join(line for line in text.splitlines() if not LOG_LINE.search(line))
    words = [w.lower() for w in LATIN_WORD.findall(text)]
    english = sum(1 for w in STANDALONE_WORD.findall(prose) if w.lower() in ENGLISH_WORDS)
    any_english = english or any(w.lower() in ENGLISH_WORDS for w in STANDALONE_WORD.findall(text))

    script, count = max(foreign.items(), key=lambda item: item[1])
    if script == "ja" and count and count * 10 >= han:
        return _unsupported("ja")
    if count and count >= han and count * 2 >= len(words):
        return _unsupported(script)
    if han:
        # A Han character is worth about half a word; ties go to Chinese because a Chinese
        # speaker mixing in English terms is far more common than the reverse.
        language: Language = "zh" if han / 2 >= english else "en"
        flags: list[Flag] = ["mixed"] if any_english else []
        return LanguageInfo(language=language, detected=language, supported=True, flags=flags)
    if words:
        plausible = any(PLAUSIBLE_WORD.match(w) or w.isupper() for w in LATIN_WORD.findall(text))
        has_digits = any(c.isdigit() for c in text)
        # Short unknown tokens are more likely jargon ("fsdp") than keyboard mashing.
        letters = sum(len(w) for w in words)
        flags = [] if plausible or has_digits or english or letters < 6 else ["nonsense"]
        if _mostly_control(text):
            flags = ["nonsense"]
        return LanguageInfo(language="en", detected="en", supported=True, flags=flags)
    if _is_emoji_only(text):
        return LanguageInfo(language="en", detected="none", supported=True, flags=["emoji_only"])
    has_digits = any(c.isdigit() for c in text)
    flags = [] if has_digits and not _mostly_control(text) else ["nonsense"]
    return LanguageInfo(language="en", detected="none", supported=True, flags=flags)


def _unsupported(script: Script) -> LanguageInfo:
    return LanguageInfo(language="en", detected=script, supported=False, flags=["unsupported"])


def _is_emoji_only(text: str) -> bool:
    """Only pictographs, their modifiers (skin tone, ZWJ, variation selectors) and spaces."""
    seen_symbol = False
    for char in text:
        if char.isspace() or char in "\u200d\ufe0e\ufe0f" or 0x1F3FB <= ord(char) <= 0x1F3FF:
            continue
        if unicodedata.category(char) == "So" or 0x1F000 <= ord(char) <= 0x1FAFF:
            seen_symbol = True
            continue
        return False
    return seen_symbol


def _mostly_control(text: str) -> bool:
    """Binary pasted as text: control characters, NULs and replacement characters."""
    sample = text[:4096]
    odd = sum(1 for c in sample if c == "\ufffd" or (unicodedata.category(c) in ("Cc", "Co", "Cs") and c not in "\n\r\t"))
    return odd * 10 > len(sample)
