"""Sentence vectors of English messages, a feature of the intent classifier beside its n-grams.

The packaged MiniLM places "is InfiniBand needed for two nodes" near "do I need NVLink" although
they share few words, which the character and word n-grams cannot see. It reads English only, so
a message with Chinese in it gets the zero vector and is judged by its n-grams alone (with vectors
for every message, cross-validation lost 0.6 points in Chinese and gained less in English).
The vectors always come from the packaged model, whatever ADVISOR_EMBEDDING_MODEL says: the
classifier was trained on that model's space.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict

import numpy as np

from advisor.retrieval.embeddings import Embedder, get_embedder

CHINESE = re.compile(r"[\u3400-\u9fff]")
REMEMBERED = 8192  # recent messages: a conversation's history is read again at every turn


class SentenceVectors:
    """``vectors(texts)``: one unit row per English text, zeros otherwise; recent texts are remembered."""

    def __init__(self, embedder: Embedder | None = None):
        self._embedder = embedder
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()  # the server reads messages on many threads

    def vectors(self, texts: list[str]) -> np.ndarray:
        embedder = self._embedder = self._embedder or get_embedder()
        rows = np.zeros((len(texts), embedder.dimension), dtype=np.float32)
        with self._lock:
            new = sorted({text for text in texts if text not in self._recent and text.strip() and not CHINESE.search(text)})
        readable = [text.encode("utf-8", "replace").decode("utf-8") for text in new]  # a lone surrogate stops the tokenizer
        found = dict(zip(new, embedder.encode(readable, batch_size=64)))
        with self._lock:
            for row, text in enumerate(texts):
                vector = found.get(text)
                if vector is None:
                    vector = self._recent.get(text)
                if vector is not None:
                    rows[row] = vector
                    self._recent[text] = vector
                    self._recent.move_to_end(text)
            while len(self._recent) > REMEMBERED:
                self._recent.popitem(last=False)
        return rows

    def forget(self) -> None:
        """Drop the remembered vectors (a benchmark measures a message nobody sent before)."""
        with self._lock:
            self._recent.clear()


SENTENCE_VECTORS = SentenceVectors()
