"""Issue #37, facts13: "an answer whose price is older than 6 months says so" holds for every price a figure stands
on, not only the card's: a whole machine's price is its cards plus the host of its server class (or a published
whole-server quote), and that host's date is aged by the same comparison as the card, the cloud rate and the tariffs,
in the server-price, recommendation and rent-or-buy answers alike. (A malformed company prices file is refused by the
loader, `gpu-advisor prices` and the server's start-up check alike: one table in tests/test_price_overrides.py.)"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from knowledge.catalog import load_catalog
from knowledge.servers import server_data
from knowledge.serving import load_serving_data
from tools.cost.price_age import machine_dates, stale_among
from tools.cost.tco import TcoRequest, compute_tco
from tools.recommend.core import recommend_gpus
from tools.recommend.price_estimate import ServerPriceRequest, estimate_server_price
from tools.recommend.schema import RecommendRequest

CJK = re.compile(r"[\u4e00-\u9fff]")
TODAY = dt.date(2026, 12, 7)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _hgx():
    return next(c for c in server_data().classes if c.id == "hgx-8gpu")


def test_a_whole_server_price_lists_the_card_and_the_host_it_stands_on(catalog):
    # the A100 has no published whole-server quote, so its price is the card's plus the host's (each with its own date)
    result = estimate_server_price(ServerPriceRequest(gpu="A100 SXM", currency="USD"), catalog)
    dates = {row.date for row in result.dated}
    assert catalog.gpu("a100-80gb-sxm").purchase_price.date in dates and _hgx().date in dates
    host = next(row for row in result.dated if row.date == _hgx().date)
    assert "HGX" in host.what.en and "HGX" in host.what.zh and CJK.search(host.what.zh)
    quoted = estimate_server_price(ServerPriceRequest(gpu="H100 SXM", gpus=8, currency="USD"), catalog)
    assert quoted.whole is not None and quoted.whole.basis == "quote"  # a published whole-server price: its own date only
    assert [row.date for row in quoted.dated] == [quoted.whole.date]


def test_one_comparison_ages_every_kind_of_price():
    host = machine_dates(_hgx(), None)
    assert [row.date for row in stale_among(host, TODAY)] == [_hgx().date]  # 2023-05: flagged
    assert stale_among(host, dt.date(2023, 6, 1)) == []  # a month old: not flagged
    assert stale_among(host, None) == []  # no day to compare with
    assert machine_dates(_hgx(), None, machines=0) == []  # no machine bought, no machine price used
    twice = stale_among(host + host, TODAY)
    assert len(twice) == 1  # each figure named once


def test_a_recommendation_flags_the_host_machines_of_its_options(catalog):
    request = RecommendRequest(model="Llama-3.1-70B", task="inference", concurrency=5, today=TODAY.isoformat())
    result = recommend_gpus(request, catalog, load_serving_data())
    stale = {row.what.en: row for row in result.stale_prices}
    classes = {o.server_class for o in [*(t.option for t in result.tiers), *result.options] if o.server_count}
    hosts = [c for c in server_data().classes if c.id in classes and c.date < "2026-06"]
    assert hosts, classes  # the shipped server bills of materials are older than half a year on this day
    for host in hosts:
        assert any(host.name.en in what and row.date == host.date for what, row in stale.items()), host.id
    assert all(row.age_months > 6 for row in result.stale_prices)


def test_rent_or_buy_flags_the_host_of_a_defaulted_server_price_only(catalog):
    # the A100 has no whole-server quote: its server price is the card's plus a defaulted host (dated 2023-05)
    defaulted = compute_tco(TcoRequest(gpu="A100 SXM", today=TODAY.isoformat()), catalog)
    assert any("HGX" in row.what.en and row.date == _hgx().date for row in defaulted.stale_prices)
    given = compute_tco(TcoRequest(gpu="A100 SXM", server_price=300_000, today=TODAY.isoformat()), catalog)
    assert not any("HGX" in row.what.en for row in given.stale_prices)  # the user's own price: nothing of ours to age


@pytest.mark.parametrize(("question", "note"), [
    ("How much does a server with 8 A100s cost?", "more than half a year old"),
    ("一台 8 卡 A100 服务器要多少钱？", "已超过半年"),
])  # fmt: skip
def test_a_server_price_answer_says_its_host_is_old(offline_advisor, monkeypatch, question, note):
    from advisor.offline.tasks.tco import price_dates

    monkeypatch.setattr(price_dates, "today", lambda: TODAY)
    response = offline_advisor.answer(question, [])
    text = response.summary + "\n" + response.details
    line = next(row for row in text.splitlines() if note in row)
    assert _hgx().date in line and "HGX" in line


@pytest.mark.parametrize(("question", "said"), [
    ("How much does an L40S cost to buy?", "estimate"),
    ("L40S 多少钱一张？", "估算"),
])  # fmt: skip
def test_a_price_asked_of_a_part_no_dated_source_prices_is_answered_as_a_labelled_estimate(offline_advisor, question, said):
    """No shared reference gives an L40S purchase price (rents only: gpu-specs-notes.md §3, consultant-facts.md 1a):
    the answer leads with a range marked as an estimate from dated anchors (knowledge/price_estimates.yaml), never a
    blank price cell nor a figure passed off as a quote."""
    assert load_catalog().gpu("l40s").purchase_price is None
    response = offline_advisor.answer(question, [])
    lead = response.summary.split("\n\n")[0]
    assert said in lead and "–" in lead


def test_the_domestic_accelerator_card_agrees_with_the_catalog_on_moore_threads_serving():
    """The S4000 row names Moore Threads' vllm_musa port (facts11); the concept card said 'no vLLM support'."""
    import yaml

    from knowledge.concepts import FAMILIES_DIR

    cards = yaml.safe_load((FAMILIES_DIR / "china.yaml").read_text(encoding="utf-8"))["cards"]
    card = next(c for c in cards if c["id"] == "domestic-accelerators-beyond-ascend")
    assert "vllm_musa" in card["answer"]["en"] and "vllm_musa" in card["answer"]["zh"]
    assert "no vLLM support" not in card["answer"]["en"] and "没有 vLLM 支持" not in card["answer"]["zh"]
    assert any("MooreThreads/vllm_musa" in s["url"] for s in card["sources"])
