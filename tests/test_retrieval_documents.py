"""The corpus retrieval indexes: guidance docs cut into sections, GPU family docs from the catalog."""

import re

import pytest

from advisor.retrieval.corpus import load_corpus
from advisor.retrieval.documents import DocumentError, load_guidance, parse_doc, source_links
from advisor.retrieval.gpu_family_docs import FAMILIES, FAMILY_IDS, family_of, gpu_family_chunks
from knowledge.catalog import load_catalog
from tests.guidance_ids import GUIDANCE_IDS
from tests.retrieval_support import make_gpu, tiny_catalog, write_doc


def test_doc_is_cut_at_level_two_headings_with_metadata_on_every_chunk(tmp_path):
    path = write_doc(tmp_path, "zh", "oom", {"先看报错": "显存不够时先读报错信息。", "怎么修": "减小批大小。\n\n### 细节\n开重计算。"},
                     sources=["https://pytorch.org/docs/stable/notes/cuda.html", "PyTorch forum thread"])  # fmt: skip
    chunks = parse_doc(path, "zh")
    assert [(c.position, c.section) for c in chunks] == [(0, "先看报错"), (1, "怎么修")]
    assert chunks[1].text == "减小批大小。\n\n### 细节\n开重计算。"  # deeper headings stay inside their section
    assert {c.chunk_id for c in chunks} == {"oom/zh/0", "oom/zh/1"}
    assert all(c.title("zh") == "oom 指南" and c.title("en") == "oom guide" for c in chunks)
    assert chunks[0].sources == ("https://pytorch.org/docs/stable/notes/cuda.html", "PyTorch forum thread")
    assert chunks[0].embedding_text().startswith("oom 指南. 先看报错. ")


def test_content_hash_follows_the_embedded_text_only(tmp_path):
    first = parse_doc(write_doc(tmp_path, "en", "oom", {"A": "alpha text"}), "en")[0]
    resourced = parse_doc(write_doc(tmp_path, "en", "oom", {"A": "alpha text"}, sources=["https://x.org"]), "en")[0]
    edited = parse_doc(write_doc(tmp_path, "en", "oom", {"A": "alpha text, edited"}), "en")[0]
    assert first.content_hash() == resourced.content_hash()
    assert first.content_hash() != edited.content_hash()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no front matter\n## A\ntext", "front-matter block"),
        ("---\nid: [unclosed\n---\n## A\ntext", "not valid YAML"),
        ("---\nid: oom\ntitle_en: OOM\n---\n## A\ntext", "lacks title_zh"),
        ("---\nid: other\ntitle_en: OOM\ntitle_zh: 显存\n---\n## A\ntext", "differs from the file name"),
        ("---\nid: oom\ntitle_en: OOM\ntitle_zh: 显存\n---\njust prose", "no '## ' sections"),
    ],
)
def test_malformed_docs_are_rejected_naming_the_file(tmp_path, text, message):
    path = tmp_path / "en" / "oom.md"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DocumentError, match=re.escape(message)) as error:
        parse_doc(path, "en")
    assert str(path) in str(error.value)


def test_source_links_pull_urls_out_of_free_text_notes():
    note = "NVIDIA spec page https://www.nvidia.com/en-us/data-center/h100/; stas00 notes (https://github.com/stas00/ml-engineering)."
    assert source_links(note) == ["https://www.nvidia.com/en-us/data-center/h100/", "https://github.com/stas00/ml-engineering"]
    assert source_links("vendor datasheet") == ["vendor datasheet"]


def test_shipped_guidance_docs_parse_in_both_languages_with_matching_sections():
    chunks = load_guidance()
    for language in ("en", "zh"):
        assert {c.doc_id for c in chunks if c.language == language} >= set(GUIDANCE_IDS)
    for doc_id in GUIDANCE_IDS:
        en = [c.position for c in chunks if c.doc_id == doc_id and c.language == "en"]
        zh = [c.position for c in chunks if c.doc_id == doc_id and c.language == "zh"]
        # Search shows the reader's translation of a section found in the other language by position.
        assert en == zh, doc_id


def test_every_catalog_gpu_belongs_to_exactly_one_family():
    for gpu in load_catalog().gpus:
        owners = [f.slug for f in FAMILIES if f.includes(gpu)]
        assert len(owners) == 1, (gpu.id, owners)
    assert len(set(FAMILY_IDS)) == len(FAMILY_IDS) and all(i.startswith("gpu-") for i in FAMILY_IDS)
    assert not set(FAMILY_IDS) & set(GUIDANCE_IDS)


@pytest.mark.parametrize(
    ("gpu_id", "family"),
    [("h100-sxm", "gpu-nvidia-hopper"), ("h20", "gpu-nvidia-hopper"), ("gb200", "gpu-nvidia-blackwell"),
     ("rtx-pro-6000-blackwell", "gpu-nvidia-blackwell"), ("a800-80gb-sxm", "gpu-nvidia-ampere"),
     ("l40s", "gpu-nvidia-ada"), ("t4", "gpu-nvidia-volta-turing"), ("rtx-5090", "gpu-geforce"),
     ("rtx-3090", "gpu-geforce"), ("mi300x", "gpu-amd-instinct"), ("gaudi3", "gpu-intel-gaudi"),
     ("ascend-910b", "gpu-huawei-ascend"), ("mlu370-x8", "gpu-cambricon-mlu"), ("tpu-v5e", "gpu-google-tpu"),
     ("trainium2", "gpu-aws-trainium"),
     ("apple-m3-ultra", "gpu-apple-silicon")],
)  # fmt: skip
def test_family_grouping(gpu_id, family):
    assert family_of(load_catalog().gpu(gpu_id)).doc_id == family


def test_family_doc_states_the_catalog_figures_in_both_languages():
    gpu = make_gpu(fp8_tflops=None, nvlink_gbs=None, tdp_w=None, china="china-variant", aliases=["H100", "英伟达H100"])
    chunks = gpu_family_chunks(tiny_catalog(gpu))
    assert {(c.doc_id, c.language, c.position) for c in chunks} == {
        ("gpu-nvidia-hopper", lang, pos) for lang in ("en", "zh") for pos in (0, 1)
    }
    en = next(c for c in chunks if c.language == "en" and c.position == 1)
    zh = next(c for c in chunks if c.language == "zh" and c.position == 1)
    for needle in ("80 GB of HBM3", "3350 GB/s", "989.5 TFLOPS", "no FP8 support", "over PCIe", "China-market variant", "英伟达H100"):
        assert needle in en.text, needle
    for needle in ("显存：80 GB HBM3", "显存带宽 3350 GB/s", "989.5 TFLOPS", "不支持 FP8", "特供版", "厂商未公布单芯片功耗"):
        assert needle in zh.text, needle
    assert en.section == zh.section == "NVIDIA H100 SXM"
    assert en.sources == ("https://www.nvidia.com/en-us/data-center/h100/",)
    overview = next(c for c in chunks if c.language == "en" and c.position == 0)
    assert "NVIDIA H100 SXM (80 GB HBM3, 2022)" in overview.text


def test_full_corpus_has_unique_ids_and_a_family_doc_for_every_vendor(tmp_path):
    chunks = load_corpus()
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    assert {c.doc_id for c in chunks} >= set(GUIDANCE_IDS) | set(FAMILY_IDS)
    write_doc(tmp_path, "en", "gpu-nvidia-hopper", {"A": "a hand-written doc clashing with a generated one"})
    with pytest.raises(DocumentError, match="duplicate chunk ids"):
        load_corpus(tmp_path)
