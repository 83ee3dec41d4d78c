"""Shared helpers and fixtures for the retrieval tests (imported by tests/test_retrieval_*.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.retrieval.chroma_server import ChromaProcess
from knowledge.catalog import Catalog
from knowledge.gpus import GPU

REPO_ROOT = Path(__file__).resolve().parents[1]


CARD_SOURCE = "concept-"  # the doc-id prefix of an answer card's cited source ("concept-<card id>:<section>")


def served_cards(response) -> list[str]:
    """The ids of the answer cards a response cites, in the order cited, each once."""
    found = [source.doc_id.removeprefix(CARD_SOURCE).split(":", 1)[0] for source in response.sources if source.doc_id.startswith(CARD_SOURCE)]
    return list(dict.fromkeys(found))


def write_doc(docs_dir: Path, language: str, doc_id: str, sections: dict[str, str], **meta) -> Path:
    """A guidance doc in the shipped format: YAML front matter, then `## ` sections."""
    front = {"id": doc_id, "title_en": f"{doc_id} guide", "title_zh": f"{doc_id} 指南", "tags": ["test"],
             "sources": ["https://example.org/" + doc_id], **meta}  # fmt: skip
    lines = ["---"] + [f"{key}: {value!r}" if isinstance(value, str) else f"{key}: {value}" for key, value in front.items()]
    lines += ["---", ""] + [f"## {title}\n\n{body}\n" for title, body in sections.items()]
    path = docs_dir / language / f"{doc_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def make_gpu(**overrides) -> GPU:
    fields = dict(
        id="test-h100", name="NVIDIA H100 SXM", vendor="NVIDIA", architecture="Hopper (GH100)", segment="datacenter",
        memory_gb=80, memory_type="HBM3", bandwidth_gbs=3350, bf16_tflops=989.5, fp8_tflops=1979, fp32_tflops=67,
        tdp_w=700, interconnect="NVLink 4", nvlink_gbs=900, pcie_gen=5, form_factor="SXM5", launch_year=2022,
        china="export-controlled", aliases=["H100"], source="https://www.nvidia.com/en-us/data-center/h100/ spec page (2022)",
    )
    fields.update(overrides)
    return GPU(**fields)


def tiny_catalog(*gpus: GPU) -> Catalog:
    return Catalog(list(gpus) or [make_gpu()], [])


class CountingEmbedder:
    """The real embedder, recording every text it is asked to embed."""

    def __init__(self, inner, model_id: str | None = None):
        self.inner = inner
        self.model_id = model_id or inner.model_id
        self.dimension = inner.dimension
        self.languages = inner.languages
        self.encoded: list[str] = []

    def encode(self, texts, batch_size: int = 32):
        self.encoded.extend(texts)
        return self.inner.encode(texts, batch_size)


THERMAL_QUESTION = "my GPU runs too hot and throttles"


@pytest.fixture
def chunks(tmp_path):
    """Two tiny bilingual docs: enough for dense and lexical search, quick to (re-)embed."""
    from advisor.retrieval.documents import load_guidance

    docs = tmp_path / "docs"
    write_doc(docs, "en", "thermal", {"Throttling": "A GPU that runs too hot lowers its clocks: thermal throttling.",
                                      "Airflow": "Blocked airflow in the chassis raises GPU temperature."})  # fmt: skip
    write_doc(docs, "zh", "thermal", {"降频": "显卡过热时会自动降频。", "风道": "机箱风道堵塞会让温度升高。"})
    write_doc(docs, "en", "rent-vs-buy", {"Payback": "Buying a server pays off when utilisation stays high."})
    write_doc(docs, "zh", "rent-vs-buy", {"回本": "利用率一直很高时，买服务器才能回本。"})
    return load_guidance(docs)


@pytest.fixture
def chroma_server(tmp_path):
    """The product's own `chroma run` child (what `serve --workers N` starts); stop() and start() keep port and path."""
    server = ChromaProcess(tmp_path / "chroma-server", tmp_path / "chroma.log")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def embedder():
    """The packaged MiniLM, loaded once for the whole test session."""
    from advisor.retrieval.embeddings import get_embedder

    return get_embedder()


@pytest.fixture(autouse=True)
def no_chroma_default_embedding(monkeypatch):
    """Fail loudly if anything falls back to Chroma's default embedding function (it downloads)."""
    from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

    def refuse(*args, **kwargs):
        raise AssertionError("Chroma's default embedding function was used; it would download a model")

    monkeypatch.setattr(ONNXMiniLM_L6_V2, "_download_model_if_not_exists", refuse)
    monkeypatch.setattr(ONNXMiniLM_L6_V2, "__call__", refuse)


@pytest.fixture(scope="session")
def built_index(tmp_path_factory, embedder):
    """The real corpus indexed once into a temp data dir; yields (data_dir, report, progress calls)."""
    from advisor.retrieval.index import build_index

    data_dir = tmp_path_factory.mktemp("advisor-data")
    calls: list[tuple[int, int]] = []
    report = build_index(data_dir, progress=lambda done, total: calls.append((done, total)))
    return data_dir, report, calls


@pytest.fixture(scope="session")
def retriever(built_index):
    from advisor.retrieval.search import Retriever

    data_dir, _, _ = built_index
    instance = Retriever(data_dir=data_dir)
    yield instance
    instance.store.close()
