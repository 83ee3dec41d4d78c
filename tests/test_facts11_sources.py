"""Issue #37, facts11: every catalog figure and price stands on a dated source, and a row whose figures no vendor page
gives says it rests on secondary sources, in the data and beside the card in the answer; the gap cannot come back
(an undated GPU row or price is refused on load). Also: wall-socket ratings from a maker's page or marked secondary,
cooling values read from the reference, a dated China rent for the A10 flagged as old, and the serving engines of
the domestic parts."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from knowledge.clouds import load_cloud_rates, load_price_book
from knowledge.facility import shipped_facility_data
from knowledge.gpus import GPU, Price
from knowledge.price_estimates import price_estimates
from knowledge.serving import load_serving_data
from knowledge.servers import server_data
from knowledge.sources import DATE_PATTERN
from tools.cost.rental_market import RentalMarketRequest, rental_prices

DATED = re.compile(DATE_PATTERN)
YEAR = re.compile(r"(?<!\d)(19|20)\d\d(?!\d)")
# No vendor page gives these parts' figures (gpu-specs-notes.md §7: "China variants are unofficial"; domestic parts
# read from the press): the rows say so.
SECONDARY = {"h800-sxm", "h800-pcie", "h20", "l20", "a800-80gb-sxm", "ascend-910b", "ascend-910c", "mlu370-x8", "mtt-s4000"}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_every_gpu_row_has_a_dated_source_and_says_when_it_is_secondary(catalog):
    for gpu in catalog.gpus:
        assert gpu.spec_sources or YEAR.search(gpu.source), gpu.id
        # http as well: a launch report the reference cites may only be served over plain http (mlu370-x8, 2022)
        assert all(DATED.match(s.date) and s.url.startswith(("http://", "https://")) for s in gpu.spec_sources), gpu.id
    assert {g.id for g in catalog.gpus if g.source_quality == "secondary"} == SECONDARY
    for gpu_id in ("h800-sxm", "ascend-910b", "ascend-910c"):  # the three rows that had no dated page before
        assert catalog.gpu(gpu_id).spec_sources, gpu_id


def test_an_undated_row_is_refused_on_load(catalog):
    row = catalog.gpu("h800-sxm").model_dump()
    undated = {**row, "spec_sources": [], "source": "OEM sheets as compiled in a research note", "china": None, "china_rule": None}
    with pytest.raises(ValueError, match="dated source"):
        GPU.model_validate(undated)
    GPU.model_validate({**undated, "source": "OEM sheets as compiled in a research note (2023-03)"})  # a date in the citation is enough


def test_every_shipped_price_is_dated_and_sourced(catalog):
    for gpu in catalog.gpus:
        for price in (gpu.purchase_price, gpu.cloud_price):
            if price is not None:
                assert DATED.match(price.date) and len(price.source) >= 3, gpu.id
    for rate in load_cloud_rates():
        assert DATED.match(rate.date) and rate.source is not None and rate.source.url.startswith(("http://", "https://")), rate.offer
    for estimate in price_estimates().estimates:
        assert all(DATED.match(a.date) and a.url for a in estimate.anchors), estimate.gpu
    for server in server_data().classes:
        assert DATED.match(server.date) and server.sources, server.id
    with pytest.raises(ValueError):
        Price(amount=9000, currency="USD", date="recently", source="a reseller")  # no date a reader can check
    with pytest.raises(ValueError):
        Price(amount=9000, currency="USD", date="2026-01", source="")


@pytest.mark.parametrize(("question", "said"), [
    ("What are the specs of the H800?", "secondary sources"),
    ("H800的规格是多少？", "二手来源"),
])  # fmt: skip
def test_a_secondary_row_is_said_beside_the_card_in_the_sources(offline_advisor, question, said):
    response = offline_advisor.answer(question, [])
    card = [s for s in response.sources if s.doc_id == "gpu:h800-sxm"]
    assert card and said in card[0].title
    assert card[0].urls and "tomshardware.com" in card[0].urls[0]  # the dated page, not an undated note
    primary = offline_advisor.answer("What are the specs of the H100 SXM?", [])
    assert all("secondary" not in s.title for s in primary.sources)


def test_wall_sockets_cite_a_maker_or_say_secondary():
    sockets = {s.market: s for s in shipped_facility_data().circuits.wall_sockets}
    us = sockets["default"]
    assert "wikipedia" not in us.source.url and "apc.com" in us.source.url and (us.amps, us.volts) == (15, 120)
    assert us.source_quality == "primary"
    cn = sockets["cn"]
    assert cn.source_quality == "secondary" and cn.standard is not None and "1002" in cn.standard.title
    assert cn.standard.date == "2021-10-11"


def test_cooling_values_follow_the_reference(catalog):
    cooling = {g.id: g.cooling for g in catalog.gpus}
    for gpu_id in ("l40s", "l40", "a40", "h100-pcie", "a100-80gb-pcie", "t4"):
        assert cooling[gpu_id] == "passive", gpu_id
    assert cooling["rtx-6000-ada"] == cooling["rtx-a6000"] == "active"  # workstation cards with their own fans
    assert cooling["gb200"] == cooling["gb300"] == cooling["mi355x"] == "liquid"


def test_a_china_rent_for_the_a10_is_dated_and_flagged_old(catalog):
    result = rental_prices(RentalMarketRequest(gpu="A10", china=True, currency="CNY", today="2026-12-07"), catalog, load_price_book())
    china = next(t for t in result.tiers if t.tier == "china")
    offer = china.offers[0]
    assert offer.date == "2023-09" and offer.stale and offer.source_url and "yunthe.com" in offer.source_url
    assert offer.quoted_currency == "USD" and offer.quoted_price == pytest.approx(1.23)
    assert result.stale_count >= 1  # the answer says it is more than six months old


def test_every_domestic_part_names_a_serving_engine(catalog):
    data = load_serving_data()
    for gpu in catalog.gpus:
        if gpu.china == "domestic":
            assert any(gpu.vendor in engine.vendors for engine in data.engines), gpu.id
            assert "vLLM" in gpu.availability_en or "vllm" in gpu.availability_en, gpu.id
    s4000 = catalog.gpu("mtt-s4000")
    assert any("MooreThreads/vllm_musa" in s.url for s in s4000.spec_sources)
