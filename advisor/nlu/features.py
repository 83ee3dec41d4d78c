"""Features for the two trained models: the whole message (intent) and one value in context (role)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import jieba

from advisor.name_matcher import normalize_text
from advisor.nlu.extractors.counts import CARD_AFTER_MEMORY
from advisor.nlu.number_values import Value
from advisor.nlu.pattern_words import pattern_words
from advisor.nlu.phrases import words_in
from advisor.nlu.pipeline import PIPELINE, PipelineError

jieba.setLogLevel(60)
# A tokenizer of our own with jieba's dictionary alone: retrieval adds its glossary terms to jieba's shared
# one, and a message must be cut the same way whether or not a search ran first (and as in training).
SEGMENTER = jieba.Tokenizer()
WORD = re.compile(r"[a-z][a-z0-9_.+\-]*|[\u4e00-\u9fff]+|[^\sa-z0-9\u4e00-\u9fff]")
PLACEHOLDER = {"model": " 〈model〉 ", "gpu": " 〈gpu〉 ", "gpu_family": " 〈gpu〉 ", "other_gpu": " 〈gpu〉 ", "params": " 〈size〉 "}
EDGE = 1200  # a long paste is read at its start and end, where the question sits
CONTEXT_CHARS = 16
SIZED_CARD_GAP = 12  # "a100 40gb or the 80gb": at most this many characters between a sized card and another size of it
SIDE_WORDS = {word: side for side, words_of_side in pattern_words("side_words").items() for word in words_of_side}
LEVER_OUTCOME = tuple(pattern_words("lever_outcome"))
LEVER_ASKED = tuple(pattern_words("lever_asked"))
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


Featurizer = Callable[[str, Value, list[Value], str], dict[str, float]]
FEATURIZERS: dict[str, Featurizer] = {}


def featurizer(function: Featurizer) -> Featurizer:
    """Register ``function`` as a featurizer of the role tagger, under its own name (the name pipeline.yaml lists)."""
    FEATURIZERS[function.__name__] = function
    return function


def role_features(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """What the tagger sees of one value: the features of every featurizer pipeline.yaml declares (tag_roles)."""
    features: dict[str, float] = {}
    for name in ROLE_FEATURIZERS:
        features.update(FEATURIZERS[name](text, value, values, intent))
    return features


@featurizer
def kind_and_intent(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """The value's kind and unit, the message's intent, and the two together."""
    return {f"kind={value.kind}": 1.0, f"unit={value.unit}": 1.0, f"intent={intent}": 1.0, f"kind+intent={value.kind}|{intent}": 1.0}


def _left(text: str, value: Value) -> list[str]:
    return words(text[max(0, value.start - CONTEXT_CHARS) : value.start])[-4:]


def _right(text: str, value: Value) -> list[str]:
    return words(text[value.end : value.end + CONTEXT_CHARS])[:4]


@featurizer
def words_around(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """The few words either side of the value, by distance and in a bag, alone and with the value's kind."""
    features = {}
    for i, word in enumerate(reversed(_left(text, value)), start=1):
        features[f"L{min(i, 3)}={word}"] = 1.0
        features[f"Lw={word}"] = 1.0
        features[f"kind+Lw={value.kind}|{word}"] = 1.0
    for i, word in enumerate(_right(text, value), start=1):
        features[f"R{min(i, 3)}={word}"] = 1.0
        features[f"Rw={word}"] = 1.0
        features[f"kind+Rw={value.kind}|{word}"] = 1.0
    return features


