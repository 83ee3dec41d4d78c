"""Whether a named GPU has a capability is answered from its catalog row, verdict first: FP8/FP4/BF16 tensor
support, a GPU-to-GPU link, the PCIe generation, a memory size, board power, form factor. (Questions worded for
this test.)"""

from __future__ import annotations

import pytest

from advisor.nlu.subjects import capability_of
from knowledge.capabilities import load_capabilities
from knowledge.catalog import load_catalog, variant_family
from tools.capability import CapabilityRequest, check_capability
from tests.threads import ask as _ask

CATALOG = load_catalog()

# (card, capability, size asked, expected verdict): eight cards, nine capabilities
VERDICTS = [
    ("L40S", "fp8", None, "yes"),
    ("A100 80GB", "fp8", None, "no"),
    ("Ascend 910B", "fp8", None, "no"),
    ("B200", "fp4", None, "yes"),
    ("RTX 4090", "fp4", None, "no"),
    ("H100", "fp4", None, "no"),
    ("V100 32GB", "bf16", None, "no"),
    ("H100", "nvlink", None, "yes"),
    ("L4", "nvlink", None, "no"),
    ("RTX 6000 Ada", "nvlink", None, "no"),
    ("MI355X", "nvlink", None, "unknown"),  # Infinity Fabric whose bandwidth is unpublished is not "PCIe only"
    ("RTX 6000 Ada", "memory", 64, "no"),
    ("RTX 6000 Ada", "memory", 48, "yes"),
    ("H100 PCIe", "pcie_gen", None, "figure"),
    ("MI300X", "tdp", None, "figure"),
    ("H20", "form_factor", None, "figure"),
    ("H200", "bandwidth", 4000, "yes"),
]


@pytest.mark.parametrize(("gpu", "capability", "size", "verdict"), VERDICTS)
def test_the_verdict_follows_the_catalog_field(gpu, capability, size, verdict):
    result = check_capability(CapabilityRequest(gpu=gpu, capability=capability, threshold=size), CATALOG)
    row = CATALOG.gpu(gpu)
    field = load_capabilities().get(capability).field
    assert result.verdict == verdict
    assert result.value == getattr(row, field)
    if verdict == "no":
        assert result.alternatives, "a card that lacks it names comparable cards that have it"
    for other in result.alternatives:
        card = CATALOG.gpu(other.id)
        assert variant_family(card.id) != variant_family(row.id)
        assert getattr(card, field) is not None and (size is None or getattr(card, field) >= size)


def test_an_fp8_free_card_points_to_a_newer_card_of_its_kind():
    result = check_capability(CapabilityRequest(gpu="A100", capability="fp8"), CATALOG)
    assert {CATALOG.gpu(card.id).segment for card in result.alternatives} == {"datacenter"}
    assert any(variant_family(card.id) == "h100" for card in result.alternatives)


def test_a_form_factor_question_lists_the_other_versions():
    result = check_capability(CapabilityRequest(gpu="H100 SXM", capability="form_factor"), CATALOG)
    assert {card.id for card in result.variants} >= {"h100-pcie"}


def test_an_unknown_capability_is_a_bilingual_error_not_a_crash(offline_advisor):
    from advisor.deps import shared_registry

    outcome = shared_registry().call("check_capability", {"gpu": "H100", "capability": "warp drive"})
    assert not outcome.ok and outcome.error["code"] == "unknown_capability"
    assert outcome.error["zh"] and outcome.error["en"]


@pytest.mark.parametrize(
    ("message", "capability"),
    [
        ("has the L40S got fp8 support", "fp8"),
        ("L40S有没有FP8", "fp8"),
        ("any nvlink on an l4 board", "nvlink"),
        ("L4卡之间有NVLink吗", "nvlink"),
        ("which pcie gen does the h100 pcie use", "pcie_gen"),
        ("MI300X功耗多少瓦", "tdp"),
        ("is the h20 an sxm module", "form_factor"),
        ("how much memory and what bandwidth does the h20 have", None),  # two figures: the spec sheet
        ("H100的NVLink带宽是多少", "nvlink"),  # the bandwidth of the link is the link's question
    ],
)
def test_the_capability_named_is_read_from_the_table_cues(message, capability):
    found = capability_of(message)
    assert (found.id if found else None) == capability


ANSWERS = [
    ("Has the L40S got FP8 support?", "Yes", "733"),
    ("Will my A100 do FP8 natively?", "No", "BF16"),
    ("Any NVLink on an L4 board?", "No", "tensor parallel"),
    ("Which PCIe generation does the H100 PCIe use?", "The NVIDIA H100 PCIe", "Gen 5"),
    ("Do V100 cards have bfloat16?", "No", "FP16"),
    ("L40S有没有FP8？", "支持", "733"),
    ("A100支不支持FP8", "不支持", "BF16"),
    ("4090能原生跑FP4吗", "不支持", "FP4"),
    ("L4卡之间有NVLink吗", "没有", "张量并行"),
    ("MI300X的功耗是多少瓦", "AMD Instinct MI300X", "750 W"),
]


@pytest.mark.parametrize(("message", "opens", "says"), ANSWERS)
def test_a_capability_question_opens_with_its_verdict_not_a_spec_sheet(offline_advisor, message, opens, says):
    response = _ask(offline_advisor, message)
    tools = [call.name for call in response.tool_calls]
    assert "check_capability" in tools and "compare_gpus" not in tools  # read as a spec or a concept question: the verdict either way
    assert response.summary.startswith(opens)
    assert says in response.summary
    assert "| " not in response.summary.split("\n\n")[0]


@pytest.mark.parametrize(("first", "follow_up", "opens", "card"), [
    ("Is FP8 supported on the A100?", "and on the H200?", "Yes", "H200"),
    ("A100支持FP8吗", "那L40S呢", "支持", "L40S"),
])  # fmt: skip
def test_a_follow_up_naming_another_card_keeps_the_capability(offline_advisor, first, follow_up, opens, card):
    response = _ask(offline_advisor, follow_up, first)
    assert response.summary.startswith(opens) and card in response.summary.split("\n")[0]


@pytest.mark.parametrize(("message", "opens"), [
    ("NVIDIA claims the H100 does FP4 five times faster than Ampere, is that true?", "No: the NVIDIA H100"),
    ("英伟达宣称H100跑FP4比A100快5倍，是真的吗", "不支持：NVIDIA H100"),
])  # fmt: skip
def test_a_vendor_claim_about_a_missing_capability_is_refuted_first(offline_advisor, message, opens):
    response = _ask(offline_advisor, message)
    assert response.summary.startswith(opens)
    assert "FP4" in response.summary.split("\n")[0]


def test_a_claim_about_a_card_that_has_it_gets_no_refutation(offline_advisor):
    response = _ask(offline_advisor, "Nvidia says B200 runs FP4 15x faster than H100, is that real?")
    assert not response.summary.startswith("No: the NVIDIA B200")


def test_power_of_a_server_is_not_answered_with_one_cards_tdp(offline_advisor):
    response = _ask(offline_advisor, "How much power do two 8-GPU H100 servers draw?")
    assert "check_capability" not in [call.name for call in response.tool_calls]


@pytest.mark.parametrize("capability", load_capabilities().capabilities, ids=lambda c: c.id)
def test_every_capability_speaks_both_languages_and_its_own_cues_find_it(capability):
    assert capability.has.en and capability.has.zh and capability.lacks.en and capability.lacks.zh
    assert capability_of(f"what about {capability.cues.en[0]} on this card?").id == capability.id
    assert capability_of(f"这张卡的{capability.cues.zh[0]}呢").id == capability.id
