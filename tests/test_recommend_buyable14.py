"""Issue #35 class 4 (recommend14): every tier is a configuration a buyer can order (the counts the part ships in),
within the stated budget, and a list of barred parts appears only where one of them would otherwise have been offered;
the weight format a card is served in when none is named comes from one function the recommender reads."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from knowledge.serving_precision import serving_precision
from tools.recommend import CHINA_BUYABLE, RecommendRequest, recommend_gpus
from tools.recommend.configs import sold_counts

CATALOG = load_catalog()
SERVING = load_serving_data()


def recommend(**args):
    return recommend_gpus(RecommendRequest(**args), CATALOG, SERVING)


def _named(lines, gpus):
    """The catalog parts a list of notes names."""
    return {g.id for g in gpus for line in lines if re.search(re.escape(g.name) + r"(?![\w])", line.en)}


# --- the tool ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model, budget, currency", [("llama-3.1-70b", 400_000, "USD"), ("deepseek-v3", 600_000, "USD"), ("qwen2.5-72b", 2_000_000, "CNY")])
def test_every_tier_is_a_count_the_part_is_sold_in_and_within_the_budget(model, budget, currency):
    result = recommend(model=model, budget=budget, currency=currency, concurrency=20)
    assert result.tiers
    for tier in result.tiers:
        gpu = CATALOG.gpu(tier.option.gpu_id)
        assert tier.option.count in sold_counts(gpu, 512), (tier.name, gpu.id, tier.option.count)
        assert tier.option.purchase_cost is not None and tier.option.purchase_cost <= budget
        assert tier.option.server_class is not None  # priced as a whole configuration: the server around the cards


def test_oam_platforms_are_sold_as_eight_gpu_boards():
    # an MI300X or Gaudi 3 is bought on an 8-GPU baseboard: a "4-GPU OAM board" is no configuration anyone sells
    for gpu_id in ("mi300x", "mi325x", "gaudi3"):
        assert sold_counts(CATALOG.gpu(gpu_id), 8) == [8], gpu_id
    result = recommend(model="deepseek-v3", budget=600_000, currency="USD", top=10)
    assert all(o.count % 8 == 0 for o in result.options if o.gpu_id.startswith("mi3"))


def test_a_mainland_buyer_hears_only_of_barred_parts_that_would_otherwise_have_been_offered():
    result = recommend(model="qwen2.5-32b", budget=500_000, currency="CNY")
    offered = [t.option for t in result.tiers] + result.options
    assert offered and all(CATALOG.gpu(o.gpu_id).china in CHINA_BUYABLE for o in offered)
    barred_lines = [x for x in result.excluded if "mainland China" in x.en]
    named = _named(barred_lines, CATALOG.gpus)
    assert len(named) <= 3, named  # not the catalog's whole barred list
    assert not {"b300", "gb300", "gb200", "b200"} & named  # racks and flagships never in reach of the job or budget
    every = recommend(model="qwen2.5-32b", budget=500_000 / 7.2, currency="USD", region="global")
    assert named <= {o.gpu_id for o in every.options} | {t.option.gpu_id for t in every.tiers}


def test_a_buyer_outside_china_gets_no_list_of_china_market_parts_nor_an_export_note():
    result = recommend(model="llama-3.1-70b", budget=400_000, currency="USD", concurrency=20)
    assert not any("mainland China" in x.en for x in result.excluded), [x.en for x in result.excluded]
    assert not any("mainland China" in r.en for o in result.options for r in o.reasons)


def test_one_default_serving_format_per_card():
    rules = serving_precision()
    h100, rtx4090, a100 = (CATALOG.gpu(g) for g in ("h100-sxm", "rtx-4090", "a100-80gb-sxm"))
    assert rules.default_for(h100, fits=True).precision == "fp8"  # always: the FP8 tensor cores
    assert rules.default_for(rtx4090, fits=True) is None  # 16-bit weights that fit are served as they are
    assert rules.default_for(rtx4090, fits=False).precision == "awq-int4"
    assert rules.default_for(a100, fits=False).precision == "awq-int4"


def test_h20_decode_ranks_by_its_effective_bandwidth_and_prefill_by_its_compute():
    """serving-throughput.md: decode is bandwidth-bound, and every SGLang run on H20 implies 1.4-1.8 TB/s of its 4.0 TB/s
    spec (knowledge/serving.yaml calibrates it so); prefill is compute-bound, where H20's 148 TFLOPS trails an A100."""
    from tools.serving.estimator import estimate_figures
    from tools.serving.schema import ThroughputRequest

    def run(gpu):
        return estimate_figures(ThroughputRequest(model="llama-3.1-8b", gpu=gpu, num_gpus=1, batch=1, engine="sglang"), CATALOG, SERVING)

    h100, h20, a100, l20 = (run(g) for g in ("h100-sxm", "h20", "a100-80gb-sxm", "l20"))
    decode = [r.tokens_per_s_per_user_streaming for r in (h100, h20, l20)]
    assert decode == sorted(decode, reverse=True)  # H100 (3.35 TB/s) > H20 (≈1.6 effective) > L20 (0.86)
    implied = h20.tokens_per_s_per_user_streaming * 16.06e9  # bytes of Llama-3.1-8B BF16 weights read per token
    assert 1.2e12 <= implied <= 1.9e12, implied
    assert h20.ttft_ms > a100.ttft_ms > h100.ttft_ms  # prefill by compute: 148 < 312 < 989 TFLOPS


# --- the answer, in both languages ------------------------------------------------------------------------


def test_a_yuan_budget_answer_names_no_list_of_barred_parts_zh(offline_advisor):
    response = offline_advisor.answer("公司在杭州，预算60万元，想本地跑一个32B模型给研发用，买什么配置合适？")
    assert response.language == "zh"
    assert response.answer.count("买不到新卡") <= 2, response.answer
    assert "GB300" not in response.answer and "B300" not in response.answer
    assert "约" in response.answer.split("\n\n")[0]  # a priced verdict first


def test_a_dollar_budget_answer_has_no_china_clutter_en(offline_advisor):
    response = offline_advisor.answer("We can spend about $350k on hardware to host Llama 3.1 70B for 150 employees. What do we buy?")
    assert response.language == "en"
    assert "mainland China" not in response.answer, response.answer
    assert "Ascend" not in response.answer
