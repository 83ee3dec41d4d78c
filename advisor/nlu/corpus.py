"""The labelled data: the intent/slot schema, the training corpus and the held-out split.

Utterances are written with inline annotations, ``[surface](slot)``; here they become plain
text plus the character spans of each slot, which is what the trainers and the evaluation use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from advisor.nlu.slot_schema import SLOT_SCHEMA

DATA_DIR = Path(__file__).parent / "data"
TRAIN_DIR = DATA_DIR / "train"
ANNOTATION = re.compile(r"\[([^\[\]]+?)\]\(([a-z_]+)\)")
TASKS = ("recommend", "memory", "max_fit", "specs", "serving_speed", "training_time", "tco", "troubleshoot", "facility")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    slot: str
    text: str


@dataclass(frozen=True)
class Utterance:
    text: str
    intent: str
    language: str
    spans: tuple[Span, ...] = ()


@dataclass
class ConversationTurn:
    utterance: Utterance
    expect_task: str | None = None


@dataclass
class Conversation:
    id: str
    language: str
    turns: list[ConversationTurn] = field(default_factory=list)


@dataclass
class Corpus:
    utterances: list[Utterance]
    conversations: list[Conversation]


@dataclass(frozen=True)
class Schema:
    intents: dict[str, str]
    slots: dict[str, str]


@lru_cache(maxsize=1)
def load_schema() -> Schema:
    raw = yaml.safe_load((DATA_DIR / "schema.yaml").read_text(encoding="utf-8"))
    return Schema(intents=dict(raw["intents"]), slots=SLOT_SCHEMA.labelled)  # the slots training labels may use


def parse_annotated(annotated: str, intent: str, language: str) -> Utterance:
    """``"can [2](gpu_count) [4090s](gpu) run it"`` → text without brackets and the slot spans."""
    parts, spans, position, length = [], [], 0, 0
    for match in ANNOTATION.finditer(annotated):
        before = annotated[position : match.start()]
        parts.append(before)
        length += len(before)
        surface, slot = match.group(1), match.group(2)
        spans.append(Span(length, length + len(surface), slot, surface))
        parts.append(surface)
        length += len(surface)
        position = match.end()
    parts.append(annotated[position:])
    return Utterance("".join(parts), intent, language, tuple(spans))


def read_file(path: Path) -> Corpus:
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    language = raw.get("language", "en")
    utterances = [
        parse_annotated(text["text"] if isinstance(text, dict) else text, intent, language)
        for intent, texts in (raw.get("intents") or {}).items()
        for text in texts
    ]
    utterances += [parse_annotated(item["text"], item["intent"], language) for item in raw.get("utterances") or []]
    conversations = []
    for index, item in enumerate(raw.get("conversations") or [], start=1):
        turns = [
            ConversationTurn(parse_annotated(turn["text"], turn["intent"], language), turn.get("expect_task")) for turn in item["turns"]
        ]
        conversations.append(Conversation(item.get("id", f"{path.stem}-{index}"), language, turns))
    return Corpus(utterances, conversations)


def read_files(paths: list[Path]) -> Corpus:
    corpus = Corpus([], [])
    for path in paths:
        part = read_file(path)
        corpus.utterances += part.utterances
        corpus.conversations += part.conversations
    return corpus


def training_files() -> list[Path]:
    return sorted(TRAIN_DIR.glob("*.yaml"))


def training_corpus() -> Corpus:
    """Single utterances plus the conversations' turns that ask something on their own.

    A conversation's follow-up is left to the dialogue model: "already dropped bs to 4, still OOMs"
    continues a pasted log, but on its own it is a troubleshooting message, and teaching the intent
    classifier otherwise would make every detail look like a follow-up.
    """
    corpus = read_files(training_files())
    corpus.utterances += [turn.utterance for conversation in corpus.conversations for turn in conversation.turns if turn.utterance.intent != "follow_up"]
    return corpus
