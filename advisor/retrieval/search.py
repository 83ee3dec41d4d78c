"""Hybrid bilingual search: dense vectors + BM25, fused with reciprocal rank fusion, one hit per doc."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from advisor.config import Settings
from advisor.language import detect_language
from advisor.retrieval.concept_cards import CARD_PREFIX
from advisor.retrieval.corpus import load_corpus
from advisor.retrieval.documents import Chunk, Language, chunk_key
from advisor.retrieval.embeddings import Embedder, get_embedder
from advisor.retrieval.glossary import CJK, Glossary, default_glossary
from advisor.retrieval.healing import StoreHealer
from advisor.retrieval.lexical import BM25, tokenize
from advisor.retrieval.store import StoreUnavailable, SyncReport, VectorStore
from knowledge.sentences import sentence_ends

log = logging.getLogger(__name__)

RetrieverName = Literal["dense", "lexical"]
Mode = Literal["hybrid", "dense", "lexical"]
RRF_K = 60  # the usual constant: damps the gap between rank 1 and rank 2 of a single list
CANDIDATES = 40  # chunks each retriever contributes before fusion
EXPANSION_WEIGHT = 0.5  # glossary terms help recall but should not outvote the user's own words
SNIPPET_CHARS = 280


class Hit(BaseModel):
    """One relevant doc, represented by its best-matching section."""

    doc_id: str = Field(description="Knowledge doc id, e.g. 'oom' or 'gpu-nvidia-hopper'.")
    title: str = Field(description="Doc title in the requested language (default: the query's).")
    section: str = Field(description="Heading of the best-matching section.")
    language: Language = Field(description="Language of `section` and `snippet`.")
    snippet: str = Field(description="Start of the best-matching section.")
    sources: list[str] = Field(description="Source URLs (or source notes) behind the section.")
    score: float = Field(description="Reciprocal-rank-fusion score; higher is better, comparable within one search.")
    retrievers: list[RetrieverName] = Field(description="Which retrievers ranked this doc among their candidates.")
    degraded: bool = Field(False, description="True when the vector store was unreachable and only lexical search ran.")


def make_snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    # Prefer ending on a sentence boundary when one falls in the second half of the window ("i.e." is none).
    end = max((end for end in sentence_ends(flat) if end <= limit), default=0)
    if end > limit // 2:
        return flat[:end].rstrip()
    return cut.rstrip() + "…"


class Retriever:
    """Thread-safe after construction: searches only read shared state (model calls are serialised).

    When the vector store fails (server down, files deleted, collection gone) searches answer
    lexically and one background worker re-syncs the store, retrying with back-off
    (``heal_backoff_s`` = first delay, cap); dense retrieval resumes once it succeeds.
    """

    def __init__(
        self,
        chunks: Sequence[Chunk] | None = None,
        *,
        settings: Settings | None = None,
        data_dir: Path | None = None,
        embedder: Embedder | None = None,
        store: VectorStore | None = None,
        glossary: Glossary | None = None,
        sync: bool = True,
        heal_backoff_s: tuple[float, float] = (5.0, 60.0),
    ):
        settings = settings or Settings.from_env()
        self.chunks = list(chunks) if chunks is not None else load_corpus()
        self.glossary = glossary or default_glossary()
        self.embedder = embedder or get_embedder(settings.embedding_model)
        self.store = store or VectorStore(data_dir or settings.data_dir, settings.chroma_url, timeout_s=settings.chroma_timeout_s)
        self._by_id = {chunk.chunk_id: chunk for chunk in self.chunks}
        self._bm25 = BM25([tokenize(chunk.lexical_text()) for chunk in self.chunks])
        self.sync_report: SyncReport | None = None
        self._outage: str | None = None  # why dense retrieval is off; None when healthy
        self._outage_lock = threading.Lock()
        self._verified_at = 0.0
        self._healer = StoreHealer(self._resync, self._healed, *heal_backoff_s)
        if sync:
            try:
                self.sync_report = self.store.sync(self.chunks, self.embedder)
            except StoreUnavailable as exc:
                self._degrade(exc)

    # --- outage and repair ----------------------------------------------------------------
    def _degrade(self, exc: StoreUnavailable) -> None:
        """Note a store failure: the first one of an outage warns and starts the re-sync worker."""
        with self._outage_lock:
            first = self._outage is None
            if first:
                self._outage = str(exc)
        if not first:
            log.debug("Dense retrieval skipped, lexical only: %s", exc)
            return
        log.warning("Vector store unavailable (%s); answering with lexical search only until it is re-synced.", exc)
        self._healer.schedule()

    def _resync(self) -> SyncReport:
        return self.store.sync(self.chunks, self.embedder)

    def _healed(self, report: SyncReport) -> None:
        with self._outage_lock:
            self.sync_report, self._outage = report, None
        log.info(
            "Vector store at %s re-synced (%d chunks embedded, %d unchanged); dense retrieval resumed.",
            self.store.location, report.embedded, report.unchanged,
        )  # fmt: skip

    def index_state(self) -> Literal["ready", "unavailable"]:
        """Return "unavailable" while searches are lexical only (a re-sync pending); costs no Chroma call."""
        if self._outage is None:
            try:
                self.store.check_usable()
            except StoreUnavailable as exc:
                self._degrade(exc)
        return "ready" if self._outage is None else "unavailable"

    def verify_store(self, max_age_s: float = 10.0) -> None:
        """For health checks: ping a remote store (at most every ``max_age_s``) so a stalled server shows up
        even when nobody is searching; a failure starts the outage (lexical answers, re-sync worker)."""
        now = time.monotonic()
        if self._outage is not None or now - self._verified_at < max_age_s:
            return
        self._verified_at = now
        try:
            self.store.ping()
        except StoreUnavailable as exc:
            self._degrade(exc)

    def close(self) -> None:
        """Stop the re-sync worker and release the store."""
        self._healer.close()
        self.store.close()

    # --- the two retrievers ---------------------------------------------------------------
    def _lexical(self, query: str, extra_terms: Sequence[str]) -> list[str]:
        weighted = [(t, 1.0) for t in tokenize(query)]
        weighted += [(t, EXPANSION_WEIGHT) for term in extra_terms for t in tokenize(term)]
        return [self.chunks[i].chunk_id for i, _ in self._bm25.top(weighted, CANDIDATES)]

    def _dense_text(self, query: str, english_terms: Sequence[str]) -> str:
        """What the embedder should read: Chinese queries also carry the glossary's English terms."""
        if not CJK.search(query):
            return query
        if "zh" not in self.embedder.languages:
            # To an English-only model Chinese characters are noise; keep the Latin words ("4090", "LoRA").
            query = " ".join(CJK.sub(" ", query).split())
        return " ".join([query, *english_terms]).strip()

    def _dense(self, text: str) -> list[str]:
        self.store.check_usable()  # during an outage, do not spend a model call on a vector nobody can search
        vector = self.embedder.encode([text])[0]
        return [chunk_id for chunk_id, _ in self.store.query(vector, CANDIDATES) if chunk_id in self._by_id]

    # --- search -----------------------------------------------------------------------------
    def search(self, query: str, k: int = 5, language: Language | None = None, mode: Mode = "hybrid") -> list[Hit]:
        """Top ``k`` docs for ``query``; titles and snippets in ``language`` (default: the query's)."""
        query = (query or "").strip()
        if not query or k <= 0:
            return []
        language = language or detect_language(query)
        expansion = self.glossary.expand(query)
        rankings: dict[RetrieverName, list[str]] = {}
        degraded = False
        # Every synonym helps BM25, but for the embedder they only lengthen (slow) and blur the query.
        dense_text = self._dense_text(query, expansion.english_main)
        if mode in ("hybrid", "dense") and dense_text:
            try:
                rankings["dense"] = self._dense(dense_text)
            except StoreUnavailable as exc:
                degraded = True
                self._degrade(exc)
        if mode in ("hybrid", "lexical") or degraded:
            rankings["lexical"] = self._lexical(query, expansion.english + expansion.chinese)
        return self._fuse(rankings, k, language, degraded)

    def _fuse(self, rankings: dict[RetrieverName, list[str]], k: int, language: Language, degraded: bool) -> list[Hit]:
        doc_scores: dict[str, float] = {}
        chunk_scores: dict[str, float] = {}
        matched: dict[str, list[RetrieverName]] = {}
        for name, chunk_ids in rankings.items():
            doc_rank: dict[str, int] = {}
            for rank, chunk_id in enumerate(chunk_ids, start=1):
                chunk_scores[chunk_id] = chunk_scores.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank)
                doc_id = self._by_id[chunk_id].doc_id
                doc_rank.setdefault(doc_id, len(doc_rank) + 1)
            # Fuse at doc level: the two retrievers often pick different sections (or languages) of one doc.
            for doc_id, rank in doc_rank.items():
                doc_scores[doc_id] = doc_scores.get(doc_id, 0.0) + 1.0 / (RRF_K + rank)
                matched.setdefault(doc_id, []).append(name)
        ranked = _keep_a_doc_slot(sorted(doc_scores.items(), key=lambda item: (-item[1], item[0])), k)
        return [self._hit(doc_id, score, chunk_scores, matched[doc_id], language, degraded) for doc_id, score in ranked]

    def _hit(self, doc_id, score, chunk_scores, retrievers, language, degraded) -> Hit:
        candidates = [self._by_id[c] for c in chunk_scores if self._by_id[c].doc_id == doc_id]
        # Best section in the reader's language when one was retrieved; otherwise the same section of
        # the reader's translation (docs are translated section by section), else the best overall.
        best = max(candidates, key=lambda c: (c.language == language, chunk_scores[c.chunk_id]))
        if best.language != language:
            best = self._by_id.get(chunk_key(best.doc_id, language, best.position), best)
        return Hit(
            doc_id=doc_id,
            title=best.title(language),
            section=best.section,
            language=best.language,
            snippet=make_snippet(best.text),
            sources=list(best.sources),
            score=round(score, 6),
            retrievers=retrievers,
            degraded=degraded,
        )


def _keep_a_doc_slot(ranked: list[tuple[str, float]], k: int) -> list[tuple[str, float]]:
    """The top ``k`` docs, of which at most ``k - 1`` are concept cards when ``k > 1``.

    A card answers; the guidance or catalog doc behind it holds the detail and the figures' sources. On
    topics with many cards (200 of them) the cards alone could fill the top 3, so one slot goes to the
    best-ranked other doc, when there is one. Order stays by score."""
    card_limit = k - 1 if k > 1 else k
    chosen: list[tuple[str, float]] = []
    passed_over: list[tuple[str, float]] = []
    for doc_id, score in ranked:
        if len(chosen) == k:
            break
        is_card = doc_id.startswith(CARD_PREFIX)
        if is_card and sum(d.startswith(CARD_PREFIX) for d, _ in chosen) >= card_limit:
            passed_over.append((doc_id, score))
            continue
        chosen.append((doc_id, score))
    chosen += passed_over[: k - len(chosen)]  # too few other docs: the cards fill the rest
    return sorted(chosen, key=lambda item: (-item[1], item[0]))
