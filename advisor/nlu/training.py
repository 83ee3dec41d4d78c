"""Train the understanding models from the corpus once, and cache them keyed by a hash of data and code.

The continuation model learns how far to trust an intent reading, so it is trained on readings
from intent models that did not see the utterance (k folds), never on the full model's own
near-certain readings of its training data.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
import random
from pathlib import Path

from advisor import language
from advisor.nlu import corpus as corpus_module
from advisor.nlu.corpus import Corpus
from advisor.nlu.cues import CUES_FILE, DIALOGUE_CUES_FILE
from advisor.nlu.dialogue import train_continuation
from advisor.nlu.entity_words import ENTITIES_FILE
from advisor.nlu.model import UnderstandingModel
from advisor.nlu.number_values import Value
from advisor.nlu.phrases import PHRASES_FILE
from advisor.nlu.pipeline import PIPELINE, PIPELINE_FILE
from advisor.nlu.reading import Reading, read_message, retagged
from advisor.nlu.slot_schema import SLOT_SCHEMA
from advisor.nlu.values import find_values
from advisor.retrieval.embeddings import resolve_model
from advisor.server_secret import SecretUnavailable, derive_key, server_secret, sign, verify
from knowledge.catalog import DATA_DIR, Catalog
from tools import quantities

log = logging.getLogger(__name__)
FOLDS = PIPELINE.classify.held_out_folds
CODE_FILES = ("model.py", "features.py", "values.py", "scan.py", "extractors/names.py", "extractors/counts.py", "extractors/money.py", "extractors/times.py", "extractors/claims.py", "number_values.py", "phrases.py", "cues.py", "facets.py", "money_words.py", "count_words.py", "entity_words.py", "time_words.py", "corpus.py", "slot_schema.py", "dialogue.py", "frame.py", "reading.py", "training.py", "meaning.py", "aside.py", "data/aside_cues.yaml", "data/pattern_words.yaml", "vague_counts.py", "data/vague_counts.yaml")


def train(catalog: Catalog, data: Corpus) -> UnderstandingModel:
    texts = sorted({u.text for u in data.utterances} | {turn.utterance.text for c in data.conversations for turn in c.turns})
    found = {text: find_values(text, catalog) for text in texts}
    model = UnderstandingModel(catalog).fit(data, found)
    probabilities = _held_out_intents(catalog, data, texts, found)

    def read(text: str) -> Reading:
        return read_message(text, model, catalog, probabilities[text], found[text])

    model.continuation = train_continuation(data, read, lambda reading: retagged(reading, model, "follow_up")[1])
    return model


def _held_out_intents(catalog: Catalog, data: Corpus, texts: list[str], found: dict[str, list[Value]]) -> dict[str, dict[str, float]]:
    """Each text's intent probabilities from a classifier trained on the other folds."""
    shuffled = list(texts)
    random.Random(0).shuffle(shuffled)
    fold_of = {text: index % FOLDS for index, text in enumerate(shuffled)}
    probabilities = {}
    for fold in range(FOLDS):
        rest = [u for u in data.utterances if fold_of[u.text] != fold]
        classifier = UnderstandingModel(catalog)
        classifier.fit_intent(rest, [found[u.text] for u in rest])
        held_out = [text for text in texts if fold_of[text] == fold]
        probabilities.update(zip(held_out, classifier.probabilities_of(held_out, [found[text] for text in held_out])))
    return probabilities


def data_fingerprint() -> str:
    digest = hashlib.sha256(resolve_model()[1].encode())  # the sentence vectors' model and version
    catalogs = [DATA_DIR / "gpus.yaml", DATA_DIR / "models.yaml"]  # names the values are found by, masked in training
    readers = [Path(quantities.__file__), Path(language.__file__)]  # how numbers are parsed and which messages are nonsense
    for path in [*corpus_module.training_files(), ENTITIES_FILE, PHRASES_FILE, CUES_FILE, DIALOGUE_CUES_FILE, PIPELINE_FILE, *catalogs, *(Path(__file__).parent / name for name in CODE_FILES), *readers]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    digest.update(SLOT_SCHEMA.training_key())  # the slots each value kind can play (data/schema.yaml kinds)
    return digest.hexdigest()[:16]


_TRAINED: dict[str, bytes] = {}  # fingerprint → pickled model: one training per process, whatever the cache directory
# A cache file is MAGIC, then an HMAC of the pickle under the installation's secret, then the pickle:
# a file someone else wrote into the data directory fails the check and is never unpickled.
MAGIC = b"gpu-advisor understanding cache v2\n"
SIGNATURE_BYTES = 32


def _cache_key(cache_dir: Path) -> bytes | None:
    try:
        return derive_key(server_secret(cache_dir), "understanding cache")
    except SecretUnavailable as exc:  # no secret, no cache: train in memory every start instead
        log.warning("understanding cache disabled: %s", exc)
        return None


def _read_signed(path: Path, key: bytes) -> bytes | None:
    """The pickle in ``path`` if its signature is ours; None (and a warning) for anything else."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        log.warning("understanding cache %s unreadable (%s); retraining", path, exc.strerror or exc)
        return None
    signature, body = raw[len(MAGIC) : len(MAGIC) + SIGNATURE_BYTES], raw[len(MAGIC) + SIGNATURE_BYTES :]
    if not raw.startswith(MAGIC) or not verify(key, body, signature):
        log.warning("understanding cache %s is not signed by this installation; ignoring it and retraining", path)
        return None
    return body


def _unpickle(stored: bytes) -> UnderstandingModel | None:
    try:
        model = pickle.loads(stored)  # only bytes this process pickled or whose signature it checked
    except Exception:  # a cache from another library version: retrain
        log.warning("understanding cache unreadable; retraining")
        return None
    return model if isinstance(model, UnderstandingModel) else None


def load_or_train(catalog: Catalog, cache_dir: Path | None) -> UnderstandingModel:
    """The cached model for the current data, or a freshly trained one (then cached when a directory is given)."""
    fingerprint = data_fingerprint()
    key = _cache_key(cache_dir) if cache_dir else None
    path = cache_dir / f"understanding-{fingerprint}.signed" if key else None
    stored = _TRAINED.get(fingerprint)
    on_disk = _read_signed(path, key) if path is not None and path.exists() else None
    model = _unpickle(stored or on_disk) if (stored or on_disk) is not None else None
    if model is None:
        model = train(catalog, corpus_module.training_corpus())
        model.catalog = None
        stored = pickle.dumps(model)
    stored = stored or on_disk
    _TRAINED[fingerprint] = stored
    model.catalog = catalog
    if path is not None and on_disk != stored:
        try:
            temporary = path.with_suffix(".tmp")
            temporary.write_bytes(MAGIC + sign(key, stored) + stored)
            temporary.replace(path)
        except OSError:
            log.warning("could not cache the understanding model at %s", path)
    return model
