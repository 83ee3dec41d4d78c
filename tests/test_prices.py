"""Prices: cloud tiers as dated data, payback against each tier, a quoted payback checked, stale prices flagged,
and a company's own prices file (ADVISOR_PRICES) applied everywhere or refused with the line to fix."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

from advisor.offline.tasks.tco.plan import claim_and_horizon
from advisor.nlu.tco_said import payback_word_starts
from advisor.nlu.frame import SlotValue
from knowledge.bilingual import AdvisorError
from knowledge.clouds import DATA_FILE as CLOUDS_FILE
from knowledge.clouds import CloudCatalog, CloudRate, PriceBook, load_cloud_rates
from knowledge.tco_defaults import DATA_FILE as DEFAULTS_FILE
from knowledge.tco_defaults import shipped_tco_defaults
from tests.cost_catalog import small_catalog
from tools.cost.price_age import age_months, is_stale, price_date
from tools.cost.tco import TcoRequest, compute_tco
from tools.cost.tco_model import HOURS_PER_MONTH

CATALOG = small_catalog()
CJK = re.compile(r"[\u4e00-\u9fff]")
EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "prices.example.yaml"


def rate(tier: str, price: float, currency: str = "USD", date: str = "2026-11-09", gpu: str = "h100-sxm") -> CloudRate:
    return CloudRate(gpu=gpu, tier=tier, offer=f"test {tier}", price=price, currency=currency, region="test", date=date,
                     confidence="M", source={"url": "https://example.com/prices", "title": "Example price page"})  # fmt: skip


BOOK = PriceBook(
    CloudCatalog([rate("hyperscaler_on_demand", 6.88), rate("specialist", 2.5), rate("china", 13.0, "CNY")]), shipped_tco_defaults()
)
# An 8×H100 server at $300k with 15% network: capex $345,000; hand-checked opex $4,847.75 a month.
SERVER = {"gpu": "h100-sxm", "server_price": 300_000, "network_overhead_pct": 15, "server_max_kw": 10.2, "load_factor_pct": 7.5 / 10.2 * 100,
          "pue": 1.3, "electricity_price": 0.10, "colo_price_per_kw_month": 180, "maintenance_pct_per_year": 8}  # fmt: skip
CAPEX, OPEX = 345_000, 711.75 + 1836 + 2300


def tco(book=BOOK, **fields):
    return compute_tco(TcoRequest(**{**SERVER, **fields}), CATALOG, book)


def tier(result, name):
    return next(row for row in result.tier_paybacks if row.tier == name)


# ---------------------------------------------------------------- payback, computed right


@pytest.mark.parametrize("use", [100, 70, 40])
def test_payback_is_purchase_over_rent_avoided_minus_running_cost(use):
    result = tco(utilisation_pct=use)
    rent = 8 * HOURS_PER_MONTH * use / 100 * 6.88
    on_demand = tier(result, "hyperscaler_on_demand")
    assert on_demand.monthly_rent_avoided == pytest.approx(rent)
    assert on_demand.payback_months == pytest.approx(CAPEX / (rent - OPEX))
    assert on_demand.payback_months_full_use == pytest.approx(CAPEX / (8 * HOURS_PER_MONTH * 6.88 - OPEX))


def test_payback_against_the_tiers_matches_the_consultant_figures():
    # ≈9 months only against hyperscaler on-demand at full use, 13–14 at 70%, about 3–4 years against $2.5 specialist clouds
    result = tco(utilisation_pct=70)
    on_demand, specialist = tier(result, "hyperscaler_on_demand"), tier(result, "specialist")
    assert 9 <= on_demand.payback_months_full_use < 10 and 13 <= on_demand.payback_months < 15.5
    assert 30 <= specialist.payback_months_full_use <= 48 < specialist.payback_months


def test_a_tier_cheaper_than_running_costs_never_pays_back():
    result = tco(utilisation_pct=10)
    assert tier(result, "specialist").payback_months is None  # 584 GPU-h × $2.5 < $4,848 running cost


def test_payback_in_cny_uses_the_china_tier_first_and_converts_the_others():
    usd = tco(utilisation_pct=100)
    cny = tco(utilisation_pct=100, currency="CNY", usd_to_cny=7.2, server_price=300_000 * 7.2, electricity_price=0.72,
              colo_price_per_kw_month=180 * 7.2)  # fmt: skip
    assert [row.tier for row in usd.tier_paybacks] == ["hyperscaler_on_demand", "specialist"]  # no China lease for a USD buyer
    in_china = tco(utilisation_pct=100, region="cn")  # unless they said they are in China
    assert in_china.tier_paybacks[0].tier == "china" and in_china.tier_paybacks[0].price_per_gpu_hour == pytest.approx(13.0 / 7.2)
    assert cny.tier_paybacks[0].tier == "china" and cny.tier_paybacks[0].price_per_gpu_hour == 13.0
    assert tier(cny, "hyperscaler_on_demand").price_per_gpu_hour == pytest.approx(6.88 * 7.2)
    # the same purchase and rent in another currency pays back in the same months
    assert tier(cny, "hyperscaler_on_demand").payback_months == pytest.approx(tier(usd, "hyperscaler_on_demand").payback_months)
    china_rent = 8 * HOURS_PER_MONTH * 13.0
    assert cny.tier_paybacks[0].payback_months == pytest.approx(CAPEX * 7.2 / (china_rent - OPEX * 7.2))


# ---------------------------------------------------------------- a quoted payback, checked


def test_an_eight_month_claim_holds_at_no_tier_and_needs_more_than_full_use():
    result = tco(utilisation_pct=70, claimed_payback_months=8)
    check = result.claim_check
    assert check.claimed_months == 8 and not check.holds_at_your_use and not check.holds_at_full_use
    assert check.best_tier == "hyperscaler_on_demand"
    needed = tier(result, "hyperscaler_on_demand").utilisation_for_claim_pct
    assert needed == pytest.approx((CAPEX / 8 + OPEX) / (8 * HOURS_PER_MONTH * 6.88) * 100) and needed > 100
    assert result.horizon_months == 48  # the claim is not the servers' life


def test_a_claim_holds_at_full_use_only_or_at_the_utilisation_given():
    ten = tco(utilisation_pct=70, claimed_payback_months=10).claim_check
    assert ten.holds_at_full_use and not ten.holds_at_your_use
    fifteen = tco(utilisation_pct=70, claimed_payback_months=15).claim_check
    assert fifteen.holds_at_your_use


def test_a_claim_of_zero_months_is_refused_in_both_languages():  # 5e-324 would overflow the utilisation it needs
    with pytest.raises(AdvisorError) as error:
        tco(claimed_payback_months=0)
    assert "payback" in error.value.en and "回本" in error.value.zh


def spans(message: str, *surfaces_and_years: tuple[str, float]) -> list[SlotValue]:
    return [SlotValue(years, surface, message.index(surface)) for surface, years in surfaces_and_years]


def test_months_beside_payback_words_are_the_claim_and_other_spans_the_horizon():
    message = "vendor says it pays back in ~8 months; we keep servers for 5 years"
    claimed, horizon = claim_and_horizon(payback_word_starts(message), spans(message, ("8 months", 8 / 12), ("5 years", 5.0)), 5.0)
    assert claimed == pytest.approx(8 / 12) and horizon == 5.0
    message = "听说8个月就能回本，真的吗"
    claimed, horizon = claim_and_horizon(payback_word_starts(message), spans(message, ("8个月", 8 / 12)), 8 / 12)
    assert claimed == pytest.approx(8 / 12) and horizon is None  # the claim is not also the servers' life
    # a span far from the words stays the horizon; no payback words: nothing changes
    message = "over 3 years, with our usage and the current rent, when would buying the cards pay back?"
    assert claim_and_horizon(payback_word_starts(message), spans(message, ("3 years", 3.0)), 3.0) == (None, 3.0)
    message = "rent or buy 8 h100 over 3 years"
    assert claim_and_horizon(payback_word_starts(message), spans(message, ("3 years", 3.0)), 3.0) == (None, 3.0)


# ---------------------------------------------------------------- dated prices


def test_price_age_reads_partial_dates_at_their_earliest():
    import datetime as dt

    today = dt.date(2026, 12, 5)
    assert price_date("2026-11") == dt.date(2026, 11, 1) and price_date("2026") == dt.date(2026, 1, 1)
    assert not is_stale("2026-11-09", today) and is_stale("2026-05-04", today) and is_stale("2026", today)
    assert not is_stale("2020-01-01", None)  # no day given, nothing to compare with
    assert age_months("2026-06-05", today) == pytest.approx(6, abs=0.1)


def test_prices_older_than_six_months_are_named_with_their_age():
    old = PriceBook(CloudCatalog([rate("hyperscaler_on_demand", 6.88, date="2025-01-10")]), shipped_tco_defaults())
    result = compute_tco(TcoRequest(gpu="h100-sxm", today="2026-12-05"), CATALOG, old)
    stale = {p.what.en: p for p in result.stale_prices}
    assert any("purchase price" in what for what in stale) is False  # the test catalog's GPU prices are 2026-09
    (row,) = [p for what, p in stale.items() if "on-demand" in what.lower()]
    assert row.date == "2025-01-10" and row.age_months > 22 and CJK.search(row.what.zh)
    assert tier(result, "hyperscaler_on_demand").stale
    # the 8×H100 server is priced at its whole-server quote (2026-05-04): seven months old on 2026-12-05, five on 2026-09-30
    assert any("HGX H100 server" in what for what in stale)
    fresh = compute_tco(TcoRequest(gpu="h100-sxm", today="2026-09-30"), CATALOG, BOOK)
    assert [p.what.en for p in fresh.stale_prices if "electricity" not in p.what.en] == []
    # a card with no whole-server quote: the GPU and cloud prices are current; the shipped electricity default (2025-04)
    # is flagged for its age too, and so is the machine around the cards (the HGX host bill of materials, 2023-05), part
    # of the defaulted server price
    fresh = compute_tco(TcoRequest(gpu="a100-80gb-sxm", today="2026-09-30"), CATALOG, BOOK)
    assert [p.what.en for p in fresh.stale_prices if "electricity" not in p.what.en] == ["price of the 8-GPU HGX/OAM server without its GPUs"]
    assert all(p.age_months > 6 for p in fresh.stale_prices)


def test_shipped_cloud_tiers_are_dated_sourced_and_name_catalog_gpus():
    from knowledge.catalog import load_catalog

    rates = load_cloud_rates(CLOUDS_FILE, {g.id for g in load_catalog().gpus})
    tiers = {r.tier for r in rates}
    assert tiers == {"hyperscaler_on_demand", "hyperscaler_1yr", "hyperscaler_3yr", "specialist", "marketplace", "china"}
    for gpu in ("h100-sxm", "h200-sxm", "a100-80gb-sxm", "b200", "l40s", "rtx-4090"):
        assert any(r.gpu == gpu for r in rates), gpu
    # The one older row on purpose: the only dated A10 rent on a China cloud in the references (2023 Q3, quoted in USD);
    # the rental answer flags it as more than six months old (tests/test_facts11_sources.py).
    old_on_purpose = {("a10", "china")}
    for r in rates:
        assert r.source and r.source.url.startswith("https://") and (r.date[:4] >= "2026" or (r.gpu, r.tier) in old_on_purpose)
        assert not r.derived or r.basis
        assert CJK.search(r.offer_zh), r.offer  # shown in Chinese answers
    assert {r.currency for r in rates if r.tier == "china" and (r.gpu, r.tier) not in old_on_purpose} == {"CNY"}


SEO_HOSTS = ("pages.dev", "metrocoloadvisory.com", "mercatus-ai.com")  # SEO pages and vendor blogs replaced by primary ones


def test_shipped_prices_cite_no_seo_pages():
    for path in (CLOUDS_FILE, DEFAULTS_FILE):
        hosts = {urlparse(url).hostname or "" for url in re.findall(r"https://\S+?(?=[\"'\s,}])", path.read_text(encoding="utf-8"))}
        assert not [h for h in hosts if h.endswith(SEO_HOSTS)], path
