"""The side of a question decides the answer, not the card it names: whether a part may be bought, whether a
format's output is good enough, whether a vendor's multiple holds, whether to host at all, where a box can stand.
Such questions get the knowledge answer, never a spec sheet alone; a follow-up that asks another side of the
thread gets its own card in the thread's context. (Questions worded for this test.)"""

from __future__ import annotations

import re

import pytest

from advisor.nlu.facets import FACETS_FILE, SPECS, FacetTable, facet_of
from advisor.offline.router import GUARDED, TASKS
from knowledge.concepts import load_concepts

import yaml
from tests.threads import ask as _ask


@pytest.mark.parametrize(
    ("message", "facet"),
    [
        ("Our Berlin HQ wants H20s shipped to the Chinese subsidiary; is that allowed?", "compliance"),
        ("Can we still place an order for H20 boards this quarter, or is there a lead time problem?", "compliance"),
        ("德国总部想给中国分公司采购H20，合规吗？", "compliance"),
        ("Does MXFP4 make the model noticeably dumber on maths?", "quality"),
        ("FP4量化之后模型会变笨吗？", "quality"),
        ("The keynote slide claims 25x over Hopper; how should I read that?", "vendor_claim"),
        ("发布会号称比上一代快二十倍，有多少水分？", "vendor_claim"),
        ("How painful is porting our PyTorch code to Cambricon, is the software mature?", "ecosystem"),
        ("海光DCU的软件生态成熟吗？", "ecosystem"),
        ("Would calling a hosted API beat running Qwen ourselves?", "strategy"),
        ("我们是调用API还是自建推理？", "strategy"),
        ("Will two of these boxes overheat our small server room?", "facility"),
        ("这两台放办公室机房会不会太吵？", "facility"),
    ],
)
def test_cue_words_name_the_facet_in_both_languages(message, facet):
    assert facet_of(message).name == facet


@pytest.mark.parametrize(
    "message",
    ["What is the memory bandwidth of an L40S?", "H100 and H200 TDP side by side", "A100 80GB显存带宽是多少？", "4090和3090的显存各多大？",
     "How many TFLOPS does a B200 have?"],
)
def test_a_question_about_figures_has_no_other_facet(message):
    """"bandwidth" holds "ban" and "TFLOPS" nothing: whole words only, so figures stay figures."""
    assert facet_of(message).name == SPECS


def test_every_facet_takes_over_only_tasks_that_exist():
    table = FacetTable.model_validate(yaml.safe_load(FACETS_FILE.read_text(encoding="utf-8")))
    known = set(TASKS) | {"troubleshoot"}
    assert all(set(entry.takes_over) <= known and entry.facet != SPECS for entry in table.facets)
    assert not set(GUARDED) & {task for entry in table.facets for task in entry.takes_over}


def _served(response) -> str | None:
    """The card the answer opens with: its answer is the first line (verdict first), and it cites that card's sources."""
    cited = [s.doc_id.removeprefix("concept-").split(":", 1)[0] for s in response.sources if s.doc_id.startswith("concept-")]
    opening = response.answer.split("\n\n", 1)[0]
    return next((card_id for card_id in cited if opening.startswith(load_concepts().card(card_id).answer.pick(response.language)[:40])), None)


COMPLIANCE_CARDS = ("buying-china-market-parts", "export-h20-timeline")  # who may buy; the H20's licence history: both answer it
# question naming a card, the card(s) that answer its facet, words its first sentence must hold
FACET_QUESTIONS = [
    ("Our parent company is American: may we purchase H20 servers for the team in Shenzhen?", COMPLIANCE_CARDS, "licence"),
    ("总部在美国，我们能给深圳团队采购H20服务器吗？", COMPLIANCE_CARDS, "许可"),
    ("Someone offers 4090s reworked to 48GB; would you build our inference cluster from them?", "modded-4090-48gb", "Not"),
    ("有人卖改装成48G的4090，拿来搭推理集群靠谱吗？", "modded-4090-48gb", "不建议"),
    ("Is NVFP4 on a B200 good enough for answer quality, compared with FP8?", "fp4-quality-in-practice", "Yes"),
    ("B200上用NVFP4，回答质量会不会明显变差？", "fp4-quality-in-practice", "可以"),
]


@pytest.mark.parametrize("message", ["英伟达号称GB200比H100快30倍，是真的吗？", "Nvidia says the GB200 is 30 times faster than the H100, true?"])
def test_a_vendor_multiple_far_beyond_the_figures_gets_the_verdict_then_where_it_comes_from(offline_advisor, message):
    # "is it true?" is answered first (card for card it is not), then the card on vendor claims says which setup it comes from
    response = _ask(offline_advisor, message)
    card = load_concepts().card("vendor-speedup-claims")
    opening, rest = response.answer.split("\n\n", 1)
    assert "30" in opening and ("2.53" in opening), opening
    assert card.answer.pick(response.language)[:40] in rest
    assert any(s.doc_id.startswith("concept-vendor-speedup-claims") for s in response.sources)


