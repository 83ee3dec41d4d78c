"""A served answer is about what the question names: its models and topics (MFU, export rules, cost per token)
as well as its GPUs. A card about one model or one of two compared cards does not answer the question; a
compliance question leads with the named card's status; a per-token comparison leads with each card's cost per
token; a question weighing several cards answers every one of them. (Questions worded for this test.)"""

from __future__ import annotations

import pytest

from advisor.nlu.subjects import card_subjects, covers, subjects_of
from knowledge.catalog import load_catalog
from knowledge.concepts import load_concepts
from tools.cost.token_cost import TokenCostRequest, token_cost
from tools.gpu_specs import CHINA_BUYABLE
from tests.retrieval_support import served_cards

CATALOG = load_catalog()
CARDS = load_concepts()


def _first_sentence(summary: str) -> str:
    return summary.strip().split("\n")[0]


# --- what a question names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("message", "topic"), [
    ("our 256-GPU H100 run sits at 41% model flops utilization, fine?", "mfu"),
    ("千卡H100训练13B，算力利用率只有35%，算低吗", "mfu"),
    ("are we allowed to ship two A100 boxes to our Hangzhou office under the export controls?", "export"),
    ("两台A100服务器能运到杭州吗，出口管制怎么说", "export"),
    ("what's the price per million tokens of Qwen2.5-7B on an L4?", "cost_per_token"),
    ("Qwen2.5-7B放在L4上每百万token成本多少", "cost_per_token"),
])  # fmt: skip
def test_a_question_names_its_topic_in_both_languages(message, topic):
    assert topic in subjects_of(message, CATALOG).get("topic", ())


def test_a_question_names_its_models_in_both_languages():
    english = subjects_of("serving Llama-3.1-70B on H20s, how fast?", CATALOG)
    chinese = subjects_of("H20部署Llama-3.1-70B速度多少", CATALOG)
    assert english["model"] == chinese["model"] == {"llama-3.1-70b"}


def test_a_card_about_one_model_does_not_answer_a_question_about_another():
    moe_card = card_subjects(CARDS.card("h20-moe-serving"), CATALOG)
    assert "model" in moe_card
    assert not covers(moe_card, subjects_of("how does the H20 do serving Llama-3.1-70B?", CATALOG))
    named = next(iter(moe_card["model"]))
    assert covers(moe_card, subjects_of(f"how does the H20 do serving {CATALOG.model(named).name}?", CATALOG))


def test_a_card_on_one_of_two_compared_gpus_does_not_answer_the_comparison():
    h20_card = card_subjects(CARDS.card("export-h20-timeline"), CATALOG)
    assert covers(h20_card, subjects_of("is the H20 still sold to China?", CATALOG))
    assert not covers(h20_card, subjects_of("H20 or H100 for our inference cluster?", CATALOG))


def test_a_card_silent_on_the_topic_asked_does_not_answer_it():
    upgrade_card = card_subjects(CARDS.card("h200-vs-h100"), CATALOG)
    asked = subjects_of("We measure 41% MFU on 256 H100s, is that healthy?", CATALOG)
    assert covers(upgrade_card, subjects_of("how does the H100 compare with the H200?", CATALOG))
    assert not covers(upgrade_card, asked)
    assert covers(card_subjects(CARDS.card("mfu"), CATALOG), asked)


# --- answers -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("message", [
    "We measure 41% MFU on 256 H100s for a 34B model. Healthy or poor?",
    "256张H100训练34B模型，MFU 41%，这个水平怎么样？",
])  # fmt: skip
def test_an_efficiency_question_is_never_answered_by_a_card_on_another_topic(offline_advisor, message):
    response = offline_advisor.answer(message, [])
    for card_id in set(served_cards(response)):
        assert "mfu" in card_subjects(CARDS.card(card_id), CATALOG).get("topic", ()), (card_id, response.summary[:200])


@pytest.mark.parametrize(("message", "verdict", "buyable_words"), [
    ("Could we ship a rack of A100 servers to a colocation site in Hangzhou?", "No", "Buyable in mainland China instead"),
    ("能把一机柜A100服务器运到杭州的托管机房吗？", "不能", "国内可买的替代"),
])  # fmt: skip
def test_a_compliance_question_leads_with_the_named_cards_status(offline_advisor, message, verdict, buyable_words):
    response = offline_advisor.answer(message, [])
    first = _first_sentence(response.summary)
    assert first.startswith(verdict) and "A100" in first
    assert "3A090" in response.summary and "2023-11-17" in response.summary  # the rule, dated
    offered = next(line for line in response.summary.split("\n") if buyable_words in line)
    names = {gpu.name: gpu for gpu in CATALOG.gpus}
    listed = [name for name in names if name in offered]
    assert listed and all(names[name].china in CHINA_BUYABLE for name in listed)
    assert not set(served_cards(response)) - {card.id for card in CARDS.cards if "export" in card_subjects(card, CATALOG).get("topic", ())}


