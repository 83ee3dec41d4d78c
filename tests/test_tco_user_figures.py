"""Rent-vs-buy with the buyer's own figures: a monthly bill is what is paid, reserved capacity is paid every hour,
and the service lives tried in the sensitivity are ones a buyer would consider. Own wording and figures."""

from __future__ import annotations

import pytest

from knowledge.bilingual import AdvisorError
from tests.cost_catalog import small_catalog
from tests.test_tco import WORKED_EXAMPLE, WORKED_OPEX
from tools.cost.tco import TcoRequest, compute_tco, lifetime_bounds
from tools.cost.tco_model import HOURS_PER_MONTH

CATALOG = small_catalog()


def tco(**fields):
    return compute_tco(TcoRequest(**fields), CATALOG)


def test_a_monthly_bill_is_the_rent_avoided_whatever_the_utilisation():
    for use in (20, 55, 90):
        result = tco(**WORKED_EXAMPLE, cloud_monthly_bill=52_000, utilisation_pct=use)
        assert result.cloud_monthly_cost == pytest.approx(52_000)
        assert result.payback_months == pytest.approx(345_000 / (52_000 - WORKED_OPEX))
        assert result.cloud_billing == "monthly_bill" and result.utilisation_to_pay_back_in_horizon_pct is None


def test_a_monthly_bill_shows_as_given_and_its_hourly_rate_as_worked_out_from_it():
    result = tco(**WORKED_EXAMPLE, cloud_monthly_bill=52_000, cloud_discount_pct=30)
    sources = {a.key: a for a in result.assumptions}
    assert sources["cloud_monthly_bill"].source == "given" and sources["cloud_monthly_bill"].value == 52_000
    assert sources["cloud_price_per_gpu_hour"].value == pytest.approx(52_000 / (8 * HOURS_PER_MONTH))
    assert sources["cloud_price_per_gpu_hour"].source != "given"
    assert sources["cloud_discount_pct"].value == 0  # the bill already holds whatever discount was negotiated
    assert result.cloud_monthly_cost == pytest.approx(52_000)


def test_committed_capacity_is_billed_for_every_hour_used_or_not():
    on_demand = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=2.1, utilisation_pct=50)
    committed = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=2.1, utilisation_pct=50, cloud_committed=True)
    assert on_demand.cloud_monthly_cost == pytest.approx(8 * HOURS_PER_MONTH * 0.5 * 2.1)
    assert committed.cloud_monthly_cost == pytest.approx(8 * HOURS_PER_MONTH * 2.1)
    assert committed.payback_months < on_demand.payback_months
    assert committed.cloud_billing == "every_hour" and on_demand.cloud_billing == "used_hours"


def test_the_rent_and_utilisation_that_pay_back_within_the_horizon():
    result = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=2.5, utilisation_pct=60)
    needed_rent = 345_000 / 48 + WORKED_OPEX
    assert result.rent_to_pay_back_in_horizon == pytest.approx(needed_rent)
    assert result.utilisation_to_pay_back_in_horizon_pct == pytest.approx(needed_rent / (8 * HOURS_PER_MONTH * 2.5) * 100)
    at_that_use = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=2.5, utilisation_pct=result.utilisation_to_pay_back_in_horizon_pct)
    assert at_that_use.payback_months == pytest.approx(48)


def test_bill_and_hourly_rate_together_are_refused_in_both_languages():
    with pytest.raises(AdvisorError) as error:
        tco(**WORKED_EXAMPLE, cloud_monthly_bill=40_000, cloud_price_per_gpu_hour=2.0)
    assert error.value.code == "conflicting_cloud_price"
    assert "not both" in error.value.message("en") and "只需给一个" in error.value.message("zh")


@pytest.mark.parametrize(
    ("years", "stated", "expected"),
    [(1, None, (0.5, 2)), (4, None, (3, 5)), (2.5, (2, 3), (2, 3)), (3, (3, 2), (2, 3))],
)
def test_the_service_lives_tried_are_a_range_a_buyer_would_weigh(years, stated, expected):
    assert lifetime_bounds(years, stated) == pytest.approx(expected)


def test_the_life_sensitivity_uses_the_stated_range_not_a_fifth_either_side():
    one_year = tco(**{**WORKED_EXAMPLE, "lifetime_years": 1}, cloud_price_per_gpu_hour=2.5)
    life = next(d for d in one_year.sensitivity_details if d.key == "lifetime_years")
    assert (life.low_input, life.high_input) == (0.5, 2)
    ranged = tco(**{**WORKED_EXAMPLE, "lifetime_years": 2.5}, cloud_price_per_gpu_hour=2.5, lifetime_bounds_years=(2, 3))
    life = next(d for d in ranged.sensitivity_details if d.key == "lifetime_years")
    assert (life.low_input, life.high_input) == (2, 3)
