"""Training-time estimator: public anchors, recompute/precision/MoE rules, deadline mode, bad input."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from tests.cost_catalog import small_catalog
from tools.cost.mfu import FP8_MFU_FACTOR, MFU_TABLE
from tools.cost.training_time import TrainingTimeRequest, estimate_training_time

CATALOG = small_catalog()
CJK = re.compile(r"[\u4e00-\u9fff]")


def run(catalog=CATALOG, **fields):
    return estimate_training_time(TrainingTimeRequest(**fields), catalog)


def shipped_catalog():
    return load_catalog()  # a catalog that does not load is a failure, not a reason to skip


# Public anchors. Default MFU used for all three: 0.42 ("nvidia-linked" row, 1–8,192 GPUs) on A100-80GB
# at 312 dense BF16 TFLOPS. Llama 2 paper (Table 2): 184,320 and 1,720,320 A100-80GB GPU-hours for
# 7B and 70B on 2T tokens. LLaMA paper: 65B on 1.4T tokens took ~21 days on 2,048 A100-80GB.
ANCHOR_MFU = 0.42


@pytest.mark.parametrize("catalog_source", ["small", "shipped"])
@pytest.mark.parametrize(
    ("model", "reported_gpu_hours"), [("llama-2-7b", 184_320), ("llama-2-70b", 1_720_320)]
)
def test_llama2_gpu_hours_within_20_percent(catalog_source, model, reported_gpu_hours):
    catalog = CATALOG if catalog_source == "small" else shipped_catalog()
    result = run(catalog, model=model, tokens=2e12, gpu="a100-80gb-sxm", num_gpus=2048)
    assert result.mfu_source == "default" and result.mfu == pytest.approx(ANCHOR_MFU)
    assert result.gpu_hours == pytest.approx(reported_gpu_hours, rel=0.20)


def test_llama_65b_days_within_20_percent():
    result = run(params_b=65.2, tokens=1.4e12, gpu="A100 80G", num_gpus=2048)
    assert result.mfu == pytest.approx(ANCHOR_MFU)
    assert result.wall_clock_days == pytest.approx(21, rel=0.20)
    # and the arithmetic is the stated one: 6·N·D / (GPUs × peak × MFU)
    expected_seconds = 6 * 65.2e9 * 1.4e12 / (2048 * 312e12 * ANCHOR_MFU)
    assert result.wall_clock_days == pytest.approx(expected_seconds / 86_400, rel=1e-9)


def test_result_always_shows_the_mfu_table_and_formulas():
    result = run(params_b=7, tokens=1e11, gpu="h100-sxm", num_gpus=8)
    assert result.mfu_table == MFU_TABLE
    assert result.mfu_row is not None and result.mfu_row.gpu_class == "nvidia-linked"
    keys = {item.key for item in result.items}
    assert {"training_flops", "mfu", "gpu_hours", "wall_clock_days", "energy", "cost"} <= keys
    assert all(item.formula for item in result.items)


def test_recompute_adds_flops():
    base = dict(params_b=7, tokens=1e12, gpu="h100-sxm", num_gpus=64)
    none, selective, full = (run(**base, recompute=r).gpu_hours for r in ("none", "selective", "full"))
    assert full == pytest.approx(none * 8 / 6)
    assert none < selective < full


def test_lora_skips_weight_gradients_and_qlora_pays_for_dequantising():
    full = run(params_b=8, tokens=1e9, gpu="a100-80gb", num_gpus=1)
    lora = run(params_b=8, tokens=1e9, gpu="a100-80gb", num_gpus=1, method="lora")
    qlora = run(params_b=8, tokens=1e9, gpu="a100-80gb", num_gpus=1, method="qlora")
    assert lora.total_flops == pytest.approx(full.total_flops * 4 / 6) and qlora.total_flops == lora.total_flops
    assert qlora.gpu_hours == pytest.approx(lora.gpu_hours * 1.39)
    hours = next(item for item in qlora.items if item.key == "gpu_hours")
    assert "× 1.39 (QLoRA de-quantisation, measured)" in hours.formula and "QLoRA 反量化开销" in hours.formula_zh
    checkpointed = run(params_b=8, tokens=1e9, gpu="a100-80gb", num_gpus=1, method="lora", recompute="full")
    assert checkpointed.total_flops == pytest.approx(full.total_flops)  # 4 + a second forward pass of 2


def test_fp8_uses_fp8_peak_with_reduced_mfu():
    base = dict(params_b=70, tokens=1e12, gpu="h100-sxm", num_gpus=512)
    bf16, fp8 = run(**base), run(**base, precision="fp8")
    assert fp8.peak_tflops == 1979 and fp8.mfu == pytest.approx(bf16.mfu * FP8_MFU_FACTOR)
    assert bf16.gpu_hours / fp8.gpu_hours == pytest.approx(1979 / 989.5 * FP8_MFU_FACTOR)


def test_fp8_on_a100_is_refused():
    with pytest.raises(AdvisorError) as err:
        run(params_b=7, tokens=1e12, gpu="a100-80gb-sxm", num_gpus=8, precision="fp8")
    assert err.value.code == "fp8_unsupported" and "bf16" in err.value.suggestions


def test_moe_uses_active_parameters_and_warns():
    result = run(model="mixtral-8x7b", tokens=1e12, gpu="h100-sxm", num_gpus=64)
    assert result.params_b == 12.9
    assert result.total_flops == pytest.approx(6 * 12.9e9 * 1e12)
    assert any("MoE" in w.en and CJK.search(w.zh) for w in result.warnings)


def test_mfu_class_and_scale_rows():
    tokens = dict(params_b=7, tokens=1e12)
    assert run(**tokens, gpu="h100-sxm", num_gpus=16_384).mfu == 0.40  # Llama-3 16k-GPU row
    assert run(**tokens, gpu="l40s", num_gpus=8).mfu_row.gpu_class == "pcie-only"
    assert run(**tokens, gpu="l40s", num_gpus=64).mfu < run(**tokens, gpu="l40s", num_gpus=8).mfu
    assert run(**tokens, gpu="rtx-4090", num_gpus=4).mfu_row.gpu_class == "consumer"
    assert run(**tokens, gpu="mi300x", num_gpus=8).mfu_row.gpu_class == "non-nvidia"


def test_user_mfu_overrides_table():
    result = run(params_b=7, tokens=1e12, gpu="h100-sxm", num_gpus=8, mfu=0.5)
    assert result.mfu == 0.5 and result.mfu_source == "user" and result.mfu_row is None


def test_energy_and_cost_follow_their_formulas():
    result = run(params_b=7, tokens=1e12, gpu="h100-sxm", num_gpus=8, pue=1.2)
    assert result.energy_kwh == pytest.approx(0.7 * result.gpu_hours * 1.2)
    assert result.price_per_gpu_hour == 6.88 and result.cost == pytest.approx(result.gpu_hours * 6.88)
    cny = run(params_b=7, tokens=1e12, gpu="h100-sxm", num_gpus=8, pue=1.2, currency="人民币", usd_to_cny=7.0)
    assert cny.currency == "CNY" and cny.cost == pytest.approx(result.cost * 7.0)
    given = run(params_b=7, tokens=1e12, gpu="h100-sxm", num_gpus=8, price_per_gpu_hour=2.0)
    assert given.cost == pytest.approx(given.gpu_hours * 2.0)


def test_missing_cloud_price_gives_no_cost_and_says_so():
    result = run(params_b=7, tokens=1e11, gpu="l40s", num_gpus=8)
    assert result.cost is None and any("price per GPU-hour" in w.en and "每卡时价格" in w.zh for w in result.warnings)


def test_deadline_mode_returns_the_smallest_sufficient_gpu_count():
    base = dict(params_b=65.2, tokens=1.4e12, gpu="a100-80gb-sxm")
    result = run(**base, deadline_days=21)
    assert result.gpus_derived_from_deadline and result.meets_deadline
    assert result.wall_clock_days <= 21
    assert run(**base, num_gpus=result.num_gpus - 1).wall_clock_days > 21
    # forward mode with both inputs just reports whether the deadline holds
    late = run(**base, num_gpus=1024, deadline_days=21)
    assert late.meets_deadline is False and any("deadline" in w.en for w in late.warnings)


def test_deadline_mode_accounts_for_lower_mfu_at_scale():
    result = run(params_b=405, tokens=15e12, gpu="h100-sxm", deadline_days=60)
    assert result.num_gpus > 8192 and result.mfu == 0.40
    assert result.wall_clock_days <= 60
    assert run(params_b=405, tokens=15e12, gpu="h100-sxm", num_gpus=result.num_gpus - 1).wall_clock_days > 60


def test_inference_only_device_warns():
    result = run(params_b=1, tokens=1e9, gpu="apple-m4-max", num_gpus=1, peak_tflops=30)
    assert any("inference" in w.en for w in result.warnings)


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        (dict(num_gpus=0), "invalid_gpu_count"),
        (dict(num_gpus=1_000_000_000), "invalid_gpu_count"),
        (dict(num_gpus=8, price_per_gpu_hour=-1), "invalid_price"),
        (dict(num_gpus=8, tokens=0), "invalid_tokens"),
        (dict(num_gpus=8, tokens=1e20), "invalid_tokens"),
        (dict(num_gpus=8, currency="EUR"), "unknown_currency"),
        (dict(num_gpus=8, mfu=1.5), "invalid_mfu"),
        (dict(num_gpus=8, pue=0.5), "invalid_pue"),
        (dict(num_gpus=8, params_b=-7), "invalid_params"),
        (dict(num_gpus=8, tokens=float("nan")), "invalid_tokens"),
        (dict(), "missing_gpus_or_deadline"),
        (dict(deadline_days=-3), "invalid_deadline"),
        (dict(deadline_days=1e-6, tokens=1e15, params_b=1000), "deadline_infeasible"),
        (dict(num_gpus=8, gpu="H1OO-typo"), "unknown_gpu"),
    ],
)
def test_bad_input_is_a_bilingual_advisor_error(fields, code):
    request = {"params_b": 7, "tokens": 1e12, "gpu": "h100-sxm", **fields}
    with pytest.raises(AdvisorError) as err:
        run(**request)
    assert err.value.code == code
    assert err.value.en and CJK.search(err.value.zh)


def test_tokens_may_be_written_as_users_type_them():
    assert run(params_b=7, tokens="2T", gpu="h100-sxm", num_gpus=8).tokens == 2e12
    assert run(params_b=7, tokens="1.4万亿", gpu="h100-sxm", num_gpus=8).tokens == 1.4e12


def test_model_or_params_required():
    with pytest.raises(AdvisorError) as err:
        run(tokens=1e12, gpu="h100-sxm", num_gpus=8)
    assert err.value.code == "missing_model"


def test_every_shipped_gpu_answers_or_refuses_cleanly():
    catalog = shipped_catalog()
    for gpu in catalog.gpus:
        for precision in ("bf16", "fp8"):
            try:
                result = run(catalog, params_b=7, tokens=1e11, gpu=gpu.id, num_gpus=8, precision=precision)
            except AdvisorError as exc:
                assert exc.code in {"fp8_unsupported", "no_peak_tflops"}, (gpu.id, exc.code)
            else:
                assert result.wall_clock_days > 0
                assert (result.energy_kwh is None) == (gpu.tdp_w is None)


@settings(max_examples=60, deadline=None)
@given(
    tokens=st.floats(1e9, 1e14),
    params_b=st.floats(0.1, 2000),
    days=st.floats(0.5, 365),
    gpu=st.sampled_from(["h100-sxm", "a100-80gb-sxm", "l40s", "rtx-4090", "mi300x"]),
)
def test_property_deadline_answer_is_minimal(tokens, params_b, days, gpu):
    try:
        result = run(params_b=params_b, tokens=tokens, gpu=gpu, deadline_days=days)
    except AdvisorError as exc:
        assert exc.code == "deadline_infeasible"
        return
    assert result.wall_clock_days <= days * (1 + 1e-9)
    if result.num_gpus > 1:
        assert run(params_b=params_b, tokens=tokens, gpu=gpu, num_gpus=result.num_gpus - 1).wall_clock_days > days


@settings(max_examples=60, deadline=None)
@given(tokens=st.floats(1e9, 1e14), factor=st.floats(1.01, 100))
def test_property_gpu_hours_scale_with_tokens(tokens, factor):
    small = run(params_b=7, tokens=tokens, gpu="h100-sxm", num_gpus=64)
    big = run(params_b=7, tokens=min(tokens * factor, 1e15), gpu="h100-sxm", num_gpus=64)
    assert big.gpu_hours / small.gpu_hours == pytest.approx(min(tokens * factor, 1e15) / tokens)
