"""One matcher for the phrase tables of ``data/value_phrases.yaml``: the words around a number that say what it is.

A table lists, per label, phrase templates built from named word lists, so that a new way of writing a request rate
or a count is a line of data, not a new regular expression. A template is tokens separated by spaces:

- ``{name}``: any word of the list ``name``; any other token is itself, literally;
- ``#N``: a number of at most N digits, the value the phrase is about; ``#N.D`` may have up to D decimals ("16.5");
- ``<end>``: the end of the text; ``<start>``: not right after a letter, a digit or a point ("h100 nodes" is no count);
- ``<word>``: a run of at most 24 letters, digits and hyphens, such as a product name ("gb200", "nvl72");
- ``!{name}``: no word of the list ``name`` comes next, after any spaces ("2 kW racks" is no count of racks);
- ``~``: the tokens either side may be written together even when both are in letters or digits ("x4");
- a token ending in ``?`` may be left out, one ending in ``*`` may repeat, ``*N`` at most N times;
- ``>``: what follows it must come next but is not part of the phrase.

A table's ``not_before`` lists what may not come right after any of its phrases.

Words written in letters keep to whole words; tokens both written in letters or digits need a space between them,
any other pair may be written together ("200requests/s") or apart ("200 req / s").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

PHRASES_FILE = Path(__file__).parent / "data" / "value_phrases.yaml"
Place = Literal["after", "before", "anywhere"]
LETTERS = "abcdefghijklmnopqrstuvwxyz"
WORD_CHARACTERS = LETTERS + "0123456789"
TOKEN_SHAPE = r"^(?:!?\{[a-z_]+\}|#\d(?:\.\d)?|<end>|<start>|<word>|[^\s{}#<>]+)(?:\?|\*\d?)?$"
REPEAT_SUFFIX = r"(?:\?|\*\d?)$"
ZERO_WIDTH = ("<start>", "!{")


class PhraseTableEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    place: Place = Field(
        description="after: written right after the number; before: ends where the number starts; anywhere: found in the text."
    )
    window: int = Field(24, gt=0, description="Characters before the number a 'before' phrase is looked for in.")
    phrases: dict[str, list[str]] = Field(min_length=1, description="Label → templates; a match says which label it is.")
    not_before: list[str] = Field(
        default_factory=list, description="What may not come right after a phrase: '20 kW' is power, '20 kWh' is not."
    )


class PhraseFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    words: dict[str, list[str]] = Field(min_length=1)
    tables: dict[str, PhraseTableEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _templates_are_well_formed(self) -> PhraseFile:
        for table, entry in self.tables.items():
            for label, templates in entry.phrases.items():
                for template in templates:
                    for token in template.replace(" > ", " ").split():
                        if not re.match(TOKEN_SHAPE, token):
                            raise ValueError(f"{table}.{label}: '{token}' in '{template}' is no token")
                        name = re.sub(REPEAT_SUFFIX, "", token).lstrip("!")
                        if name.startswith("{") and name[1:-1] not in self.words:
                            raise ValueError(f"{table}.{label}: '{template}' names the word list {name}, which is not under words:")
        return self


@dataclass(frozen=True)
class PhraseMatch:
    label: str
    start: int
    end: int
    number: str | None = None  # the digits of a ``#N`` token
    number_start: int = -1
    number_end: int = -1
    numbers: tuple[tuple[int, int, str], ...] = ()  # every ``#N`` token matched, (start, end, digits) in text order


@dataclass(frozen=True)
class _Token:
    pattern: str
    repeat: str  # "", "?" or "*"
    starts_word: bool
    ends_word: bool
    zero_width: bool = False  # a look around: it takes no text and leaves the spacing to the tokens either side


class PhraseTable:
    """One table's templates compiled into one pattern, each label a named group."""

    def __init__(self, name: str, entry: PhraseTableEntry, words: dict[str, list[str]]):
        self.name, self.place, self.window = name, entry.place, entry.window
        self.not_before = entry.not_before
        self._numbers: list[str] = []
        groups = []
        for label, templates in entry.phrases.items():
            alternatives = "|".join(self._template(template, words) for template in templates)
            groups.append(f"(?P<{label}>{alternatives})")
        body = "|".join(groups)
        if self.place == "after":
            body = rf"\s*(?:{body})"
        elif self.place == "before":
            body = rf"(?:{body})\s*$"
        self.pattern = re.compile(body)
        self._labels = list(entry.phrases)

    def at(self, text: str, position: int) -> PhraseMatch | None:
        """The phrase written right at ``position`` (an 'after' table: where the number ends)."""
        return self._match(self.pattern.match(text, position))

    def ending_at(self, text: str, position: int) -> PhraseMatch | None:
        """The phrase that ends where ``position`` starts, within the table's window (a 'before' table)."""
        return self._match(self.pattern.search(text, max(0, position - self.window), position))

    def find_all(self, text: str) -> list[PhraseMatch]:
        return [m for m in map(self._match, self.pattern.finditer(text)) if m is not None]

    def _match(self, found: re.Match[str] | None) -> PhraseMatch | None:
        if found is None:
            return None
        label = next(label for label in self._labels if found.group(label) is not None)
        numbers = tuple(sorted((found.start(g), found.end(g), found.group(g)) for g in self._numbers if found.group(g) is not None))
        if not numbers:
            return PhraseMatch(label, found.start(label), found.end())
        start, end, digits = numbers[0]
        return PhraseMatch(label, found.start(label), found.end(), digits, start, end, numbers)

    def _template(self, template: str, words: dict[str, list[str]]) -> str:
        taken, _, ahead = template.partition(" > ")
        guard_start = self.place != "after"  # right after a number ("3krpm") the number's own letters come first
        pattern, last = self._sequence(taken.split(), words, guard_start)
        if self.not_before:
            pattern += "(?!" + "|".join(re.escape(word) for word in self.not_before) + ")"
        if ahead:
            following, _ = self._sequence(ahead.split(), words, guard_start=False, before=last)
            pattern += f"(?={following})"
        return pattern

    def _sequence(
        self, parts: list[str], words: dict[str, list[str]], guard_start: bool, before: _Token | None = None
    ) -> tuple[str, _Token]:
        glued = {i for i, part in enumerate(parts) if part == "~"}  # the token after a "~" joins without a space
        parts = [part for part in parts if part != "~"]
        glued = {i - sum(1 for g in glued if g < i) for i in glued}
        tokens = [self._token(part, words, first=guard_start and i == 0, last=i == len(parts) - 1) for i, part in enumerate(parts)]
        pattern, previous, joined = "", before, False
        for i, token in enumerate(tokens):
            if token.zero_width:
                pattern += token.pattern
                continue
            joiner = "" if previous is None or joined else (r"\s*" if i in glued else _joiner(previous, token))
            joined = False
            if token.repeat and previous is None and i + 1 < len(tokens):
                # a leading optional word carries the space after it: "(a)? request" may start with its measure word or not
                pattern += f"(?:{token.pattern}{_joiner(token, tokens[i + 1])}){token.repeat}"
                joined = True
            elif token.repeat:
                pattern += f"(?:{joiner}{token.pattern}){token.repeat}"
            else:
                pattern += joiner + token.pattern
            previous = token
        return pattern, tokens[-1]

    def _token(self, part: str, words: dict[str, list[str]], first: bool, last: bool) -> _Token:
        suffix = re.search(REPEAT_SUFFIX, part) if len(part) > 1 else None
        name = part[: suffix.start()] if suffix else part
        repeat = {"": "", "?": "?", "*": "*"}.get(suffix.group() if suffix else "", f"{{0,{part[-1]}}}")
        if name == "<end>":
            return _Token("$", repeat, False, False)
        if name == "<start>":
            return _Token("(?<![a-z0-9.])", "", False, False, zero_width=True)
        if name == "<word>":
            # possessive and at most 24 long: a run is never split two ways, nor scanned to its end from every start
            return _Token(r"[a-z0-9\-]{1,24}+", repeat, True, True)
        if name.startswith("!{"):
            return _Token(rf"(?!\s*{self._token(name[1:], words, first=False, last=True).pattern})", "", False, False, zero_width=True)
        if name.startswith("#"):
            group = f"n{len(self._numbers)}"
            self._numbers.append(group)
            digits, _, decimals = name[1:].partition(".")
            fraction = rf"(?:\.\d{{1,{int(decimals)}}})?" if decimals else ""
            return _Token(rf"(?<![\d.$])(?P<{group}>\d{{1,{int(digits)}}}{fraction})", repeat, True, True)
        items = words[name[1:-1]] if name.startswith("{") else [name]
        alternatives = []
        for item in sorted(items, key=len, reverse=True):  # the longest first: "seconds" before "s"
            written = r"\s+".join(re.escape(piece) for piece in item.split())
            if first and item[0] in LETTERS:
                written = rf"(?<![a-z]){written}"
            if last and item[-1] in LETTERS:
                written = rf"{written}(?![a-z])"
            alternatives.append(written)
        return _Token(
            "(?:" + "|".join(alternatives) + ")",
            repeat,
            starts_word=all(item[0] in WORD_CHARACTERS for item in items),
            ends_word=all(item[-1] in WORD_CHARACTERS for item in items),
        )


