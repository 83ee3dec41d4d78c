"""The Chroma vector store: incremental builds, manifest checks and self-repair (real Chroma, real model)."""

import logging
import time

import pytest

from advisor.retrieval.chroma_server import free_port
from advisor.retrieval.documents import load_guidance
from advisor.retrieval.store import COLLECTION_NAME, INDEX_FORMAT_VERSION, EmbeddingFailed, StoreUnavailable, VectorStore
from tests.retrieval_support import CountingEmbedder, embedder, no_chroma_default_embedding, write_doc  # noqa: F401

pytestmark = pytest.mark.slow

SECTIONS = {
    "oom": {"Read the error": "CUDA out of memory means the allocator could not find a free block on the GPU.",
            "Fixes": "Lower the micro-batch, enable activation checkpointing or shard optimizer states."},
    "thermal": {"Throttling": "A GPU that runs too hot lowers its clocks, which is called thermal throttling.",
                "Airflow": "Blocked airflow in the chassis and hot aisles raise GPU temperature."},
}  # fmt: skip


@pytest.fixture
def docs(tmp_path):
    root = tmp_path / "docs"
    for doc_id, sections in SECTIONS.items():
        write_doc(root, "en", doc_id, sections)
    write_doc(root, "zh", "oom", {"读报错": "显存不够时先读报错。", "修复": "减小批大小。"})
    return root


def test_incremental_sync_embeds_only_new_or_changed_chunks_and_deletes_removed_ones(tmp_path, docs, embedder):
    spy = CountingEmbedder(embedder)
    store = VectorStore(tmp_path / "data")
    first = store.sync(load_guidance(docs), spy)
    # The packaged model reads English only, so Chinese chunks are searched lexically, not embedded.
    assert (first.total, first.embedded, first.unchanged, first.deleted) == (4, 4, 0, 0)
    assert len(spy.encoded) == 4 and not any("显存" in text for text in spy.encoded)

    again = store.sync(load_guidance(docs), spy)
    assert (again.embedded, again.unchanged) == (0, 4) and len(spy.encoded) == 4

    write_doc(docs, "en", "oom", {**SECTIONS["oom"], "Fixes": "Use QLoRA or a GPU with more memory."})
    (docs / "en" / "thermal.md").unlink()
    write_doc(docs, "en", "rent-vs-buy", {"Payback": "Buying pays off when utilisation stays high for years."})
    spy.encoded.clear()
    changed = store.sync(load_guidance(docs), spy)
    assert (changed.total, changed.embedded, changed.unchanged, changed.deleted) == (3, 2, 1, 2)
    assert sorted(spy.encoded) == sorted(
        c.embedding_text() for c in load_guidance(docs) if c.chunk_id in {"oom/en/1", "rent-vs-buy/en/0"}
    )
    stored = store.client().get_collection(COLLECTION_NAME, embedding_function=None).get()["ids"]
    assert sorted(stored) == ["oom/en/0", "oom/en/1", "rent-vs-buy/en/0"]
    store.close()

    reopened = VectorStore(tmp_path / "data")
    assert reopened.sync(load_guidance(docs), spy).embedded == 0  # the index persisted on disk
    reopened.close()


def test_text_that_moves_to_a_new_position_keeps_its_vector(tmp_path, docs, embedder):
    spy = CountingEmbedder(embedder)
    store = VectorStore(tmp_path / "data")
    store.sync(load_guidance(docs), spy)
    write_doc(docs, "en", "oom", {"Symptoms": "The job dies at the first step.", **SECTIONS["oom"]})
    spy.encoded.clear()
    report = store.sync(load_guidance(docs), spy)
    assert (report.embedded, report.reused) == (1, 2)
    assert spy.encoded == [next(c for c in load_guidance(docs) if c.chunk_id == "oom/en/0").embedding_text()]
    store.close()


def test_query_ranks_the_matching_section_first(tmp_path, docs, embedder):
    store = VectorStore(tmp_path / "data")
    store.sync(load_guidance(docs), embedder)
    hits = store.query(embedder.encode(["my GPU gets too hot and slows its clock"])[0], 4)
    assert hits[0][0] == "thermal/en/0"
    assert [score for _, score in hits] == sorted((score for _, score in hits), reverse=True)
    store.close()


