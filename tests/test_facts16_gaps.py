"""facts16 (#37): the facts the shared references do not give are data (knowledge/fact_gaps.yaml), re-checked against
the reference lines they cite, and the data agrees with each gap; every price or spec row in knowledge/ carries a page
and a date, or an explicit unknown status; an answer resting on an unverified value says so (en + zh). Our own wording."""

from __future__ import annotations

import re

import pytest

from knowledge.api_prices import api_prices
from knowledge.catalog import load_catalog
from knowledge.clouds import load_cloud_rates, load_clouds
from knowledge.fact_gaps import REFERENCE_DIR, fact_gaps
from knowledge.price_estimates import price_estimates
from knowledge.region_tariffs import region_tariffs
from knowledge.rent_tiers import rent_tier_trade_offs
from knowledge.rent_trend import rent_trend
from knowledge.servers import server_data
from knowledge.sources import DATE_PATTERN
from knowledge.tco_defaults import load_tco_defaults
from tests.threads import ask

DATED = re.compile(DATE_PATTERN)
HTTP = ("http://", "https://")
GAPS = fact_gaps()
needs_reference = pytest.mark.skipif(not REFERENCE_DIR.is_dir(), reason="the shared reference folder is not beside the repository")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@needs_reference
@pytest.mark.parametrize("gap", GAPS.gaps, ids=lambda g: g.id)
def test_a_gap_still_stands_on_the_reference_lines_it_cites(gap):
    for cited in gap.reference:
        lines = (REFERENCE_DIR / cited.file).read_text(encoding="utf-8").splitlines()
        assert cited.says in lines[cited.line - 1], (gap.id, cited.file, cited.line)
    texts = {p.name: p.read_text(encoding="utf-8").lower() for p in REFERENCE_DIR.iterdir() if p.is_file()}
    for term in gap.absent:  # the reference gained it: add the sourced row and drop the gap
        assert not [name for name, text in texts.items() if term.lower() in text], (gap.id, term)


def test_every_gap_names_rows_and_fields_that_exist(catalog):
    ids = {g.id for g in catalog.gpus}
    for gap in GAPS.gaps:
        assert set(gap.gpus) <= ids, gap.id
        for name in gap.names:  # parts without a row are not matched to another part's row either
            assert catalog.find_gpu(name) is None, (gap.id, name)
        for field in gap.fields:
            kind, region, price = field.split(".")
            assert kind == "region_tariffs" and region_tariffs().get(region) is not None, field
            assert getattr(region_tariffs().get(region), price) is None, field  # a figure arrived: drop the gap


def test_the_data_agrees_with_each_gap(catalog):
    assert not [r for r in load_clouds().offers("h20") if r.tier == "china"]
    assert {g.id for g in catalog.gpus if "cooling" in g.unverified} == set(GAPS.gap("cooling-a10-h100nvl-h200nvl-l20").gpus)
    assert all(p.currency == "USD" for p in api_prices().prices if p.id.startswith("deepseek"))
    estimated = {e.gpu for e in price_estimates().estimates}
    for gpu_id in GAPS.gap("l40s-l4-purchase").gpus:
        assert catalog.gpu(gpu_id).purchase_price is None and gpu_id in estimated, gpu_id
    for gpu_id in GAPS.gap("launch-prices-4060ti-3060").gpus:
        price = catalog.gpu(gpu_id).purchase_price
        assert price.source_url.startswith(HTTP) and "not in the shared references" in price.source, gpu_id


def test_every_catalog_price_opens_a_page_and_is_dated(catalog):
    """Every card and rent price of the catalog now gives a page (the launch prices that only named their coverage
    carry the page since facts16) and a date."""
    for gpu in catalog.gpus:
        for kind in ("purchase_price", "cloud_price"):
            price = getattr(gpu, kind)
            if price is not None:
                assert price.source_url.startswith(HTTP) and DATED.match(price.date), (gpu.id, kind)
    for gpu_id in ("rtx-5090", "rtx-4090", "rtx-4090d", "rtx-4060-ti-16gb", "rtx-3090", "rtx-3060-12gb", "gaudi3"):
        assert not catalog.gpu(gpu_id).purchase_price.no_url_because, gpu_id


def test_every_price_row_in_knowledge_has_a_dated_page_or_an_explicit_gap():
    for rate in load_cloud_rates():
        assert rate.source.url.startswith(HTTP) and DATED.match(rate.date), rate.offer
    for price in api_prices().prices:
        assert price.source.url.startswith(HTTP) and DATED.match(price.source.date), price.id
    for estimate in price_estimates().estimates:
        assert estimate.anchors and all(a.url.startswith(HTTP) and DATED.match(a.date) for a in estimate.anchors), estimate.gpu
    for server in server_data().classes:
        assert DATED.match(server.date) and server.sources, server.id
    for name, region in region_tariffs().root.items():
        for kind in ("electricity", "colocation"):
            price = getattr(region, kind)
            if price is None:
                assert GAPS.covers(f"region_tariffs.{name}.{kind}") is not None, (name, kind)
            else:
                assert price.source.url.startswith(HTTP) and DATED.match(price.source.date), (name, kind)
    money = ("price", "cost", "usd", "cny", "colo", "electricity")
    for key, default in load_tco_defaults().items():
        if any(word in key for word in money) and default.value:  # a zero is a cost left out and said so (staff), not a figure
            assert default.sources and all(s.url.startswith(HTTP) and DATED.match(s.date) for s in default.sources), key
    trend = rent_trend()
    assert all(s.url.startswith(HTTP) and DATED.match(s.date) for s in trend.sources)
    assert all(t.source.url.startswith(HTTP) and DATED.match(t.source.date) for t in rent_tier_trade_offs().values())


@pytest.mark.parametrize(("question", "said"), [
    ("Our L20 cards run very hot and the clocks drop during training", "is not verified in our catalog"),
    ("服务器里的L20温度很高，跑着跑着就降频", "散热方式未经核实"),
])  # fmt: skip
def test_a_heat_problem_on_a_card_with_unverified_cooling_says_so(offline_advisor, question, said):
    answer = ask(offline_advisor, question).answer
    assert said in answer, answer[:1500]
