"""BM25 over jieba-segmented, lower-cased text: exact terms ("Xid 79", "H20", Chinese "throttling") that a
small English embedder blurs or cannot read at all."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import jieba
import yaml

from advisor.retrieval.glossary import ensure_jieba

STOPWORDS_FILE = Path(__file__).with_name("stopwords.yaml")
WORD = re.compile(r"[0-9a-z\u3400-\u9fff\uf900-\ufaff]")
# Function words that occur everywhere and only add noise to scores.
STOPWORDS = frozenset(word for words in yaml.safe_load(STOPWORDS_FILE.read_text(encoding="utf-8")).values() for word in words)


def _stem(token: str) -> str:
    """Fold English plurals ("gpus" → "gpu", "batches" → "batch"); leaves other tokens alone."""
    if not token.isascii() or not token.isalpha() or len(token) <= 3:
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("ches", "shes", "sses", "xes")):
        return token[:-2]
    if len(token) == 4 and token.endswith("pus"):  # gpus, cpus, tpus, npus (but not "corpus")
        return token[:-1]
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """Search-mode jieba tokens (whole words plus their dictionary sub-words), lower-cased."""
    ensure_jieba()
    tokens = []
    for token in jieba.cut_for_search(text.lower()):
        token = token.strip()
        if token and WORD.search(token) and token not in STOPWORDS:
            tokens.append(_stem(token))
    return tokens


class BM25:
    """Okapi BM25 (k1=1.5, b=0.75) with an inverted index, so a query touches only its terms."""

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.size = len(documents)
        self.lengths = [len(doc) for doc in documents]
        self.average_length = sum(self.lengths) / self.size if self.size else 0.0
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for index, doc in enumerate(documents):
            for term, count in Counter(doc).items():
                self.postings[term].append((index, count))
        self.postings = dict(self.postings)

    def idf(self, term: str) -> float:
        df = len(self.postings.get(term, ()))
        # The "+1" form never goes negative, so very common terms still count a little.
        return math.log(1 + (self.size - df + 0.5) / (df + 0.5))

    def scores(self, weighted_terms: Iterable[tuple[str, float]]) -> dict[int, float]:
        """Sum of BM25 term scores per document; each query term may carry a weight."""
        weights: dict[str, float] = {}
        for term, weight in weighted_terms:
            weights[term] = max(weight, weights.get(term, 0.0))
        totals: dict[int, float] = defaultdict(float)
        for term, weight in weights.items():
            postings = self.postings.get(term)
            if not postings:
                continue
            idf = self.idf(term)
            for index, tf in postings:
                norm = self.k1 * (1 - self.b + self.b * self.lengths[index] / self.average_length)
                totals[index] += weight * idf * tf * (self.k1 + 1) / (tf + norm)
        return dict(totals)

    def top(self, weighted_terms: Iterable[tuple[str, float]], n: int) -> list[tuple[int, float]]:
        ranked = sorted(self.scores(weighted_terms).items(), key=lambda item: (-item[1], item[0]))
        return ranked[:n]