def test_manifest_records_format_version_and_model(tmp_path, docs, embedder):
    store = VectorStore(tmp_path / "data")
    assert store.manifest() is None
    assert not (tmp_path / "data").exists()  # looking does not create an empty store
    store.sync(load_guidance(docs), embedder)
    assert store.manifest() == {"format_version": INDEX_FORMAT_VERSION, "embedding_model": embedder.model_id, "dimension": 384}
    store.close()


def test_drop_forces_the_next_sync_to_embed_everything(tmp_path, docs, embedder):
    store = VectorStore(tmp_path / "data")
    store.sync(load_guidance(docs), embedder)
    store.drop()
    assert store.manifest() is None
    assert store.sync(load_guidance(docs), embedder).embedded == 4
    store.close()


def test_corrupted_sqlite_file_is_detected_wiped_and_rebuilt(tmp_path, docs, embedder, caplog):
    store = VectorStore(tmp_path / "data")
    store.sync(load_guidance(docs), embedder)
    store.close()
    database = tmp_path / "data" / "chroma" / "chroma.sqlite3"
    with database.open("r+b") as handle:
        handle.write(b"this is not a database" * 200)

    damaged = VectorStore(tmp_path / "data")
    with pytest.raises(StoreUnavailable):
        damaged.manifest()  # readers report the damage but never delete anything
    with caplog.at_level(logging.WARNING, logger="advisor.retrieval.store"):
        report = damaged.sync(load_guidance(docs), embedder)
    assert report.rebuilt_reason and "cannot open" in report.rebuilt_reason
    assert report.embedded == 4
    assert any("wiping it and rebuilding" in r.getMessage() for r in caplog.records)
    assert damaged.query(embedder.encode(["thermal throttling"])[0], 1)[0][0].startswith("thermal/")
    damaged.close()


def test_wrong_manifest_version_or_model_triggers_a_full_rebuild(tmp_path, docs, embedder, caplog):
    store = VectorStore(tmp_path / "data")
    store.sync(load_guidance(docs), embedder)
    collection = store.client().get_collection(COLLECTION_NAME, embedding_function=None)
    collection.modify(metadata={**collection.metadata, "format_version": INDEX_FORMAT_VERSION + 1})
    spy = CountingEmbedder(embedder)
    with caplog.at_level(logging.WARNING, logger="advisor.retrieval.store"):
        report = store.sync(load_guidance(docs), spy)
    assert "format_version" in report.rebuilt_reason and report.embedded == 4 and len(spy.encoded) == 4
    assert any("rebuilding the index" in r.getMessage() for r in caplog.records)

    other_model = CountingEmbedder(embedder, model_id="local:/models/another-model")
    report = store.sync(load_guidance(docs), other_model)
    assert "another-model" in report.rebuilt_reason and report.embedded == 4
    assert store.manifest()["embedding_model"] == "local:/models/another-model"
    store.close()


def test_a_failing_model_is_reported_and_never_wipes_the_store(tmp_path, docs, embedder):
    class OutOfMemory(CountingEmbedder):
        def encode(self, texts, batch_size=32):
            raise MemoryError("cannot allocate")

    store = VectorStore(tmp_path / "data")
    store.sync(load_guidance(docs), embedder)
    write_doc(docs, "en", "oom", {"New": "A rewritten section about CUDA out of memory errors."})
    with pytest.raises(EmbeddingFailed, match="MemoryError"):
        store.sync(load_guidance(docs), OutOfMemory(embedder))
    report = store.sync(load_guidance(docs), embedder)
    assert (report.embedded, report.unchanged, report.deleted, report.rebuilt_reason) == (1, 2, 1, None)
    store.close()


def test_unreachable_chroma_server_raises_store_unavailable_quickly(tmp_path, docs, embedder):
    store = VectorStore(tmp_path / "data", f"http://127.0.0.1:{free_port()}", retry_after_s=30)
    with pytest.raises(StoreUnavailable, match="cannot open Chroma"):
        store.sync(load_guidance(docs), embedder)
    vector = embedder.encode(["x"])[0]
    start = time.perf_counter()
    with pytest.raises(StoreUnavailable, match="moments ago"):
        store.query(vector, 3)  # no reconnect attempt within the back-off window
    assert time.perf_counter() - start < 0.5
    assert not (tmp_path / "data").exists()  # a remote store never touches the local data dir
