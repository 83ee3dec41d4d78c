"""The error summary both calibrations report: median and p90 of absolute errors."""

import pytest

from benchmarks.error_stats import Target, error_summary, percentile


def test_percentile_interpolates_between_ranks():
    assert percentile([0, 10], 0.9) == pytest.approx(9.0)
    assert percentile(list(range(11)), 0.9) == pytest.approx(9.0)
    assert percentile([5], 0.9) == 5


def test_summary_uses_absolute_errors():
    summary = error_summary("x", [-20.0, 1.0, -3.0, 2.0, 10.0])
    assert summary.median_pct == 3.0 and summary.worst_pct == 20.0
    assert summary.p90_pct == pytest.approx(16.0)
    assert summary.meets(Target(3.0, 16.0)) and not summary.meets(Target(2.9, 16.0)) and not summary.meets(Target(3.0, 15.9))


def test_no_values_is_an_error_not_a_zero():
    with pytest.raises(ValueError):
        percentile([], 0.9)