@pytest.mark.parametrize(("message", "unit"), [
    ("For Qwen2.5-7B, what does a million tokens cost on an L40S compared with an A100?", "per million output tokens"),
    ("Qwen2.5-7B跑在L40S和A100上，每百万token成本各是多少？", "每百万输出 token"),
])  # fmt: skip
def test_a_per_token_comparison_leads_with_each_cards_cost_per_token(offline_advisor, message, unit):
    response = offline_advisor.answer(message, [])
    first = _first_sentence(response.summary)
    assert unit in first and "L40S" in first and "A100" in first and "Qwen2.5-7B" in first
    assert not set(served_cards(response))
    speeds = [call for call in response.tool_calls if call.name == "estimate_throughput"]
    assert speeds and max(call.args.get("batch") or 1 for call in speeds) > 1  # priced at load, not one request at a time


def test_cost_per_token_is_the_hourly_price_over_the_tokens_of_an_hour():
    cost = token_cost(TokenCostRequest(price_per_gpu_hour=2.0, gpus=4, output_tokens_per_s=1000))
    assert cost.tokens_per_hour == 3_600_000
    assert cost.per_million_tokens == pytest.approx(8.0 / 3.6)


@pytest.mark.parametrize("message", [
    "Buy A100s today, go for H100s, or hold out for B200?",
    "今天就买A100，还是买H100，还是等B200？",
])  # fmt: skip
def test_a_question_weighing_several_cards_answers_each_of_them(offline_advisor, message):
    response = offline_advisor.answer(message, [])
    lead = response.summary.split("|")[0]  # the verdict, above the table
    for name in ("A100", "H100", "B200"):
        assert name in lead, (name, lead[:300])
    for card_id in set(served_cards(response)):
        about = card_subjects(CARDS.card(card_id), CATALOG).get("gpu", frozenset())
        assert {"a100", "h100", "b200"} <= about, card_id


# --- a measured efficiency, judged for its setup --------------------------------------------------------------


def test_a_measured_mfu_is_judged_against_its_gpu_class_and_scale():
    from tools.cost.mfu_verdict import MfuJudgementRequest, judge_mfu

    typical = judge_mfu(MfuJudgementRequest(mfu=0.40, gpu="H100", num_gpus=256), CATALOG)
    assert typical.verdict == "typical" and typical.gpu_class == "nvidia-linked"
    assert judge_mfu(MfuJudgementRequest(mfu=typical.typical - typical.band - 0.01, gpu="H100", num_gpus=256), CATALOG).verdict == "below"
    assert judge_mfu(MfuJudgementRequest(mfu=typical.typical + typical.band + 0.01, gpu="H100", num_gpus=256), CATALOG).verdict == "above"


@pytest.mark.parametrize(("message", "verdict_words", "figure"), [
    ("Pretraining on 256 H100s we measure 41% MFU; is that healthy?", "normal", "41%"),
    ("256张H100预训练，实测MFU 41%，这个水平算正常吗？", "正常", "41%"),
    ("Only 21% MFU on 128 A100s for our fine-tune. Where does the time go?", "below", "21%"),
    ("128张A100微调，MFU才21%，时间花在哪了？", "低于", "21%"),
])  # fmt: skip
def test_a_stated_mfu_gets_a_verdict_for_its_setup_first(offline_advisor, message, verdict_words, figure):
    response = offline_advisor.answer(message, [])
    first = _first_sentence(response.summary)
    assert verdict_words in first and figure in first, first
    for card_id in set(served_cards(response)):
        assert "mfu" in card_subjects(CARDS.card(card_id), CATALOG).get("topic", ()), card_id


# --- a named comparison leads with the figures -----------------------------------------------------------------


@pytest.mark.parametrize(("message", "unit"), [
    ("Serving Qwen2.5-72B: does the cheaper H20 outrun an H100?", "tokens/s per user"),
    ("跑Qwen2.5-72B推理，便宜点的H20能跑赢H100吗？", "token/s"),
])  # fmt: skip
def test_a_named_comparison_leads_with_each_cards_speed_for_the_model(offline_advisor, message, unit):
    response = offline_advisor.answer(message, [])
    first = _first_sentence(response.summary)
    assert "H20" in first and "H100" in first and "Qwen2.5-72B" in first and unit in first, first
    timed = {call.args["gpu"] for call in response.tool_calls if call.name == "estimate_throughput"}
    assert timed == {"h20", "h100-sxm"}
    assert not set(served_cards(response))
