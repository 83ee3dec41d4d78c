"""Glossary expansion, jieba segmentation with the glossary's words, and the BM25 scorer."""

import math

import jieba
import pytest

from advisor.retrieval.glossary import Glossary, Term, default_glossary, ensure_jieba, load_glossary
from advisor.retrieval.lexical import BM25, tokenize


def test_glossary_covers_the_core_vocabulary_with_at_least_80_concepts():
    glossary = default_glossary()
    assert len(glossary.terms) >= 80
    pairs = {(zh, en.lower()) for t in glossary.terms for zh in t.zh for en in t.en}
    for pair in [("显存", "vram"), ("散热", "cooling"), ("混合精度", "mixed precision"), ("降频", "throttling"),
                 ("回本", "payback"), ("租", "rent"), ("利用率", "utilization"), ("梯度累积", "gradient accumulation"),
                 ("重计算", "activation checkpointing"), ("张量并行", "tensor parallelism"), ("量化", "quantization"),
                 ("国产卡", "domestic chips"), ("昇腾", "ascend"), ("卡", "gpu"), ("多机多卡", "multi-node")]:  # fmt: skip
        assert pair in pairs, pair


def test_chinese_query_gains_english_terms_and_english_query_gains_chinese_terms():
    glossary = default_glossary()
    zh = glossary.expand("卡太热了老是降频")
    assert {"throttling", "overheating", "GPU", "clock throttling"} <= set(zh.english) and not zh.chinese
    # The embedder gets the two leading terms per concept, not every synonym.
    assert {"throttling", "throttle", "GPU", "graphics card"} <= set(zh.english_main) <= set(zh.english)
    assert "clock throttling" not in zh.english_main
    en = glossary.expand("Does Gradient Checkpointing slow down training?")
    assert {"重计算", "训练"} <= set(en.chinese) and not en.english


def test_english_terms_match_whole_words_only():
    glossary = Glossary([Term(zh=["租"], en=["rent"]), Term(zh=["多机"], en=["multi-node"])])
    assert glossary.expand("current parents").chinese == []
    assert glossary.expand("rent a multi-node cluster").chinese == ["租", "多机"]
    assert glossary.expand("multi-nodes").chinese == []


def test_glossary_file_errors_are_reported(tmp_path):
    bad = tmp_path / "glossary.yaml"
    bad.write_text("- just a list\n", encoding="utf-8")
    with pytest.raises(ValueError, match="'terms' list"):
        load_glossary(bad)
    bad.write_text("terms:\n  - {zh: [显存], en: []}\n", encoding="utf-8")
    with pytest.raises(ValueError):
        load_glossary(bad)


@pytest.mark.parametrize("word", ["降频", "梯度累积", "多机多卡", "国产卡", "重计算", "回本周期"])
def test_glossary_words_segment_as_whole_words(word):
    ensure_jieba()
    assert word in jieba.lcut(f"我们的{word}问题")


def test_tokenize_lowercases_drops_stopwords_keeps_english_and_folds_plurals():
    assert tokenize("The GPUs 在 降频 吗?") == ["gpu", "降频"]
    assert tokenize("H100 显存不够, batches") == ["h100", "显存", "不够", "显存不够", "batch"]


def test_bm25_matches_the_okapi_formula():
    docs = [["gpu", "gpu", "memory"], ["memory", "cooling"], ["cooling"]]
    index = BM25(docs, k1=1.5, b=0.75)
    avg = 2.0
    idf_gpu = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    expected = idf_gpu * 2 * 2.5 / (2 + 1.5 * (1 - 0.75 + 0.75 * 3 / avg))
    assert index.scores([("gpu", 1.0)]) == {0: pytest.approx(expected)}
    # A rarer term outweighs a common one, and query weights scale contributions.
    assert index.idf("gpu") > index.idf("cooling")
    assert index.scores([("gpu", 0.5)])[0] == pytest.approx(expected / 2)
    assert index.top([("cooling", 1.0)], 5)[0][0] == 2  # shorter doc wins at equal tf
    assert index.top([("absent", 1.0)], 5) == []


def test_bm25_repeated_query_terms_count_once_at_their_highest_weight():
    index = BM25([["a", "b"], ["b", "c"]])
    assert index.scores([("a", 1.0), ("a", 0.5)]) == index.scores([("a", 1.0)])
