"""specs17: a spec, comparison or fit question gets the judgement asked, not a neighbouring answer. A cooler choice for a
multi-card box is judged by its card (not a power or troubleshooting card); an NVLink rate is the card-to-card link, never
the memory bandwidth, and a NIC asked of a card is no count or form factor; a comparison for a job spread over many cards
is decided by the link first, with a note where a figure it leans on is unverified; the spec sheet's sections are a table
(routes.yaml sections.spec_sheet, #34). Our own wording, both languages."""

from __future__ import annotations

import pytest

from advisor.nlu.spec_claim import comparison_claim, spec_fields
from knowledge.catalog import load_catalog
from tests.chinese_text import english_words
from tests.threads import calls, lead
from tools.gpu_specs import CompareRequest, compare_gpus

# --- what is asked of a card: the link is not the memory bandwidth, a NIC is no figure of the card ---------------------


@pytest.mark.parametrize(("message", "fields"), [
    ("Our A100 nodes have 600GB/s NVLink — enough for tensor parallel across 8?", ("nvlink_gbs",)),
    ("What's the card-to-card bandwidth on an H200?", ("nvlink_gbs",)),
    ("H800 的 NVLink 带宽多少？", ("nvlink_gbs",)),
    ("A800 的卡间互联是多少 GB/s？", ("nvlink_gbs",)),
    ("H20 memory bandwidth, please", ("bandwidth_gbs",)),
    ("H20 显存带宽是多少", ("bandwidth_gbs",)),
    ("the B200 has 8 TB/s of memory bandwidth and 1.8 TB/s NVLink, correct?", ("bandwidth_gbs", "nvlink_gbs")),
    ("Is there a ConnectX-7 on the L40S board?", ("network",)),
    ("A100 PCIe 自带网卡吗？", ("network",)),
])  # fmt: skip
def test_a_link_rate_is_the_link_and_a_nic_is_no_count(message, fields):
    assert spec_fields(message) == fields


def test_a_link_comparison_is_checked_on_the_link():
    stated = comparison_claim("the H100 SXM has faster NVLink than the A100 SXM, right?", [(4, "h100-sxm"), (36, "a100-sxm")])
    assert stated is not None and stated.field == "nvlink_gbs"


@pytest.mark.parametrize(("question", "said", "figure"), [
    ("Is the A100 SXM's 600 GB/s NVLink the same thing as its memory bandwidth?", "card-to-card", "600 GB/s"),
    ("A100 SXM 的 600 GB/s NVLink 和显存带宽是一回事吗？", "卡间", "600 GB/s"),
])  # fmt: skip
def test_an_nvlink_rate_leads_as_the_link_beside_the_memory_bandwidth(offline_advisor, question, said, figure):
    response = offline_advisor.answer(question, [])
    first = lead(response)
    assert said in first and figure in first, first
    assert "2,039" in response.answer or "1,555" in response.answer or "2,000" in response.answer  # the memory bandwidth too, apart


@pytest.mark.parametrize(("question", "said"), [
    ("Does the H100 PCIe card come with a ConnectX-7 NIC on it?", "carries no network adapter of its own"),
    ("L40S 卡上自带 ConnectX-7 网卡吗？", "本身不带网卡"),
])  # fmt: skip
def test_a_nic_asked_of_a_card_leads_with_the_cards_own_links(offline_advisor, question, said):
    response = offline_advisor.answer(question, [])
    first = lead(response)
    assert said in first, first
    assert not calls(response, "recommend_gpus") and not calls(response, "estimate_server_price")


# --- several cards: the figure asked leads, and a job over many cards is decided by the link ---------------------------


