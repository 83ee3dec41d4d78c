"""Laws of the cost tools over random inputs: rent-vs-buy break-even and training time/cost scaling."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from tools.cost.tco import TcoRequest, compute_tco
from tools.cost.training_time import MAX_GPUS, TrainingTimeRequest, estimate_training_time

catalog = load_catalog()
laws = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TCO_GPUS = [g.id for g in catalog.gpus if g.purchase_price and g.cloud_price and g.tdp_w]
TRAINING_GPUS = [g.id for g in catalog.gpus if g.bf16_tflops]
percent = st.floats(1, 100)


@st.composite
def tco_requests(draw) -> dict:
    """A rent-vs-buy question with every assumption drawn; the cloud price and utilisation are varied by the tests."""
    return {
        "gpu": draw(st.sampled_from(TCO_GPUS)),
        "gpus_per_server": draw(st.sampled_from([1, 2, 4, 8])),
        "servers": draw(st.integers(1, 64)),
        "network_overhead_pct": draw(st.floats(0, 30)),
        "lifetime_years": draw(st.floats(1, 8)),
        "residual_value_pct": draw(st.floats(0, 50)),
        "load_factor_pct": draw(st.floats(30, 100)),
        "pue": draw(st.floats(1, 2)),
        "electricity_price": draw(st.floats(0, 0.5)),
        "colo_price_per_kw_month": draw(st.floats(0, 400)),
        "maintenance_pct_per_year": draw(st.floats(0, 15)),
        "staff_cost_per_month": draw(st.floats(0, 20_000)),
        "cloud_discount_pct": draw(st.floats(0, 80)),
        "currency": draw(st.sampled_from(["USD", "CNY"])),
    }


def break_even(**kw) -> float:
    """First month owning wins, with 'never within the lifetime' as +inf so months compare."""
    month = compute_tco(TcoRequest(**kw), catalog).break_even_month
    return math.inf if month is None else month


@laws
@given(tco_requests(), percent, st.floats(0.05, 50), st.floats(0.05, 50))
def test_break_even_comes_no_later_when_the_cloud_costs_more(request, utilisation, p1, p2):
    cheap, dear = sorted((p1, p2))
    kw = {**request, "utilisation_pct": utilisation}
    assert break_even(**kw, cloud_price_per_gpu_hour=dear) <= break_even(**kw, cloud_price_per_gpu_hour=cheap)


@laws
@given(tco_requests(), st.floats(0.05, 50), percent, percent)
def test_break_even_comes_no_later_at_higher_utilisation(request, price, u1, u2):
    low, high = sorted((u1, u2))
    kw = {**request, "cloud_price_per_gpu_hour": price}
    assert break_even(**kw, utilisation_pct=high) <= break_even(**kw, utilisation_pct=low)
    busy = compute_tco(TcoRequest(**kw, hours_per_month=high / 100 * 730), catalog).break_even_month
    assert (math.inf if busy is None else busy) == break_even(**kw, utilisation_pct=high)  # hours are utilisation too


@st.composite
def training_runs(draw) -> dict:
    """A training run at a fixed MFU and price, so only the quantity under test moves the answer."""
    return {
        "model": draw(st.sampled_from(["llama-3.1-8b", "qwen2.5-72b", "mixtral-8x7b", "deepseek-v3", "7B", "405B"])),
        "gpu": draw(st.sampled_from(TRAINING_GPUS)),
        "tokens": draw(st.floats(1e8, 1e12)),
        "num_gpus": draw(st.integers(1, 50_000)),
        "mfu": draw(st.floats(0.05, 0.7)),
        "recompute": draw(st.sampled_from(["none", "selective", "full"])),
        "price_per_gpu_hour": draw(st.floats(0.01, 20)),
        "currency": draw(st.sampled_from(["USD", "CNY"])),
        "pue": draw(st.floats(1, 2)),
    }


def train(**kw):
    return estimate_training_time(TrainingTimeRequest(**kw), catalog)


@laws
@given(training_runs())
def test_doubling_gpus_halves_wall_clock_at_fixed_mfu(run):
    single, double = train(**run), train(**{**run, "num_gpus": run["num_gpus"] * 2})
    assert double.wall_clock_days == pytest.approx(single.wall_clock_days / 2, rel=1e-9)
    assert double.gpu_hours == pytest.approx(single.gpu_hours, rel=1e-9)
    assert double.cost == pytest.approx(single.cost, rel=1e-9)


@laws
@given(training_runs(), st.floats(1, 1000))
def test_cost_energy_and_time_scale_with_tokens(run, factor):
    assume(run["tokens"] * factor <= 1e15)
    base, scaled = train(**run), train(**{**run, "tokens": run["tokens"] * factor})
    assert scaled.cost == pytest.approx(base.cost * factor, rel=1e-9)
    assert scaled.total_flops == pytest.approx(base.total_flops * factor, rel=1e-9)
    assert scaled.wall_clock_days == pytest.approx(base.wall_clock_days * factor, rel=1e-9)
    if base.energy_kwh is not None:
        assert scaled.energy_kwh == pytest.approx(base.energy_kwh * factor, rel=1e-9)


@laws
@given(training_runs(), st.floats(0.5, 365))
def test_deadline_mode_returns_the_fewest_gpus_that_make_it(run, deadline):
    kw = {k: v for k, v in run.items() if k != "num_gpus"}
    try:
        planned = train(**kw, deadline_days=deadline)
    except AdvisorError as error:  # only when even the largest allowed cluster is too slow
        assert error.code == "deadline_infeasible"
        assert train(**kw, num_gpus=MAX_GPUS).wall_clock_days > deadline
        return
    assert planned.gpus_derived_from_deadline and planned.meets_deadline
    assert planned.wall_clock_days <= deadline * (1 + 1e-9)
    if planned.num_gpus > 1:
        assert train(**kw, num_gpus=planned.num_gpus - 1).wall_clock_days > deadline
