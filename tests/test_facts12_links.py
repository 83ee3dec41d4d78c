"""Issue #37, facts12: every price and spec row of the catalog gives a page a reader can open, or says why it cannot
(the reference names its source without a URL); a URL is never invented (its site is one the row's own citation
names); values no openable source confirms are marked unverified; and the links reach the answers that use them."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from knowledge.catalog import load_catalog
from knowledge.gpus import Price
from tools.cost.tco import TcoRequest, compute_tco
from tools.recommend.price_estimate import card_price

HTTP = ("http://", "https://")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _prices(catalog):
    for gpu in catalog.gpus:
        for kind in ("purchase_price", "cloud_price"):
            price = getattr(gpu, kind)
            if price is not None:
                yield gpu.id, kind, price


def _site(url: str) -> str:
    """The name a citation would use for the page's site: the GitHub owner for a repository page, else the host's
    first label ('mercatus-ai' from www.mercatus-ai.com), without punctuation."""
    parts = urlparse(url)
    host = parts.netloc.removeprefix("www.")
    name = parts.path.split("/")[1] if host == "github.com" else host.split(".")[0]
    return name.replace("-", "").lower()


def _squeezed(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def test_every_price_has_a_url_or_says_why_not(catalog):
    for gpu_id, kind, price in _prices(catalog):
        if price.source_url:
            assert price.source_url.startswith(HTTP) and not price.no_url_because, (gpu_id, kind)
        else:
            assert len(price.no_url_because) >= 20, (gpu_id, kind)  # an explicit reason, not a blank
            assert "without a page URL" in price.no_url_because, (gpu_id, kind)


def test_a_price_url_is_on_a_site_its_citation_names(catalog):
    for gpu_id, kind, price in _prices(catalog):
        if price.source_url:
            assert _site(price.source_url)[:6] in _squeezed(price.source), (gpu_id, kind, price.source_url)


def test_every_spec_row_has_dated_pages_or_says_why_not(catalog):
    for gpu in catalog.gpus:
        assert gpu.spec_sources or gpu.no_url_because, gpu.id
        assert all(page.url.startswith(HTTP) for page in gpu.spec_sources), gpu.id
        if not gpu.spec_sources:
            assert "without" in gpu.no_url_because, gpu.id


def test_rows_given_pages_in_facts12_cite_them_in_their_source(catalog):
    """The pages added to rows that had none are the ones their citation names (no URL from elsewhere)."""
    for gpu_id in ("gb300", "h20", "l20", "l4", "a10g", "rtx-3090-ti", "rtx-5090d", "mlu370-x8", "apple-m5-max"):
        gpu = catalog.gpu(gpu_id)
        named = _squeezed(gpu.source)
        assert gpu.spec_sources, gpu_id
        assert any(_site(page.url)[:6] in named for page in gpu.spec_sources), gpu_id


def test_cooling_not_checked_against_a_datasheet_is_marked_unverified(catalog):
    unverified = {g.id for g in catalog.gpus if "cooling" in g.unverified}
    assert unverified == {"a10", "h100-nvl", "h200-nvl", "l20"}  # the L4's passive cooler is on a Lenovo configuration page (facts15)
    assert all(catalog.gpu(gpu_id).cooling == "passive" for gpu_id in unverified)  # the value is kept, flagged


def test_a_price_cites_its_page():
    price = Price(amount=27500, date="2026-05-04", source="Mercatus", source_url="https://www.mercatus-ai.com/blog/h100-gpu-cost")
    assert price.cited == "Mercatus — https://www.mercatus-ai.com/blog/h100-gpu-cost"
    assert Price(amount=1, date="2026", source="a company quote").cited == "a company quote"
    with pytest.raises(ValueError):
        Price(amount=1, date="2026", source="x" * 5, source_url="www.example.com/no-scheme")


def test_the_card_price_and_the_rent_link_reach_the_tco_assumptions(catalog):
    result = compute_tco(TcoRequest(gpu="H100 SXM", servers=1, gpus_per_server=8, hours_per_month=500), catalog)
    by_key = {a.key: a for a in result.assumptions}
    assert by_key["server_price"].links and "mercatus-ai.com" in by_key["server_price"].links[0]
    assert "mercatus-ai.com" in by_key["server_price"].source
    h100 = catalog.gpu("h100-sxm")
    assert any(h100.purchase_price.source_url in s for s in card_price(h100, "USD", 7.2).sources)


def test_an_uncalibrated_accelerator_says_its_serving_efficiency_is_assumed(catalog):
    """serving-throughput.md holds no measured point for Moore Threads, Cambricon, Gaudi, Ascend, TPU or Trainium
    parts: the S4000's speed rests on an assumed share of the NVIDIA efficiency, and its assumptions say so in both
    languages; a measured family (NVIDIA, AMD) keeps the measured-share wording."""
    from knowledge.serving import load_serving_data
    from tools.serving.estimator import ThroughputRequest, estimate_throughput

    data = load_serving_data()
    s4000 = estimate_throughput(ThroughputRequest(model="Qwen2.5-7B", gpu="MTT S4000", engine="vllm"), catalog, data)
    said = s4000.assumptions[0]
    assert "assumption" in said.en and "0.8×" in said.en and "measured tokens/s" in said.en
    assert "假设" in said.zh and "实测" in said.zh
    h100 = estimate_throughput(ThroughputRequest(model="Qwen2.5-7B", gpu="H100 SXM", engine="vllm"), catalog, data)
    assert "measured shares" in h100.assumptions[0].en
    assert data.family(catalog.gpu("mtt-s4000")).assumed and not data.family(catalog.gpu("mi300x")).assumed


def test_a_catalog_section_cites_pages_to_open_or_the_reason_there_are_none(catalog):
    """What a spec answer retrieved from the catalog cites: the row's and its prices' pages, or the stated reason a
    source has none; never a bare note that is neither."""
    from advisor.retrieval.gpu_family_docs import gpu_family_chunks

    reasons = ({g.no_url_because for g in catalog.gpus} | {p.no_url_because for _, _, p in _prices(catalog)}) - {""}
    for chunk in gpu_family_chunks(catalog):
        assert chunk.sources, chunk.chunk_id
        assert all(s.startswith(HTTP) or s in reasons for s in chunk.sources), (chunk.chunk_id, chunk.sources)
