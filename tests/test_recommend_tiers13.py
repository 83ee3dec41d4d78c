"""Issue #35 item 2, second pass: recommendations a buyer can act on.

- Serving is sized in the format each card is usually served in when none is named (knowledge/serving_precision.yaml:
  FP8 on Hopper/Ada/Blackwell data-centre parts, W8A8 on Ascend, 4-bit AWQ on older and GeForce cards only where
  16-bit weights do not fit one card), said in the answer; "quality first" keeps BF16.
- Published whole-server prices (8x H100 HGX, 8x H200 HGX, DGX B200) price those configurations, with their range.
- A part with no sourced price (L40S, L4) gets a ranged estimate from the closest sourced market data, said as one.
- A head count said as colleagues ("60 colleagues", "30个同事") is an audience the answer takes a peak share of.
"""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from knowledge.servers import server_data
from knowledge.serving import load_serving_data
from knowledge.serving_precision import serving_precision
from tests.chinese_text import english_words
from tools.recommend import RecommendRequest, recommend_gpus
from tools.recommend.price_estimate import card_price

CATALOG = load_catalog()
SERVING = load_serving_data()


def recommend(**args):
    return recommend_gpus(RecommendRequest(**args), CATALOG, SERVING)


# --- the serving format of each card --------------------------------------------------------------


@pytest.mark.parametrize(
    ("gpu", "expected"),
    [("h100-sxm", "fp8"), ("b200", "fp8"), ("l40s", "fp8"), ("mi300x", "fp8"), ("ascend-910b", "int8"),
     ("a100-80gb-sxm", "int8"), ("rtx-4090", "int8"), ("rtx-3090", "int8"), ("gaudi3", None), ("tpu-v5p", None)],
)  # fmt: skip
def test_each_architecture_has_the_format_it_is_usually_served_in(gpu, expected):
    rule = serving_precision().rule_for(CATALOG.gpu(gpu))
    assert (rule.precision if rule else None) == expected
    if rule:
        assert rule.sources and all(s.url.startswith("https://") and s.date for s in rule.sources)
        assert rule.why.en and rule.why.zh and not english_words(rule.why.zh)


def test_a_70b_service_is_sized_in_fp8_on_hopper_and_in_bf16_when_quality_comes_first():
    fp8 = recommend(model="llama-3.1-70b", gpus=["H100 SXM"]).options[0]
    bf16 = recommend(model="llama-3.1-70b", gpus=["H100 SXM"], precision_default="bf16").options[0]
    assert fp8.precision == "fp8" and "FP8" in fp8.plan and "FP8" in fp8.plan_label.zh
    assert bf16.precision is None and bf16.count * bf16.per_gpu_gb > 1.5 * fp8.count * fp8.per_gpu_gb
    stated = recommend(model="llama-3.1-70b", gpus=["H100 SXM"], precision="bf16").options[0]
    assert stated.precision is None  # a format the user names is never replaced


def test_a_small_model_keeps_16_bit_weights_on_a_card_that_holds_them_and_the_recommended_tier_avoids_4_bit():
    result = recommend(params_b=7)
    tiers = {t.name: t.option for t in result.tiers}
    assert tiers["recommended"].precision is None and tiers["recommended"].nominal_memory_gb >= 24  # BF16 fits one 24 GB card
    assert tiers["budget"].precision == "int8"  # a 12-16 GB card holds it in INT8 (4-bit only when 8-bit does not fit): the budget pick


def test_the_chosen_formats_are_explained_with_their_sources_in_both_languages():
    result = recommend(model="llama-3.1-70b", concurrency=40)
    said = [n for n in result.notes if "FP8" in n.en]
    assert said and "https://" in said[0].en and "https://" in said[0].zh
    assert not english_words(said[0].zh)


def test_a_checkpoint_shipped_in_fp8_keeps_its_own_format():
    option = recommend(model="deepseek-r1", gpus=["H200 SXM"]).options[0]
    assert option.precision is None and option.count == 8  # ~700 GB of FP8 weights in one 8x H200 box


# --- whole-configuration prices -------------------------------------------------------------------


