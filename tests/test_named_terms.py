"""Terms read as the thing they name (#36): a network link's rate is no memory size, a card's generation word tells
namesakes apart, and a form-factor question is answered about the named card's own variants."""

from __future__ import annotations

import pytest

from advisor.name_matcher import normalize_text
from advisor.nlu.values import find_values
from knowledge.catalog import load_catalog
from tests.threads import calls


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def kinds(catalog, message):
    return [(v.kind, v.value) for v in find_values(normalize_text(message), catalog)]


@pytest.mark.parametrize(
    ("message", "rate"),
    [
        ("we have 400G IB between the nodes", 400.0),
        ("the boxes talk over 200Gb/s RoCE", 200.0),
        ("NDR 400G fabric already in place", 400.0),
        ("两台机器之间是400G 网卡", 400.0),
        ("网络是200G的RoCE", 200.0),
    ],
)
def test_a_link_rate_is_no_memory_size(catalog, message, rate):
    found = kinds(catalog, message)
    assert ("link_speed", rate) in found
    assert not [v for k, v in found if k == "memory"]


@pytest.mark.parametrize(
    ("message", "count", "rate"),
    [("each node has 8×400G NDR", 8.0, 400.0), ("每台8张400G网卡", 8.0, 400.0), ("2x 200Gbps NICs per box", 2.0, 200.0)],
)
def test_a_count_before_a_link_rate_counts_links_not_cards(catalog, message, count, rate):
    found = kinds(catalog, message)
    assert ("link_count", count) in found and ("link_speed", rate) in found
    assert not [v for k, v in found if k == "count_gpu"]


def test_memory_written_beside_a_network_word_stays_memory(catalog):
    assert ("memory", 80.0) in kinds(catalog, "网络 80G 显存")
    assert ("memory", 48.0) in kinds(catalog, "a 48GB card")


@pytest.mark.parametrize(
    ("message", "gpu"),
    [
        ("A6000 Ada for a 32B model?", "rtx-6000-ada"),
        ("RTX A6000 Ada, 2 cards", "rtx-6000-ada"),
        ("两张6000 Ada够吗", "rtx-6000-ada"),
        ("RTX A6000 48G", "rtx-a6000"),
        ("A800 40GB", "a800-40gb"),
        ("A800 80G", "a800-80gb-sxm"),
        ("H800 PCIe", "h800-pcie"),
        ("H800", "h800-sxm"),
        ("H100 NVL", "h100-nvl"),
        ("H100 PCIe", "h100-pcie"),
    ],
)
def test_the_most_specific_name_wins(catalog, message, gpu):
    assert [v for k, v in kinds(catalog, message) if k == "gpu"] == [gpu]


def test_unsourced_figures_of_the_new_rows_are_unknown(catalog):
    h800_pcie, a800_40 = catalog.gpu("h800-pcie"), catalog.gpu("a800-40gb")
    assert h800_pcie.nvlink_gbs is None and "nvlink_gbs" in h800_pcie.unknown
    assert "memory_gb" in h800_pcie.unverified  # the H100 PCIe board's figure, no source prints it for this part
    assert a800_40.memory_gb == 40 and a800_40.nvlink_gbs == 400 and a800_40.fp32_tflops is None


def _memory_args(response):
    return [c.args for c in calls(response, "estimate_memory")]


@pytest.mark.parametrize(
    "message",
    [
        "We have two nodes of 8 H100 SXM with 400G IB each: can we full fine-tune a 70B model?",
        "两台8卡H100服务器，400G 网卡互联，能全参微调70B吗？",
    ],
)
def test_a_stated_link_is_not_sized_as_card_memory(offline_advisor, message):
    response = offline_advisor.answer(message, [])
    assert "400 GB" not in response.answer and "429.5 GB" not in response.answer
    assert _memory_args(response) and all(a.get("gpu_memory_gb") in (None, 80) for a in _memory_args(response))


def test_the_ada_6000_is_sized_as_itself(offline_advisor):
    response = offline_advisor.answer("Can one A6000 Ada serve Qwen2.5-32B in int4?", [])
    assert "RTX 6000 Ada" in response.answer and "RTX A6000" not in response.answer


@pytest.mark.parametrize(
    ("message", "names"),
    [
        ("H800 PCIe or SXM for 8-card training?", ("H800 PCIe", "H800 SXM")),
        ("8卡训练选H800 PCIe还是SXM？", ("H800 PCIe", "H800 SXM")),
    ],
)
def test_a_form_factor_question_compares_the_named_cards_variants(offline_advisor, message, names):
    response = offline_advisor.answer(message, [])
    head = response.answer.split("\n\n", 2)
    assert all(name in "\n\n".join(head[:2]) for name in names)
    assert "H100" not in head[0]


@pytest.mark.parametrize(
    ("message", "phrase"),
    [
        ("32 nodes of 8 H100s with 8×400G NDR each: how many leaf and spine switches?", "8 × 400 Gb/s links per server are the plan"),
        ("32 nodes of 8 H100s on 200Gb/s RoCE: how many leaf and spine switches?", "You stated 200 Gb/s links"),
        ("32台8卡H100服务器，每台8张200G网卡，需要多少叶交换机和脊交换机？", "你说的是"),
    ],
)
def test_a_fabric_plan_says_how_the_stated_links_meet_it(offline_advisor, message, phrase):
    response = offline_advisor.answer(message, [])
    assert calls(response, "size_fabric")
    assert phrase in response.answer