@featurizer
def request_side(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """Which end of the request a length is: a side word beside it ("1k output tokens", "output 2k", "512 in"), and the last
    side named before it in its sentence ("cut the input to 1000", "prompts are short, like 300 tokens")."""
    features = {}
    for word in [*_left(text, value)[-2:], *_right(text, value)[:2]]:
        if word in SIDE_WORDS:
            features[f"side={SIDE_WORDS[word]}"] = 1.0
    said_before = [SIDE_WORDS[word] for word in words(_sentence_before(text, value.start)) if word in SIDE_WORDS]
    if said_before:
        features[f"sentence_side={said_before[-1]}"] = 1.0
    return features


@featurizer
def surface_words(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """The words the value itself is written with ("5 bucks", "two hgx boxes")."""
    return {f"S={word}": 1.0 for word in words(value.surface)}


@featurizer
def neighbours(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """The kinds of the values written right next to it."""
    features = {}
    index = values.index(value)
    neighbour_after = values[index + 1] if index + 1 < len(values) else None
    neighbour_before = values[index - 1] if index > 0 else None
    if neighbour_after is not None and neighbour_after.start - value.end <= 3:
        features[f"next={neighbour_after.kind}"] = 1.0
    if neighbour_before is not None and value.start - neighbour_before.end <= 3:
        features[f"prev={neighbour_before.kind}"] = 1.0
    return features


@featurizer
def magnitude(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """The number's scale: 200 tokens is a length, 2e11 a data set (scale is not linear in role); small and power-of-two counts."""
    if not (isinstance(value.value, float) and math.isfinite(value.value)):
        return {}
    digits = min(len(str(int(value.value))), 13)
    return {
        "magnitude": digits / 13,
        f"kind+digits={value.kind}|{digits}": 1.0,
        "small_int": float(value.value.is_integer() and value.value <= 16),
        "power_of_two": float(value.value.is_integer() and value.value > 0 and int(value.value) & (int(value.value) - 1) == 0),
    }


@featurizer
def money_terms(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """An amount's period (once, per hour, per month, for everything bought) and currency."""
    if not isinstance(value.value, tuple):  # money: (amount, currency, per)
        return {}
    return {f"per={value.value[2]}": 1.0, f"currency={value.value[1]}": 1.0}


@featurizer
def total_for_servers(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """An amount in a sentence that also names a count of servers and a total word ("three boxes cost
    $2.1M in total"): the price of buying those servers, read from the sentence's shape rather than from whichever
    other words the training utterances happened to surround such sums with."""
    per = value.value[2] if isinstance(value.value, tuple) else "once"  # money: (amount, currency, per); "thousands" has none
    if value.kind not in ("money", "thousands") or per not in ("once", "all"):  # a rent or a price per kWh is no purchase
        return {}
    low, high = _sentence_around(text, value)
    servers = any(v.kind == "count_server" and low <= v.start and v.end <= high for v in values)
    total = per == "all" or words_in(text[low:high], "total_word")
    return {"total_for_servers": 1.0} if servers and total else {}


@featurizer
def memory_of_a_card(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """A memory size written onto a card noun ("a 48GB card", "a 24G card"): the size of the card meant, whatever the
    words around it; sizes said of weights, estimates or a checkpoint stand apart from any card noun."""
    if value.kind != "memory" or not CARD_AFTER_MEMORY.match(text, value.end):
        return {}
    return {"memory_of_a_card": 1.0}


@featurizer
def size_beside_sized_card(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """A memory size written shortly after a card named with its own size ("A100 40GB or 80GB", "A100 80GB vs 40GB"): the
    other size of that card, a variant set beside it, whatever joins the two."""
    index = values.index(value)
    before = values[index - 1] if index > 0 else None
    if value.kind != "memory" or before is None or before.kind != "gpu" or value.start - before.end > SIZED_CARD_GAP:
        return {}
    sized = any(character.isdigit() for character in before.surface.split()[-1]) and before.surface.rstrip().endswith(("g", "gb"))
    return {"size_beside_sized_card": 1.0} if sized else {}


@featurizer
def lever_said_done(text: str, value: Value, values: list[Value], intent: str) -> dict[str, float]:
    """What the message says of a lever it names, whatever the words beside it: the trouble goes on after the change
    ("batch smaller, mixed precision on too, still OOM") or its sentence only asks whether it would help ("would mixed
    precision save memory?"). Either reading holds for any lever in any position of a list of changes, which the words
    next to one lever cannot teach the tagger (the lists: pattern_words.yaml lever_outcome, lever_asked)."""
    if value.kind != "lever":
        return {}
    low, high = _sentence_around(text, value)
    sentence = text[low:high] + text[high : high + 1]  # with the mark that ends it: "?" asks
    features = {}
    if any(word in text for word in LEVER_OUTCOME):
        features["lever_outcome"] = 1.0
    if any(word in sentence for word in LEVER_ASKED) or sentence.rstrip().endswith(("?", "\uff1f")):
        features["lever_asked"] = 1.0
    return features


def _sentence_around(text: str, value: Value) -> tuple[int, int]:
    """Where the sentence holding ``value`` starts and ends (a comma does not end it)."""
    starts = [m.end() for m in CLAUSE.finditer(text, 0, value.start)]
    end = CLAUSE.search(text, value.end)
    return (starts[-1] if starts else 0), (end.start() if end else len(text))


def declared_featurizers(declared: list[str]) -> tuple[str, ...]:
    """pipeline.yaml's featurizers of the role tagger, every registered one in it; else the process stops naming them."""
    unknown = [name for name in declared if name not in FEATURIZERS]
    left_out = [name for name in FEATURIZERS if name not in declared]
    if unknown or left_out:
        raise PipelineError(f"pipeline.yaml tag_roles.featurizers: unknown {unknown or 'none'}; registered but not listed {left_out or 'none'}")
    return tuple(declared)


def _sentence_before(text: str, start: int, reach: int = 40) -> str:
    """The words of the sentence before ``start``, at most ``reach`` characters back."""
    return CLAUSE.split(text[max(0, start - reach) : start])[-1]


ROLE_FEATURIZERS = declared_featurizers(PIPELINE.tag_roles.featurizers)
