"""Features for the two trained models: the whole message (intent) and one value in context (role)."""

from __future__ import annotations

import math
import re

import jieba

from advisor.name_matcher import normalize_text
from advisor.nlu.number_values import Value
from advisor.nlu.pattern_words import pattern_words

jieba.setLogLevel(60)
# A tokenizer of our own with jieba's dictionary alone: retrieval adds its glossary terms to jieba's shared
# one, and a message must be cut the same way whether or not a search ran first (and as in training).
SEGMENTER = jieba.Tokenizer()
WORD = re.compile(r"[a-z][a-z0-9_.+\-]*|[\u4e00-\u9fff]+|[^\sa-z0-9\u4e00-\u9fff]")
PLACEHOLDER = {"model": " 〈model〉 ", "gpu": " 〈gpu〉 ", "gpu_family": " 〈gpu〉 ", "other_gpu": " 〈gpu〉 ", "params": " 〈size〉 "}
EDGE = 1200  # a long paste is read at its start and end, where the question sits
CONTEXT_CHARS = 16
SIDE_WORDS = {word: side for side, words_of_side in pattern_words("side_words").items() for word in words_of_side}
CLAUSE = re.compile(r"[。；;!！?？\n]|\.\s")  # a sentence ends there; a comma does not ("prompts are short, 300 tokens")


def focus(text: str) -> str:
    text = normalize_text(text if isinstance(text, str) else "")
    return text if len(text) <= 2 * EDGE else text[:EDGE] + "\n…\n" + text[-EDGE:]


def masked(text: str, values: list[Value]) -> str:
    """Names and sizes replaced by placeholders, so "can 〈gpu〉 run 〈model〉" generalises across catalogs."""
    parts, position = [], 0
    for value in values:
        if value.kind in PLACEHOLDER and value.start >= position:
            parts += [text[position : value.start], PLACEHOLDER[value.kind]]
            position = value.end
    return "".join(parts) + text[position:]


def words(text: str) -> list[str]:
    """Latin words whole, Chinese segmented by jieba, punctuation kept (it carries '?' and '/')."""
    out: list[str] = []
    for token in WORD.findall(text):
        if "\u4e00" <= token[0] <= "\u9fff":
            out += SEGMENTER.lcut(token, HMM=False)
        else:
            out.append(token)
    return out


def role_features(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """What the tagger sees of one value: its kind and unit, the words around it, its neighbours, the intent."""
    left = words(text[max(0, value.start - CONTEXT_CHARS) : value.start])[-4:]
    right = words(text[value.end : value.end + CONTEXT_CHARS])[:4]
    features = {f"kind={value.kind}": 1.0, f"unit={value.unit}": 1.0, f"intent={intent}": 1.0, f"kind+intent={value.kind}|{intent}": 1.0}
    for i, word in enumerate(reversed(left), start=1):
        features[f"L{min(i, 3)}={word}"] = 1.0
        features[f"Lw={word}"] = 1.0
        features[f"kind+Lw={value.kind}|{word}"] = 1.0
    for i, word in enumerate(right, start=1):
        features[f"R{min(i, 3)}={word}"] = 1.0
        features[f"Rw={word}"] = 1.0
        features[f"kind+Rw={value.kind}|{word}"] = 1.0
    for word in [*left[-2:], *right[:2]]:  # "1k output tokens", "output 2k", "512 in": which end of the request a length is
        if word in SIDE_WORDS:
            features[f"side={SIDE_WORDS[word]}"] = 1.0
    said_before = [SIDE_WORDS[word] for word in words(_sentence_before(text, value.start)) if word in SIDE_WORDS]
    if said_before:  # "cut the input to 1000", "prompts are short, like 300 tokens": the last side named before it in its sentence
        features[f"sentence_side={said_before[-1]}"] = 1.0
    surface_words = words(value.surface)
    for word in surface_words:
        features[f"S={word}"] = 1.0
    index = values.index(value)
    neighbour_after = values[index + 1] if index + 1 < len(values) else None
    neighbour_before = values[index - 1] if index > 0 else None
    if neighbour_after is not None and neighbour_after.start - value.end <= 3:
        features[f"next={neighbour_after.kind}"] = 1.0
    if neighbour_before is not None and value.start - neighbour_before.end <= 3:
        features[f"prev={neighbour_before.kind}"] = 1.0
    if isinstance(value.value, float) and math.isfinite(value.value):
        digits = min(len(str(int(value.value))), 13)
        features["magnitude"] = digits / 13
        features[f"kind+digits={value.kind}|{digits}"] = 1.0  # 200 tokens is a length, 2e11 a data set: scale is not linear in role
        features["small_int"] = float(value.value.is_integer() and value.value <= 16)
        features["power_of_two"] = float(value.value.is_integer() and value.value > 0 and int(value.value) & (int(value.value) - 1) == 0)
    if isinstance(value.value, tuple):  # money: (amount, currency, per)
        features[f"per={value.value[2]}"] = 1.0
        features[f"currency={value.value[1]}"] = 1.0
    return features


def _sentence_before(text: str, start: int, reach: int = 40) -> str:
    """The words of the sentence before ``start``, at most ``reach`` characters back."""
    return CLAUSE.split(text[max(0, start - reach) : start])[-1]