@pytest.mark.parametrize("question", [
    "Between the H100 SXM and the H100 PCIe, which one's NVLink is faster?",
    "H100 SXM 和 H100 PCIe 谁的 NVLink 带宽更高？",
])  # fmt: skip
def test_a_figure_asked_of_two_cards_leads_with_that_figure(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    text = response.answer
    line = next(line for line in text.split("\n\n") if "900" in line and "600" in line and "1.5" in line)
    assert text.index(line) < text.index("|"), text  # before the table
    assert "3,350" not in line  # the link, not the memory bandwidth


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.mark.parametrize("job", ["training", "fine_tuning", "inference"])
def test_a_job_over_more_than_a_bridged_pair_is_decided_by_the_link(catalog, job):
    alone = compare_gpus(CompareRequest(gpus=["H100 PCIe", "H100 SXM"], job=job), catalog).verdict
    spread = compare_gpus(CompareRequest(gpus=["H100 PCIe", "H100 SXM"], job=job, cards_per_job=8), catalog).verdict
    pair = compare_gpus(CompareRequest(gpus=["H100 PCIe", "H100 SXM"], job=job, cards_per_job=2), catalog).verdict
    assert alone.decided_by != "link" and pair.decided_by == alone.decided_by
    assert (spread.pick, spread.decided_by, spread.cards_per_job) == ("h100-sxm", "link", 8)
    assert spread.edges[0].figure == "link" and spread.edges[0].ratio == pytest.approx(1.5)


@pytest.mark.parametrize(("question", "said", "why"), [
    ("We're building an 8-GPU training node: H100 PCIe or H100 SXM?", "For training across 8 cards, the NVIDIA H100 SXM", "900 vs 600 GB/s"),
    ("训练要用 8 张卡，选 H100 PCIe 还是 H100 SXM？", "8 卡训练选 NVIDIA H100 SXM", "900 对 600 GB/s"),
])  # fmt: skip
def test_a_multi_card_verdict_leads_with_the_link_then_power_and_price(offline_advisor, question, said, why):
    response = offline_advisor.answer(question, [])
    text = response.answer
    verdict = next(block for block in text.split("\n\n") if said in block)
    assert why in verdict and "TFLOPS" not in verdict, verdict  # the link decides, not dense compute
    after = text[text.index(verdict):]
    assert "350" in after and "700 W" in after and "1.12" in after  # the power and the price follow as the other side
    if response.language == "zh":
        assert not english_words(verdict.replace("NVIDIA", "").replace("SXM", "").replace("PCIe", "")), verdict


def test_a_verdict_on_an_unverified_figure_says_so(catalog):
    """The H800 PCIe's bandwidth is the H100 PCIe's carried over, unverified: a verdict that leans on it says so."""
    from advisor.offline.tasks.specs import verdict_view

    result = compare_gpus(CompareRequest(gpus=["H800 PCIe", "H800 SXM"], job="inference"), catalog).model_dump(mode="json")
    assert result["verdict"]["decided_by"] == "bandwidth"

    class Said:  # the wording of one language, as a turn gives it
        def __init__(self, language):
            self.language = language

        def t(self, en, zh):
            return en if self.language == "en" else zh

    for language, said in (("en", "Not verified: the NVIDIA H800 PCIe's memory bandwidth"), ("zh", "未经核实：NVIDIA H800 PCIe 的显存带宽")):
        text = verdict_view.lead(Said(language), result)
        assert said in text, text


# --- a cooler choice for a multi-card box is judged by its card -------------------------------------------------------


@pytest.mark.parametrize(("question", "said"), [
    ("Four GPUs in one tower for ML: go with blower-style cards or open-air coolers?", "Blower cards for three or four"),
    ("Planning a 4x GPU workstation — blower or triple-fan cards?", "Blower cards for three or four"),
    ("四张卡装一台工作站，涡轮散热和开放式散热哪个好？", "三四张卡并排装选涡轮卡"),
    ("准备攒一台四卡训练机，买涡轮版显卡还是三风扇的？", "三四张卡并排装选涡轮卡"),
    ("Putting 4x RTX 3090 in a single chassis — blower versions or open-air?", "Blower cards for three or four"),
    ("一台机箱装 4 张 RTX 3090，买涡轮版还是开放式散热的？", "三四张卡并排装选涡轮卡"),
])  # fmt: skip
def test_a_cooler_choice_for_several_cards_gets_its_verdict(offline_advisor, question, said):
    response = offline_advisor.answer(question, [])
    first = lead(response)
    assert first.lstrip("*").startswith(said), first
    assert not calls(response, "diagnose") and not calls(response, "plan_facility")  # no server plan of the stated cards
    assert "8-GPU" not in response.answer and "8 卡" not in response.answer


# --- #34: the spec sheet's sections are a table ------------------------------------------------------------------------


def test_the_spec_sheet_sections_are_a_table_of_known_words():
    from advisor.offline.tasks.specs import specs

    names = [row.name for row in specs.SECTIONS.rows]
    assert names.index("stated_figure") < names.index("figure_asked") < names.index("verdict") < names.index("table")
    assert names.index("verdict") < names.index("mainland_blocked") < names.index("table") < names.index("stale_prices")
    assert all(row.writer in specs.SECTIONS.writers for row in specs.SECTIONS.rows)
    figure_asked = next(row for row in specs.SECTIONS.rows if row.name == "figure_asked")
    assert figure_asked.unless == ["comparison_claim"]  # a stated comparison is checked instead of the figure alone


def test_a_section_table_naming_an_unknown_writer_fails_at_load():
    from advisor.offline.tasks.specs import specs
    from advisor.offline.takeovers import Sections

    with pytest.raises(LookupError, match="nowhere"):
        Sections("probe", specs.SECTIONS.conditions, specs.SECTIONS.writers, rows=[{"name": "x", "writer": "nowhere"}])
    with pytest.raises(LookupError, match="unless"):  # an alternative names a section above it
        Sections("probe", specs.SECTIONS.conditions, specs.SECTIONS.writers, rows=[{"name": "x", "unless": ["y"], "writer": "table"}])


@pytest.mark.parametrize("question", [
    "Do two H100 servers need ConnectX-7 adapters to talk to each other?",
    "两台 H100 服务器互联需要配 ConnectX-7 吗？",
])  # fmt: skip
def test_a_nic_asked_of_servers_is_not_answered_as_the_cards(offline_advisor, question):
    answer = offline_advisor.answer(question, []).answer
    assert "network adapter of its own" not in answer and "本身不带网卡" not in answer
