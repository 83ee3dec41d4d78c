"""Renting one card or another: each bill is GPUs × price × (1 − discount) × hours used × months."""

from __future__ import annotations

import pytest

from advisor.deps import shared_registry
from knowledge.bilingual import AdvisorError
from tools.cost.rentals import RentalOption, RentalRequest, compare_rentals


def test_each_bill_is_price_times_hours_and_the_cheapest_is_named():
    result = compare_rentals(RentalRequest(
        options=[RentalOption(name="L4", price_per_gpu_hour=0.8), RentalOption(name="A10G", gpus=2, price_per_gpu_hour=1.0)],
        months=6, utilisation_pct=50, discount_pct=25,
    ))  # fmt: skip
    l4, a10g = result.rows
    assert l4.monthly == pytest.approx(0.8 * 0.75 * 365)  # 730 h a month, half of them
    assert a10g.total == pytest.approx(2 * 1.0 * 0.75 * 365 * 6)
    assert result.cheapest == "L4" and result.saving_vs_next == pytest.approx(a10g.total - l4.total)
    assert "(1 − 25%)" in l4.formula and "× 6 months" in l4.formula


@pytest.mark.parametrize("change", [{"months": 0}, {"utilisation_pct": 150}, {"discount_pct": 100}, {"currency": "EUR"}])
def test_impossible_inputs_are_bilingual_errors(change):
    options = [RentalOption(name="a", price_per_gpu_hour=1), RentalOption(name="b", price_per_gpu_hour=2)]
    with pytest.raises(AdvisorError):
        compare_rentals(RentalRequest(options=options, **change))


def test_one_option_is_no_comparison_through_the_registry():
    outcome = shared_registry().call("compare_rentals", {"options": [{"name": "L4", "price_per_gpu_hour": 0.8}]})
    assert not outcome.ok and outcome.error["code"] == "invalid_options" and "方案数" in outcome.error["zh"]