def _joiner(previous: _Token, token: _Token) -> str:
    return r"\s+" if previous.ends_word and token.starts_word else r"\s*"


@lru_cache(maxsize=1)
def _file() -> PhraseFile:
    return PhraseFile.model_validate(yaml.safe_load(PHRASES_FILE.read_text(encoding="utf-8")))


def word_at(text: str, position: int, words: str, after_spaces: bool = True) -> int | None:
    """Where the longest word of the list ``words`` written at ``position`` (after any spaces) ends, else ``None``."""
    start = position
    while after_spaces and start < len(text) and text[start].isspace():
        start += 1
    return max((start + len(word) for word in _file().words[words] if text.startswith(word, start)), default=None)


def counted_before(text: str, position: int, measures: str = "people_measure") -> bool:
    """Whether a count stands right before ``position``, a measure word of the list ``measures`` allowed between
    ("60 colleagues", or a measure word and a colleagues word in Chinese): the word at ``position`` is then the unit of that count."""
    before = text[:position].rstrip()
    measure = max((word for word in _file().words[measures] if before.endswith(word)), key=len, default="")
    return before[: len(before) - len(measure)].rstrip()[-1:].isdigit()


def words_in(text: str, words: str) -> bool:
    """Whether any word of the list ``words`` is written anywhere in ``text`` (inside other words too: "5 bucks");
    a space in a word stands for any run of white space ("at  once")."""
    said = " ".join(text.split())
    return any(word in said for word in _file().words[words])


@cache
def phrase_table(name: str) -> PhraseTable:
    """The table ``name`` of value_phrases.yaml, compiled once."""
    data = _file()
    return PhraseTable(name, data.tables[name], data.words)


def phrase_tables(words: dict[str, list[str]], tables: dict) -> dict[str, PhraseTable]:
    """Tables kept beside another reader's own words (site_words.yaml), checked and compiled like value_phrases.yaml's."""
    checked = PhraseFile.model_validate({"words": words, "tables": tables})
    return {name: PhraseTable(name, entry, checked.words) for name, entry in checked.tables.items()}
