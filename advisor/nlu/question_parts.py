"""The questions one message asks: "Move inference to the 910B? What would migrating cost? And training?" is three,
"AMD or NVIDIA for a new cluster: software, price, availability?" is one subject asked three ways, and "If we buy
H100s, how many do we need?" is one. The marks, the words that open a question and the enumeration's separators are
data (data/question_parts.yaml), in both languages; this module only cuts."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Phrases, Text

PARTS_FILE = Path(__file__).parent / "data" / "question_parts.yaml"


class PartWords(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ends: list[str] = Field(min_length=1)
    commas: list[str] = Field(min_length=1)
    openers: Phrases
    question_words: dict[str, list[str]]
    heads: list[str]
    item_separators: Phrases
    max_item_words: dict[str, int]
    asked_each: Phrases
    aspect_question: Text
    max_parts: int = Field(ge=2)
    about_what_came_before: list[str] = []
    counting: dict[str, list[str]] = {}


@lru_cache(maxsize=1)
def part_words(path: Path = PARTS_FILE) -> PartWords:
    return PartWords.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def _chinese(text: str) -> bool:
    return any("\u4e00" <= char <= "\u9fff" for char in text)


def _starts_with_opener(clause: str, words: PartWords) -> bool:
    text = clause.strip().lower()
    if _chinese(text):
        return any(text.startswith(word) for word in words.openers.zh)
    return any(text == word or text.startswith(word + " ") for word in words.openers.en)


def _is_question(clause: str, words: PartWords) -> bool:
    """A clause that asks: it opens with a question word, or (Chinese) has one anywhere; a head's subject is not
    the question, the words after it are ("AMD or NVIDIA: how mature is the software")."""
    asked = _after_head(clause, words)[1]
    if _chinese(asked):
        return any(_asks_with(asked, word, words.counting.get(word, [])) for word in words.question_words.get("zh", []))
    return _starts_with_opener(asked, words)


def _asks_with(text: str, word: str, counts_before: list[str]) -> bool:
    """``word`` stands in ``text`` as a question word at least once: not where one of ``counts_before`` follows it
    (the Chinese "several" before "million requests" counts them; before a count word for cards it asks how many)."""
    at = text.find(word)
    while at >= 0:
        if not any(text.startswith(unit, at + len(word)) for unit in counts_before):
            return True
        at = text.find(word, at + 1)
    return False


def _after_head(clause: str, words: PartWords) -> tuple[str, str]:
    for mark in words.heads:
        head, found, rest = clause.partition(mark)
        if found and head.strip() and rest.strip():
            return head.strip(), rest.strip()
    return "", clause.strip()


def _sentences(message: str, words: PartWords) -> list[str]:
    pieces, current = [], []
    for char in message:
        current.append(char)
        if char in words.ends:
            pieces.append("".join(current).strip())
            current = []
    pieces.append("".join(current).strip())
    return [piece for piece in pieces if piece.strip("".join(words.ends) + " ")]


def _next_clause(sentence: str, start: int, words: PartWords) -> str:
    ends = [index for index in range(start, len(sentence)) if sentence[index] in words.commas]
    return sentence[start : ends[0] if ends else len(sentence)]


def _opens_question(clause: str, words: PartWords) -> bool:
    """A clause after a comma is a new question when it opens with a question word ("how long would a port take",
    or its Chinese counterpart); "what is the average PUE, has it improved?" asks one thing twice over and stays whole."""
    asked = clause.strip().strip("".join(words.ends) + " ").casefold()
    if any(asked == tail for tail in words.about_what_came_before):
        return False  # "…, why?" (or its Chinese counterpart): a question about everything said before it, not one of its own
    return _starts_with_opener(clause, words)


def _clauses(sentence: str, words: PartWords) -> list[str]:
    """A sentence cut at each comma that starts another question after a question."""
    cuts, start = [], 0
    for index, char in enumerate(sentence):
        if char in words.commas and _opens_question(_next_clause(sentence, index + 1, words), words) and _is_question(sentence[start:index], words):
            cuts.append(sentence[start:index].strip())
            start = index + 1
    return [*cuts, sentence[start:].strip()]


def _split_once(text: str, separators: list[str]) -> list[str]:
    items = [text]
    for separator in sorted(separators, key=len, reverse=True):
        items = [piece for item in items for piece in item.split(separator)]
    return [item.strip() for item in items if item.strip()]


def _aspects(clause: str, words: PartWords) -> list[str]:
    """"subject: a, b and c?" → one question per aspect, each with the subject; [] when it is no such list."""
    head, rest = _after_head(clause, words)
    if not head:
        return []
    language = "zh" if _chinese(rest) else "en"
    rest = rest.rstrip("".join(words.ends) + " ")
    for closing in sorted(words.asked_each.zh if language == "zh" else words.asked_each.en, key=len, reverse=True):
        if rest.lower().endswith(closing):
            rest = rest[: -len(closing)].rstrip(" ,")
            break
    separators = words.item_separators.zh if language == "zh" else words.item_separators.en
    items = _split_once(rest, separators)
    longest = words.max_item_words[language]
    size = (lambda item: len(item)) if language == "zh" else (lambda item: len(item.split()))  # noqa: E731 - characters vs words
    if len(items) < 2 or any(size(item) > longest for item in items) or any(_starts_with_opener(item, words) for item in items):
        return []
    template = words.aspect_question.zh if language == "zh" else words.aspect_question.en
    return [template.format(head=head, aspect=item) for item in items]


def question_parts(message: str) -> list[str]:
    """The separate questions of ``message`` in order, each readable on its own where the message allows (an
    aspect carries its subject); [] when it asks one question, or more than the table's max_parts (a list to go
    through together). A statement before a question is that question's setup, not a part."""
    words = part_words()
    text = message if isinstance(message, str) else ""
    parts: list[str] = []
    for sentence in _sentences(text, words):
        clauses = _clauses(sentence, words)
        if len(clauses) == 1 and (aspects := _aspects(sentence, words)):
            parts += aspects
            continue
        head = _after_head(clauses[0], words)[0]
        parts += [clauses[0], *(f"{head}: {clause}" if head and not _chinese(head) else (f"{head}：{clause}" if head else clause)
                                for clause in clauses[1:])]  # fmt: skip
    asking = [part for part in parts if _is_question(part, words) or part.rstrip().endswith(("?", "？"))]
    if len(asking) != len(parts) or not 2 <= len(parts) <= words.max_parts:
        return []
    return parts