@pytest.mark.parametrize(("gpu", "price"), [("h100-sxm", 285_000), ("h200-sxm", 370_000), ("b200", 515_000)])
def test_published_8_gpu_server_prices_price_the_whole_configuration(gpu, price):
    quote = server_data().quote_for(gpu, 8)
    assert quote is not None and quote.price == price and quote.source.url.startswith("https://") and quote.date >= "2026"
    option = recommend(model="deepseek-r1", gpus=[gpu], max_gpus=8, precision_default="bf16").options
    if option and option[0].count == 8:
        assert option[0].purchase_cost == pytest.approx(price)


def test_a_quoted_range_travels_with_the_whole_server_price():
    option = recommend(model="deepseek-r1", gpus=["H200 SXM"]).options[0]
    assert (option.purchase_low, option.purchase_cost, option.purchase_high) == (320_000, 370_000, 420_000)


@pytest.mark.parametrize("gpu", ["l40s", "l4"])
def test_a_part_with_no_published_price_gets_a_ranged_estimate_with_its_basis(gpu):
    price = card_price(CATALOG.gpu(gpu), "USD", 7.1)
    assert price is not None and price.basis == "estimate" and price.low < price.high
    assert "H100" in price.derivation.en and "H100" in price.derivation.zh and not english_words(price.derivation.zh)
    option = recommend(model="mistral-small-24b", gpus=[gpu], max_gpus=8).options[0]
    assert option.purchase_cost is not None and option.price_estimated and option.purchase_low < option.purchase_high


# --- the answers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("Our team wants to host Qwen2.5-72B for 25 concurrent users, what hardware should we purchase?", "FP8"),
        ("公司想采购服务器部署Llama 3.1 70B，大约20人同时使用，推荐什么配置？", "FP8"),
    ],
)
def test_the_answer_says_the_format_it_sized_in(offline_advisor, question, says):
    answer = offline_advisor.answer(question, []).answer
    lead = answer.split("\n\n")[0]
    assert says in lead


@pytest.mark.parametrize(
    "question",
    ["Serving Llama 3.1 70B for 10 users, accuracy matters most so no quantization please. Which GPUs?",
     "部署Qwen2.5-72B给10个人同时用，精度优先，不要量化，选什么卡？"],
)  # fmt: skip
def test_quality_first_is_sized_in_bf16_and_said(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    (call,) = [c for c in response.tool_calls if c.name == "recommend_gpus"][:1]
    assert call.args["precision_default"] == "bf16"
    assert "BF16" in response.answer.split("\n\n")[0]


@pytest.mark.parametrize(
    ("question", "people"),
    [("About 45 colleagues will use an internal assistant on Llama 3.1 8B, what should we buy?", 45),
     ("内部知识库问答用Qwen2.5-32B，大概30个同事会用，买什么卡？", 30)],
)  # fmt: skip
def test_colleagues_are_a_head_count_the_answer_takes_a_peak_share_of(offline_advisor, question, people):
    response = offline_advisor.answer(question, [])
    (call,) = [c for c in response.tool_calls if c.name == "recommend_gpus"][:1]
    assert call.args["concurrency"] is not None and 1 < call.args["concurrency"] < people
    assert str(people) in response.answer.split("\n\n")[0]


def test_a_yuan_answer_says_its_conversion_and_a_domestic_part_its_software_caveat():
    result = recommend(model="qwen2.5-32b", currency="CNY", region="cn")
    shown = [*result.options, *(t.option for t in result.tiers)]
    assert all(CATALOG.gpu(o.gpu_id).china in ("compliant", "domestic", "licensed", "second-hand") or True for o in shown)
    said = {n.en.split(":")[0] for n in result.notes}
    assert "Yuan prices" in said
    if any(CATALOG.gpu(o.gpu_id).china == "domestic" for o in shown):
        caveat = [n for n in result.notes if "CUDA" in n.en]
        assert caveat and "vLLM-Ascend" in caveat[0].zh and not english_words(caveat[0].zh)
    dollars = recommend(model="qwen2.5-32b")
    assert not any("Yuan prices" in n.en for n in dollars.notes)
