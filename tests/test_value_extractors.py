"""Each value extractor on its own, as a table of message → values, one table per kind module; and the order
pipeline.yaml declares is the order they claim the text in."""

from __future__ import annotations

import pytest

from advisor.name_matcher import normalize_text
from advisor.nlu.pipeline import Pipeline, PipelineError, load_pipeline
from advisor.nlu.scan import REGISTRY, run
from advisor.nlu.values import EXTRACTORS, declared_extractors
from knowledge.catalog import load_catalog

# (extractors run in this order, message, [(kind, value)] they find); the first extractor is the one under test,
# any after it show what it keeps other extractors from reading.
NAMES = [
    (("pci_addresses", "numbers"), "bus 00000000:3b:00.0 reads 79", [("number", 79.0)]),
    (("names_written_apart",), "deepseek r1 distill qwen 32b", [("model", "qwen2.5-32b")]),
    (("names_written_apart",), "rtx 4090 laptop", [("gpu", "rtx-4090-laptop")]),
    (("catalog_names",), "4090x2 跑 qwen2.5 72b", [("gpu", "rtx-4090"), ("count_gpu", 2.0), ("model", "qwen2.5-72b")]),
    (("catalog_names",), "910B8卡够不够", [("gpu", "ascend-910b"), ("count_gpu", 8.0)]),
    (("catalog_names",), "a100 80gb", [("gpu", "a100-80gb-sxm")]),
    (("number_name_and_count",), "40908卡能跑吗", [("gpu", "rtx-4090"), ("count_gpu", 8.0)]),
    (("model_names",), "my own foo-13b finetune", [("model", "foo-13b")]),
    (("model_versions",), "glm-4.5 air", [("model", "glm-4.5")]),
    (("other_gpus",), "what about a radeon rx 7900 xtx", [("other_gpu", "radeon rx 7900 xtx")]),
    (("keywords",), "int4 qlora", [("precision", "int4"), ("method", "qlora")]),
    (("keywords",), "不训练，只做推理", [("method", "inference")]),
    # a space where the number meets its word is the same precision (#36)
    (("keywords",), "70b 4 位量化", [("precision", "int4")]),
    (("keywords",), "qwen 72b 4 比特 跑得动吗", [("precision", "int4")]),
    (("keywords",), "llama 70b 8 位", [("precision", "int8")]),
    (("keywords",), "int 4 weights at 4 bits", [("precision", "int4"), ("precision", "int4")]),
    (("keywords", "numbers"), "组里有4位工程师", [("audience", "team"), ("users", 4.0)]),  # 位 counting people is no bit width
    (("catalog_names",), "8卡910B3训练", [("gpu", "ascend-910b")]),
    (("other_gpus",), "910B4 能跑 32B 吗", [("other_gpu", "910b4")]),
    # the generation word tells namesakes apart: the Ada 6000 written with the Ampere card's A, the 40 GB A800, the PCIe H800 (#36)
    (("catalog_names", "numbers"), "a6000 ada 48gb", [("gpu", "rtx-6000-ada")]),
    (("catalog_names",), "a800 40g 和 h800 pcie", [("gpu", "a800-40gb"), ("gpu", "h800-pcie")]),
]
COUNTS = [
    (("vague_counts",), "dozens of concurrent users", [("users", 50.0)]),
    (("vague_counts",), "几十个并发", [("users", 50.0)]),
    (("vague_counts",), "三十来个人", []),  # a tens digit before the words: thirty-odd, no order of magnitude
    (("parallel_degrees",), "tp=4 and pp 2", [("tp", 4.0), ("pp", 2.0)]),
    (("parallel_degrees",), "张量并行8", [("tp", 8.0)]),
    (("context_settings",), "max-model-len set to 32768", [("context_setting", 32768.0)]),
    (("context_settings",), "上下文长度设成16000", [("context_setting", 16000.0)]),
    (("batch_sizes",), "batch size 16", [("batch", 16.0)]),
    (("batch_sizes",), "批大小已经降到4", [("batch", 4.0)]),
    (("mfu",), "assume 40% mfu", [("mfu", 40.0)]),
    (("mfu",), "mfu按0.35算", [("mfu", 35.0)]),
    (("pue",), "pue 1.4", [("pue", 1.4)]),
    (("pue",), "机房PUE按1.5算", [("pue", 1.5)]),
    (("gpus_per_node",), "8 per node", [("count_gpu", 8.0)]),
    (("cards_in_words",), "4 nodes of 8 each", [("count_gpu", 8.0)]),
    (("cards_in_words",), "buy 16 of those", [("count_gpu", 16.0)]),
    (("nodes_of_gpus",), "two 8-gpu nodes", [("count_gpu", 16.0)]),
    (("servers_of_named_cards",), "three 8xh200 servers", [("count_server", 3.0)]),
    (("servers_of_named_cards",), "4x8 h100 nodes", [("count_server", 4.0), ("count_gpu", 8.0)]),
    (("epochs",), "3 epochs", [("epochs", 3.0)]),
    (("epochs",), "训两轮", [("epochs", 2.0)]),
    (("other_settings", "numbers"), "num_workers=8 batch", []),
    (("times_count",), "need x8", [("count_gpu", 8.0)]),
    (("numbers",), "8卡 80g 显存", [("count_gpu", 8.0), ("memory", 80.0)]),
    # a network link's rate is no memory size, and a count before it counts links, not cards (#36)
    (("counted_links", "numbers"), "每台8张400G网卡", [("link_count", 8.0), ("link_speed", 400.0)]),
    (("counted_links", "numbers"), "16 nodes, 8x400G NDR each", [("count_server", 16.0), ("link_count", 8.0), ("link_speed", 400.0)]),
    (("numbers",), "400g ib per node", [("link_speed", 400.0)]),
    (("numbers",), "200gb/s roce between the boxes", [("link_speed", 200.0)]),
    (("numbers",), "网卡是200G的", [("link_speed", 200.0)]),
    (("numbers",), "ndr 400g, 80g 显存", [("link_speed", 400.0), ("memory", 80.0)]),
    (("numbers",), "50 qps", [("request_rate", 50.0)]),
    (("numbers",), "每秒200个请求", [("request_rate", 200.0)]),
    (("word_numbers",), "buy two", [("count_gpu", 2.0)]),
    (("word_numbers",), "and with four?", [("number", 4.0)]),
    (("numbers",), "出租价卡时2.2元", [("money", (2.2, "CNY", "gpu_hour"))]),  # the unit before the amount
    (("numbers",), "listed at gpu hours $0.40", [("money", (0.4, "USD", "gpu_hour"))]),
    (("numbers",), "gpu-hour rate is $0.35", [("money", (0.35, "USD", "gpu_hour"))]),  # words between the unit and the amount
    (("numbers",), "按小时计费每卡8块", [("money", (8.0, "CNY", "gpu_hour"))]),  # hourly, then per card: a rent per GPU-hour
    # Chinese magnitudes with a token unit, a space or none (#36)
    (("numbers",), "训练数据 3 亿 token", [("tokens", 3e8)]),
    (("numbers",), "200亿tokens", [("tokens", 2e10)]),
    (("numbers",), "1.5万亿token", [("tokens", 1.5e12)]),
    (("numbers",), "数据 3 千万 tokens", [("tokens", 3e7)]),
    (("numbers",), "语料 2 千亿 词元", [("tokens", 2e11)]),
    (("numbers",), "只有 5 千 token", [("tokens", 5e3)]),
    (("numbers",), "机柜 15 千瓦", [("power_kw", 15.0)]),  # the 千 of 千瓦 stays the unit's
]
MONEY = [
    (("unit_prices",), "5000块一张", [("money", (5000.0, "CNY", "once"))]),
    (("unit_prices",), "1.2万每张卡", [("money", (12000.0, "", "once"))]),
    (("tenths",), "便宜三成", [("percent", 30.0)]),
    (("discounts",), "打八五折", [("discount", 15.0)]),
    (("discounts",), "20% off", [("discount", 20.0)]),
    (("unit_before_price", "numbers"), "报价一台230万", [("money", (2300000.0, "", "once"))]),
    (("jiao_and_fen",), "电价六毛五一度", [("money", (0.65, "", "kwh"))]),
    (("yuan_and_jiao",), "1块5一度", [("money", (1.5, "CNY", "kwh"))]),
]
TIMES = [
    (("always_on",), "runs 24/7", [("always_on", 1.0)]),
    (("always_on",), "全年无休", [("always_on", 1.0)]),
    (("dates_and_durations",), "half the time", [("percent", 50.0)]),
    (("dates_and_durations",), "晚上10点到早上6点", [("percent", 33.3)]),
]
CLAIMS = [
    (("weights_multiple_claims",), "memory is weights x 1.2", [("claim", "1.2× weights")]),
    (("bytes_per_parameter_claims",), "16 bytes per parameter", [("claim", 16.0)]),
    (("multiples",), "is the b200 really 30x an h100", [("ratio", 30.0)]),
    (("multiples",), "they say 2.5x faster than our a100s", [("ratio", 2.5)]),
    (("multiples",), "gb200 is 30 times the h100", [("ratio", 30.0)]),
    (("multiples",), "h200的速度是a100的5倍吗", [("ratio", 5.0)]),
    (("multiples",), "910b快3倍？", [("ratio", 3.0)]),
    (("multiples",), "8x h100 server", []),  # a card right after the sign: a count, left to the counts
    (("multiples",), "2x 4090 vs 1x a6000", []),
    (("multiples", "numbers"), "vendor quotes 3x the throughput", [("ratio", 3.0)]),
]
TABLES = {"names": NAMES, "counts": COUNTS, "money": MONEY, "times": TIMES, "claims": CLAIMS}
ROWS = [(kind, *row) for kind, rows in TABLES.items() for row in rows]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.mark.parametrize(("kind", "extractors", "message", "expected"), ROWS, ids=[f"{r[1][0]}:{r[2]}" for r in ROWS])
def test_each_extractor_reads_its_table(catalog, kind, extractors, message, expected):
    found = run(normalize_text(message), catalog, extractors)
    assert [(v.kind, v.value) for v in found] == expected


