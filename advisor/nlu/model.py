"""The two trained models: an intent classifier and a role tagger, fitted on the labelled corpus.

Intent: an exact-match table of the training utterances first (a known phrasing is never
misread), then a logistic regression over character n-grams and jieba words of the message
with names masked, plus its sentence vector when it is English (meaning.py); its probability
is the confidence. Roles: a logistic regression over each
built-in value's kind, unit and surrounding words, restricted to the roles its kind can play.
Training takes seconds (training.py trains and caches them, with the dialogue model beside them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np
from scipy.sparse import csr_matrix, hstack
from sklearn.feature_extraction import DictVectorizer
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from advisor.name_matcher import normalize_text
from advisor.nlu.aside import set_aside
from advisor.nlu.corpus import TASKS, Corpus, Utterance
from advisor.nlu.features import focus, masked, role_features, words
from advisor.nlu.meaning import SENTENCE_VECTORS
from advisor.nlu.number_values import REQUEST_VOLUME, Value
from advisor.nlu.pattern_words import alternatives, pattern
from advisor.nlu.pipeline import PIPELINE
from advisor.nlu.slot_schema import SLOT_SCHEMA
from advisor.nlu.values import find_values
from knowledge.catalog import Catalog

NONE = "none"
# value kind → the slots it can play: each slot's ``kinds`` in data/schema.yaml
ROLES_BY_KIND: dict[str, set[str]] = SLOT_SCHEMA.roles_by_kind
MONEY_ROLES = SLOT_SCHEMA.of_kind("money")
STATING_INTENTS = {*TASKS, "follow_up"}
INTEGER_ROLES = SLOT_SCHEMA.integer  # slots that count: a fraction never fills them
# an amount or a count of cards, servers or users (data/schema.yaml value_kinds ``counted``)
COUNTED_KINDS = SLOT_SCHEMA.counted_kinds
KV_WORDS = pattern("kv_words")
CLAUSE_BREAK = re.compile(r"[,;，；。!?！？\n]")
KV_SETTING = re.compile(rf"(?:{alternatives('kv_setting_names')})\s*(?:{alternatives('kv_setting_verbs')})?\s*$")
OWN_ESTIMATE = pattern("own_estimate")
OBSERVED_AFTER = pattern("observed_after", r"^\s*{}")
OBSERVED_BEFORE = pattern("observed_before", r"{}\s*$")
CONDITION_GRANTED = pattern("condition_granted")
# Pasted logs and spec sheets are full of counts nobody asked about ("GPU 7", "8 x NVIDIA H100"), so there
# the tagger decides; a count typed in a sentence states the setup, in a problem report ("one node is fine, two nodes hang")
# as in a one-line spec question ("8 cards in one server").
PASTED = re.compile(r"\n.*\n|\|")  # several lines, or an nvidia-smi table row
# A figure may be noise and a change named ("smaller batch") is a question until the words around it say it was already
# made: the tagger weighs those kinds even where one slot alone takes them (data/schema.yaml value_kinds ``in_context``).
CONTEXT_ROLED_KINDS = SLOT_SCHEMA.context_roled_kinds


@dataclass
class TaggedValue:
    value: Value
    role: str
    confidence: float


class UnderstandingModel:
    """Fitted intent classifier + role tagger; ``fit`` once, then ``intent`` and ``roles`` per message."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog

    # ---------------------------------------------------------------- training
    def fit(self, data: Corpus, found: dict[str, list[Value]] | None = None) -> UnderstandingModel:
        """``found``: the values of each text when already scanned (training reads every text several times)."""
        found = found if found is not None else {}

        def scan(text: str) -> list[Value]:
            return found[text] if text in found else find_values(text, self.catalog)

        values = [scan(u.text) for u in data.utterances]
        self.fit_intent(data.utterances, values)
        # A conversation's follow-up tags its values as the task it continues does ("num_workers=2" after a
        # pasted log is no GPU count): the reader re-tags a follow-up with that task.
        continued = [replace(t.utterance, intent=t.expect_task) for c in data.conversations for t in c.turns if t.expect_task]
        self.fit_roles(data.utterances + continued, values + [scan(u.text) for u in continued])
        return self

    def fit_intent(self, utterances: list[Utterance], values: list[list[Value]]) -> None:
        self.exact = {_key(u.text): u.intent for u in utterances}
        texts = [masked(focus(u.text), v) for u, v in zip(utterances, values)]
        settings = PIPELINE.classify
        self.chars = TfidfVectorizer(analyzer="char_wb", ngram_range=settings.char_ngrams, sublinear_tf=True, min_df=1)
        self.words = TfidfVectorizer(analyzer=words, ngram_range=settings.word_ngrams, sublinear_tf=True)
        matrix = hstack([self.chars.fit_transform(texts), self.words.fit_transform(texts), _sentence_vectors(texts)]).tocsr()
        self.intent_model = LogisticRegression(C=settings.C, solver=settings.solver, tol=settings.tol, max_iter=settings.max_iter, random_state=0)
        self.intent_model.fit(matrix, [u.intent for u in utterances])
        self.intents = list(self.intent_model.classes_)

    def fit_roles(self, utterances: list[Utterance], values: list[list[Value]]) -> None:
        rows, labels = [], []
        for utterance, found in zip(utterances, values):
            text = normalize_text(utterance.text)
            for value in found:
                rows.append(role_features(text, value, found, utterance.intent))
                labels.append(_gold_role(value, utterance))
        self.vectorizer = DictVectorizer()
        tagger = PIPELINE.tag_roles
        self.role_model = LogisticRegression(C=tagger.C, tol=tagger.tol, max_iter=tagger.max_iter)
        self.role_model.fit(self.vectorizer.fit_transform(rows), labels)
        self.roles = list(self.role_model.classes_)

    # ---------------------------------------------------------------- inference
    def intent(self, text: str, values: list[Value]) -> tuple[str, float, dict[str, float]]:
        """(intent, confidence, probability per intent); an exact training phrasing is certain."""
        known = self.exact.get(_key(text))
        probabilities = dict(zip(self.intents, self.intent_model.predict_proba(self._matrix([text], [values]))[0]))
        if known is not None:
            return known, 1.0, probabilities
        best = max(probabilities, key=probabilities.__getitem__)
        return best, float(probabilities[best]), probabilities

    def probabilities_of(self, texts: list[str], values: list[list[Value]]) -> list[dict[str, float]]:
        """The classifier's probabilities for many messages at once, without the exact-phrasing table."""
        return [dict(zip(self.intents, row)) for row in self.intent_model.predict_proba(self._matrix(texts, values))]

    def roles_of(self, text: str, values: list[Value], intent: str) -> list[TaggedValue]:
        if not values:
            return []
        normalized = normalize_text(text if isinstance(text, str) else "")
        probabilities = [self._role_probabilities(role_features(normalized, value, values, intent)) for value in values]
        tagged, pasted = [], bool(PASTED.search(normalized))
        aside = set_aside(normalized, values, intent)
        for index, (value, row) in enumerate(zip(values, probabilities)):
            if index in aside:  # "we used to run Llama 70B on 8 A100s, now …": the earlier setup, beside the question
                tagged.append(TaggedValue(value, NONE, 1.0))
                continue
            roles = ROLES_BY_KIND.get(value.kind, set())
            if len(roles) == 1 and value.kind not in CONTEXT_ROLED_KINDS:  # a name, keyword, "70B" or "10 users" plays its one role
                tagged.append(TaggedValue(value, next(iter(roles)), 1.0))
                continue
            # an amount or a count of cards, servers or users in a question is never noise
            sure = value.kind in ("money", "thousands") or (value.kind in COUNTED_KINDS and not (intent in ("troubleshoot", "specs") and pasted))
            sure |= value.kind == "precision" and intent != "specs"  # "AWQ quantised" in a question is its precision; "fp8 TFLOPS" is a spec
            sure |= value.kind == "memory" and any(v.kind == "other_gpu" for v in values)  # "that 3080 of mine has 10G": that card's memory
            # "and at 64 gpus across 8 nodes" after "Megatron or DeepSpeed?": the setup the concept is asked for
            counted_in_concept = intent == "concept" and value.kind in COUNTED_KINDS - {"money"}
            allowed = roles if sure and (intent in STATING_INTENTS or counted_in_concept) else roles | {NONE}
            if value.kind == "precision" and not KV_WORDS.search(_clause_around(normalized, value)):  # a cache precision is said of the cache
                allowed = allowed - {"kv_precision"}
            elif value.kind == "precision" and KV_SETTING.search(normalized, max(0, value.start - 24), value.start):
                allowed = {"kv_precision"}  # "--kv-cache-dtype fp8", "kv cache in fp8": said of the cache itself
            if value.kind == "memory" and _worked_from_claim(value, values):  # "params times 16 bytes, so 7B needs 112G": the rule's result, not a card
                allowed = {NONE}
            if value.kind == "memory" and OWN_ESTIMATE.search(_clause_around(normalized, value)):  # "I estimated 30GB per GPU": a figure to check, not a card
                allowed = {NONE}
            if value.kind == "memory" and _seen_in_use(normalized, value):  # "nvidia-smi shows 17 GB used": memory in use, not a card's
                allowed = {NONE}
            # "a single machine is fine" grants a condition; in a problem report ("one node is fine, two hang") the count is the setup
            if value.kind == "count_server" and intent != "troubleshoot" and CONDITION_GRANTED.search(_clause_around(normalized, value)):
                allowed = {NONE}
            if value.kind == "requests" and value.value >= REQUEST_VOLUME:  # "300,000 requests": traffic over time, not a load at once
                allowed = allowed - {"concurrency", "batch"}
            if value.kind == "number" and not float(value.value).is_integer():  # "and at 0.09" counts nothing
                allowed = allowed - INTEGER_ROLES
            scores = {role: p for role, p in zip(self.roles, row) if role in allowed}
            role = max(scores, key=scores.__getitem__) if scores else NONE
            tagged.append(TaggedValue(value, role, float(scores.get(role, 0.0))))
        return tagged

    def _role_probabilities(self, row: dict[str, float]) -> np.ndarray:
        """The tagger's softmax for one value, summed over its few features: the same numbers as
        ``predict_proba`` without its per-call validation, which costs more than the sum."""
        scores = self.role_model.intercept_.copy()
        for name, weight in row.items():
            column = self.vectorizer.vocabulary_.get(name)
            if column is not None:
                scores += self.role_model.coef_[:, column] * weight
        scores = np.exp(scores - scores.max())
        return scores / scores.sum()

    def _matrix(self, texts: list[str], values: list[list[Value]]):
        return self._features([masked(focus(text), found) for text, found in zip(texts, values)])

    def _features(self, samples: list[str]):
        """Character and word n-grams, each block of unit length, and the sentence vector (unit or zero)."""
        return hstack([self.chars.transform(samples), self.words.transform(samples), _sentence_vectors(samples)]).tocsr()


