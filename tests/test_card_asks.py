"""A card answers a question only when it covers both what the question names and what it asks about it: whether
it is ready for production, whether to buy now or wait, whether it may be used remotely from China. A vendor the
catalog has no row for (Cambricon, Hygon, Kunlunxin, Moore Threads, MetaX, the B30A) is a subject of its own, so
a card about another vendor never answers for it. (Questions worded for this test, in both languages.)"""

from __future__ import annotations

import pytest

from advisor.nlu.subjects import card_subjects, covers, subject_labels, subjects_of, uncatalogued_gpus
from knowledge.catalog import load_catalog
from knowledge.concepts import load_concepts
from tests.retrieval_support import served_cards

CATALOG = load_catalog()
CARDS = load_concepts()


def test_a_card_on_waiting_does_not_answer_waiting_with_a_deadline():
    waiting = card_subjects(CARDS.card("wait-for-next-generation"), CATALOG)
    assert covers(waiting, subjects_of("should we hold off for the next generation", CATALOG))
    assert not covers(waiting, subjects_of("we must be up and running by June, hold off for the next generation?", CATALOG))


def test_the_remote_use_card_holds_for_any_controlled_part():
    remote = card_subjects(CARDS.card("remote-cloud-gpus-from-china"), CATALOG)
    assert covers(remote, subjects_of("may our Chengdu staff reach H200 nodes in a cloud abroad remotely", CATALOG))


def test_a_card_silent_on_the_ask_does_not_answer_it():
    fp4_quality = card_subjects(CARDS.card("fp4-quality-in-practice"), CATALOG)
    readiness = subjects_of("is FP4 pre-training ready for production use at this point", CATALOG)
    assert readiness["ask"] == {"readiness"}
    assert not covers(fp4_quality, readiness)
    assert covers(card_subjects(CARDS.card("nvfp4-training-status"), CATALOG), readiness)
    # the same card still answers a question that asks no such thing
    assert covers(fp4_quality, subjects_of("how lossy is FP4 really", CATALOG))


def test_asks_read_the_same_in_both_languages():
    assert subjects_of("should we wait for the next GPUs", CATALOG)["ask"] == {"timing"}
    assert subjects_of("要不要等下一代卡", CATALOG)["ask"] == {"timing"}
    assert subjects_of("the go-live date is fixed, should we wait for the next GPUs", CATALOG)["ask"] == {"timing", "deadline"}
    assert subjects_of("上线日期定死了，要不要等下一代卡", CATALOG)["ask"] == {"timing", "deadline"}
    assert subjects_of("用境外云远程跑训练", CATALOG)["ask"] == {"remote_access"}


def test_vendors_without_catalog_rows_are_named_and_labelled():
    asked = subjects_of("寒武纪和海光哪家好", CATALOG)
    assert asked["gpu"] == {"cambricon-mlu", "hygon-dcu"} == uncatalogued_gpus(asked, CATALOG)
    assert uncatalogued_gpus(subjects_of("Ascend 910B or H20", CATALOG), CATALOG) == frozenset()
    assert subject_labels(subjects_of("any news on the B30A", CATALOG), CATALOG, "en")[0].startswith("NVIDIA B30A")
    assert "摩尔线程" in subject_labels(subjects_of("摩尔线程的卡", CATALOG), CATALOG, "zh")
    # a card on Ascend does not answer for Cambricon
    ascend = card_subjects(CARDS.card("ascend-migration-effort"), CATALOG)
    assert not covers(ascend, subjects_of("how hard is moving our CUDA code to Cambricon", CATALOG))


# (question, the cards that answer it): several families, each naming a subject and asking one side of it
ASKED = [
    ("Can we rely on FP4 pre-training in production today, or is it still experimental?", {"nvfp4-training-status"}),
    ("FP4 预训练现在可以放心用在正式项目里吗？", {"nvfp4-training-status"}),
    ("Go-live is fixed for early 2027: hold off for Rubin, or order H200 servers now?", {"buy-now-or-wait-with-deadline"}),
    ("2027年初必须上线，H200现在下单还是再等等Rubin？", {"buy-now-or-wait-with-deadline"}),
    ("What does expert-parallel all-to-all lose going over InfiniBand between servers instead of NVLink?",
     {"moe-expert-parallel-interconnect"}),
    ("专家并行跨两台服务器时，all-to-all 走 InfiniBand 比走 NVLink 损失多少？", {"moe-expert-parallel-interconnect", "moe-expert-vs-tensor-parallel"}),
    ("How does a Cambricon MLU590 stack up against a Huawei 910B for our workloads?", {"cambricon-vs-ascend"}),
    ("寒武纪590跟华为910B比哪个强？", {"cambricon-vs-ascend"}),
    ("Apart from Huawei, what other Chinese accelerator vendors should we look at?",
     {"domestic-accelerators-beyond-ascend", "china-domestic-training-accelerators"}),
    ("华为以外的国产加速卡还有哪些能考虑？", {"domestic-accelerators-beyond-ascend", "china-domestic-training-accelerators"}),
    ("Do Moore Threads GPUs handle LLM inference?", {"moore-threads-metax"}),
    ("沐曦的GPU做大模型推理行不行？", {"moore-threads-metax"}),
]


@pytest.mark.parametrize(("message", "expected"), ASKED)
def test_a_question_gets_a_card_on_its_subject_and_its_ask(offline_advisor, message, expected):
    response = offline_advisor.answer(message, [])
    served = served_cards(response)
    assert served and served[0] in expected, (served, response.summary[:200])
    assert covers(card_subjects(CARDS.card(served[0]), CATALOG), subjects_of(message, CATALOG))


@pytest.mark.parametrize(("message", "caveat"), [
    ("Our Shenzhen engineers would like to log into B200 instances in a US region remotely. Allowed?", "compliance"),
    ("深圳的工程师想远程登录美国区域的 B200 云主机，合规吗？", "合规"),
])  # fmt: skip
def test_remote_use_of_a_controlled_part_leads_with_the_compliance_caveat(offline_advisor, message, caveat):
    response = offline_advisor.answer(message, [])
    summary = response.summary
    said_at = summary.find(caveat)
    assert 0 <= said_at < 300, summary[:300]  # in the card's title or its first sentence
    prices = [at for at in (summary.find(mark) for mark in ("$", "per GPU-hour", "美元")) if at >= 0]
    assert all(said_at < at for at in prices), summary[:300]  # whether it is allowed comes before what it costs
    assert "remote-cloud-gpus-from-china" in served_cards(response)


@pytest.mark.parametrize("message", ["What is the B30A, and can Chinese buyers order it?", "B30A是什么，国内能买到吗？"])
def test_a_part_without_a_catalog_row_gets_its_card_not_a_spec_list(offline_advisor, message):
    response = offline_advisor.answer(message, [])
    assert [call.name for call in response.tool_calls] == ["search_knowledge"] * len(response.tool_calls)
    served = served_cards(response)
    assert served and served[0] in {"export-status-by-part", "blackwell-china"}, (served, response.summary[:200])