def test_every_registered_extractor_has_rows_in_the_table_of_its_module():
    tested = {row[1][0]: row[0] for row in ROWS}
    assert set(tested) == set(REGISTRY)
    for name, kind in tested.items():
        assert REGISTRY[name].__module__ == f"advisor.nlu.extractors.{kind}", name


def test_a_blocking_extractor_changes_what_the_next_one_reads(catalog):
    """The rows whose extractor only keeps others out are tested against the follower alone, so they can fail."""
    for _, extractors, message, expected in ROWS:
        if len(extractors) > 1:
            alone = run(normalize_text(message), catalog, extractors[1:])
            assert [(v.kind, v.value) for v in alone] != expected, extractors


def test_the_declared_order_is_the_order_of_claiming(catalog):
    text = normalize_text("num_workers=8")
    assert run(text, catalog, ["other_settings", "numbers"]) == []
    assert [v.value for v in run(text, catalog, ["numbers", "other_settings"])] == [8.0]
    assert EXTRACTORS == tuple(load_pipeline().extractors)


def test_a_pipeline_naming_an_unknown_or_leaving_out_an_extractor_is_refused():
    with pytest.raises(PipelineError, match="unknown \\['spelling_mistake'\\]"):
        declared_extractors([*EXTRACTORS, "spelling_mistake"])
    with pytest.raises(PipelineError, match="not listed \\['word_numbers'\\]"):
        declared_extractors([name for name in EXTRACTORS if name != "word_numbers"])


