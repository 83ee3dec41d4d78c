"""How long a horizon, a job or a term is, said in a buyer's units: weeks under a month, months under a year ("over
3 months", never "0.2 years"), years from there. The units, thresholds and wording are the ``spans`` section of the
package text.yaml; every tco writer says a span through ``span`` so none formats a duration itself."""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.wording import Wording
from knowledge.bilingual import Text

SPANS = Wording("tco", "spans")


def span(months: float) -> Text:
    """``months`` as "3 weeks", "3 months", "1.5 years" (and the same in Chinese)."""
    data = SPANS.data
    if months < data["weeks_below_months"]:
        return _said(months * data["weeks_per_month"], "week", "weeks")
    if months < data["months_below_months"]:
        return _said(months, "month", "months")
    return _said(months / data["months_per_year"], "year", "years")


def years_span(years: float) -> Text:
    """A span given in years (a tool's horizon or a job's length), said as ``span`` says it."""
    return span(years * SPANS.data["months_per_year"])


def _said(count: float, one: str, many: str) -> Text:
    whole = abs(count - round(count)) < SPANS.data["whole_within"]
    if whole and round(count) == 1:
        return SPANS.text(one)
    return SPANS.text(many, n=number(count, 0 if whole else 1))