@pytest.mark.parametrize(("message", "card_id", "verdict"), FACET_QUESTIONS)
def test_a_named_card_with_another_facet_gets_the_card_for_that_facet_not_a_spec_sheet(offline_advisor, message, card_id, verdict):
    response = _ask(offline_advisor, message)
    cards = [load_concepts().card(card) for card in ((card_id,) if isinstance(card_id, str) else card_id)]
    assert "compare_gpus" not in [call.name for call in response.tool_calls]
    assert _served(response) in [card.id for card in cards]
    body = response.summary.split("\n\n", 1)[0]
    assert verdict in re.split(r"(?<=[.:;。：；])", body, maxsplit=1)[0]


def test_a_plain_spec_question_still_gets_the_spec_sheet(offline_advisor):
    for message in ("What are the H20's memory and bandwidth?", "H20的显存和带宽是多少？"):
        assert "compare_gpus" in [call.name for call in _ask(offline_advisor, message).tool_calls]


# earlier question, follow-up asking another side of the thread, the card that answers the follow-up
FOLLOW_UPS = [
    ("Can we train our models on Huawei Ascend 910B?", "And what would moving our CUDA code over cost us?", "ascend-migration-effort"),
    ("昇腾910B能用来训练吗？", "那迁移过去要花多少功夫？", "ascend-migration-effort"),
    ("Does 4-bit quantisation make a model worse?", "Why don't we skip all this and call an API?", "api-vs-self-hosting"),
    ("4bit量化会让模型变差吗？", "那为什么不干脆直接调用API？", "api-vs-self-hosting"),
]


@pytest.mark.parametrize(("first", "follow_up", "card_id"), FOLLOW_UPS)
def test_a_follow_up_asking_another_side_gets_its_own_card_not_a_repeat(offline_advisor, first, follow_up, card_id):
    before = _served(_ask(offline_advisor, first))
    response = _ask(offline_advisor, follow_up, first)
    card = load_concepts().card(card_id)
    assert _served(response) == card.id != before
    assert {call.name for call in response.tool_calls} == {"search_knowledge"}  # no cost table for "what does moving cost"


VERDICT_OPENERS = re.compile(r"^(Yes|No|Not|Only|Usually|Possibly|Mostly|Rarely|Poorly|Legally|Technically|Little|Essentially|Real|A little"
                             r"|Up to a point|On paper|For |Both|About|Do not|Use|Check|It can be|Low|Good|In |Rent)")


def test_every_card_asked_as_yes_or_no_opens_with_its_verdict():
    """A card whose title asks a yes/no question answers it in its first words (in English; its Chinese twin
    says the same), so the first screen is the answer, not a preamble."""
    asked = [c for c in load_concepts().cards if re.match(r"(Can|Is|Does|Do|Should|Are|Will)\b", c.title.en)]
    assert len(asked) > 50
    assert [c.id for c in asked if not VERDICT_OPENERS.match(c.answer.en)] == []


NEW_CARDS = ("fp4-quality-in-practice", "moe-expert-vs-tensor-parallel", "buying-china-market-parts", "modded-4090-48gb",
             "vendor-speedup-claims", "api-vs-self-hosting", "consumer-gpus-in-server-room")


@pytest.mark.parametrize("card_id", NEW_CARDS)
def test_a_judgement_card_has_its_verdict_sources_and_questions_in_both_languages(card_id):
    card = load_concepts().card(card_id)
    assert card is not None and card.family is not None
    assert re.search(r"[\u4e00-\u9fff]", card.answer.zh) and not re.search(r"[\u4e00-\u9fff]", card.answer.en)
    assert all(source.date and source.url.startswith("https://") for source in card.sources)
    assert VERDICT_OPENERS.match(card.answer.en) or not re.match(r"(Can|Is|Does|Should|Are)\b", card.title.en)


def test_the_facets_a_card_answers_are_facets_the_reader_knows():
    table = FacetTable.model_validate(yaml.safe_load(FACETS_FILE.read_text(encoding="utf-8")))
    known = {entry.facet for entry in table.facets}
    tagged = [card for card in load_concepts().cards if card.facets]
    assert len(tagged) >= 30 and all(set(card.facets) <= known for card in tagged)
    assert {facet for card in tagged for facet in card.facets} == known  # every facet has a card that answers it


@pytest.mark.parametrize(
    ("message", "earlier"),
    [
        ("Would 24 GB do for a 13B model quantised to int4?", ()),
        ("13B模型int4量化，24G显存够吗？", ()),
        ("Training crashed with: RuntimeError: CUDA error: an illegal memory access was encountered. Also our machine room runs hot.", ()),
        ("训练报错 RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB，另外机房温度也偏高", ()),
    ],
)
def test_a_calculation_or_a_diagnosis_that_mentions_another_side_stays_a_calculation(offline_advisor, message, earlier):
    names = [call.name for call in _ask(offline_advisor, message, *earlier).tool_calls]
    assert names and names != ["search_knowledge"], names