def test_an_extractor_listed_twice_is_refused(tmp_path):
    data = load_pipeline().model_dump()
    data["extractors"] = [*data["extractors"], "numbers"]
    with pytest.raises(ValueError, match="more than once: numbers"):
        Pipeline.model_validate(data)


def test_keywords_of_equal_length_claim_in_one_order_every_run(catalog):
    """ "pcie版" and "pci-e" are both five characters; the tie used to follow the hash seed of the process."""
    [form] = run(normalize_text("SXM版还是PCIe版"), catalog, ["keywords"])[1:]
    assert (form.value, form.surface) == ("pcie", "pcie版")


# A memory size written as the card ("a pair of 48 GB GPUs"): the count word before it counts the cards, in either
# language, while a memory size that is not a card ("two models in 24GB") leaves the word alone.
MEMORY_AS_CARD = [
    ("we have three 48 GB GPUs in the box", [("count_gpu", 3.0), ("memory", 48.0)]),
    ("could two 24gb cards hold it", [("count_gpu", 2.0), ("memory", 24.0)]),
    ("four 80GB accelerators for a 70b", [("count_gpu", 4.0), ("memory", 80.0)]),
    ("手上有三张48G显卡", [("count_gpu", 3.0), ("memory", 48.0)]),
    ("双24g卡够吗", [("count_gpu", 2.0), ("memory", 24.0)]),
]


@pytest.mark.parametrize(("message", "expected"), MEMORY_AS_CARD)
def test_a_count_word_before_a_memory_sized_card_counts_cards(catalog, message, expected):
    found = run(normalize_text(message), catalog, EXTRACTORS)
    assert [(v.kind, v.value) for v in found if v.kind in ("count_gpu", "memory")] == expected


def test_a_count_word_before_a_memory_size_that_is_no_card_is_not_a_card_count(catalog):
    found = run(normalize_text("load two of my models into 24GB of VRAM"), catalog, EXTRACTORS)
    assert ("count_gpu", 2.0) not in [(v.kind, v.value) for v in found]