def _sentence_vectors(samples: list[str]) -> csr_matrix:
    return csr_matrix(SENTENCE_VECTORS.vectors(samples))


def _key(text: str) -> str:
    return " ".join(normalize_text(text if isinstance(text, str) else "").split())


def _gold_role(value: Value, utterance: Utterance) -> str:
    """The annotated slot overlapping ``value`` when its kind can play it, else 'none'."""
    for span in utterance.spans:
        if span.start < value.end and value.start < span.end and span.slot in ROLES_BY_KIND.get(value.kind, ()):
            return span.slot
    return NONE


def _clause_around(text: str, value: Value) -> str:
    """The words between the punctuation on either side of ``value``: "bf16, how much will the KV cache take" (a full-width comma) says bf16 of the
    model, in a clause of its own, and asks about the cache in the next."""
    starts = [m.end() for m in CLAUSE_BREAK.finditer(text, 0, value.start)]
    end = CLAUSE_BREAK.search(text, value.end)
    return text[starts[-1] if starts else 0 : end.start() if end else len(text)]


def _seen_in_use(text: str, memory: Value) -> bool:
    """The memory figure is what a running job holds ("17 GB used", or the Chinese word for occupied before it), read from the words touching it."""
    return bool(OBSERVED_AFTER.search(text[memory.end : memory.end + 24]) or OBSERVED_BEFORE.search(text[max(0, memory.start - 12) : memory.start]))


def _worked_from_claim(memory: Value, values: list[Value]) -> bool:
    """The memory is the quoted rule worked out for the size the user gave (within 10 %)."""
    claimed = [v.value for v in values if v.kind == "claim" and isinstance(v.value, float)]
    sizes = [v.value / 1e9 for v in values if v.kind == "params"]
    return any(abs(b * size - memory.value) <= 0.1 * memory.value for b in claimed for size in sizes)
