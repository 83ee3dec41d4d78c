"""A first estimate before a question back (issue 35 item 3, issue 37 item 3): a cost per token on cards already owned
or at a stated utilisation, a monthly lease from the rental tiers (or from owning's cost when no tier prices the
card), a monthly cloud spend read as the rent it is, a token follow-up answered from the rent-or-buy thread, the
verdict first, and electricity and colocation prices older than six months flagged with their sources. Own wording,
both languages."""

from __future__ import annotations

import datetime as dt

from knowledge.catalog import load_catalog
from knowledge.clouds import load_price_book
from knowledge.region_tariffs import region_tariffs
from tests.threads import ask, calls
from tools.cost.tco import TcoRequest, compute_tco

CATALOG = load_catalog()
BOOK = load_price_book()
TODAY = "2026-12-06"


def tco(**fields):
    return compute_tco(TcoRequest(**fields), CATALOG, BOOK)


# --- the tools ---------------------------------------------------------------------------------------------------


def test_defaulted_electricity_and_colocation_prices_are_dated_and_flagged_when_old():
    r = tco(gpu="h100-sxm", gpus_per_server=8, servers=1, today=TODAY, rent_needed=False)
    flagged = " ".join(p.what.en for p in r.stale_prices)
    assert "electricity price" in flagged and "colocation price" in flagged
    assert all(p.age_months > 6 for p in r.stale_prices)
    given = tco(gpu="h100-sxm", gpus_per_server=8, servers=1, today=TODAY, rent_needed=False, electricity_price=0.12, colo_price_per_kw_month=150)
    assert not any(word in " ".join(p.what.en for p in given.stale_prices) for word in ("electricity price", "colocation price"))


def test_a_regions_prices_carry_their_source_and_date_into_the_result():
    r = tco(gpu="h100-sxm", gpus_per_server=8, servers=1, today=TODAY, rent_needed=False, site_region="sg")
    assert r.region.colocation_source.startswith("2022-01, [Cushman & Wakefield") and not r.region.colocation_global_average
    assert r.region.electricity_fallback and r.region.electricity_source == ""  # no sourced tariff: said, not invented
    assert any("colocation price" in p.what.en and p.date == "2022-01" for p in r.stale_prices)
    for name, region in region_tariffs().root.items():  # every regional price a reader can open, with its date
        for price in (region.electricity, region.colocation):
            assert price is None or (price.source.url.startswith("https://") and price.source.date), name


# --- the answers -------------------------------------------------------------------------------------------------


def test_cost_per_token_on_owned_cards_is_owning_cost_at_the_stated_use(offline_advisor):
    en = offline_advisor.answer("Roughly what does a million tokens cost us for Llama 3.1 70B on the 2 H100s we bought last year?", [])
    (call,) = calls(en, "compute_tco")
    assert en.summary.startswith("**≈ $") and "on your 2× NVIDIA H100" in en.summary.split("\n")[0]
    assert "rented cards" in en.answer  # the rental tiers beside it, for comparison
    zh = offline_advisor.answer("公司已经有4张A100 80G在跑Qwen2.5-72B，利用率大概四成，每百万token成本大概多少？", [])
    (call,) = calls(zh, "compute_tco")
    assert call.args["utilisation_pct"] == 40
    assert zh.summary.startswith("**每百万输出 token 约 ¥") and "40%" in zh.summary.split("\n")[0]


def test_a_stated_utilisation_scales_a_rented_cost_per_token(offline_advisor):
    en = offline_advisor.answer("cost per million tokens for Qwen2.5-32B on 2 rented L40S, busy only 40% of the time?", [])
    assert "At your 40% utilisation" in en.summary.split("\n")[0]


def test_a_monthly_lease_is_priced_from_the_rental_tiers(offline_advisor):
    en = offline_advisor.answer("What would leasing a single 8x H100 box cost us per month?", [])
    assert calls(en, "rental_prices") and not calls(en, "compute_tco")
    assert en.summary.startswith("**") and "$" in en.summary.split("\n")[0]


def test_a_lease_no_tier_prices_gets_an_estimate_from_owning_cost(offline_advisor):
    zh = offline_advisor.answer("一台8卡H800整机月租一般多少？", [])
    assert zh.summary.startswith("**每卡时至少约 ¥") and "每月约 ¥" in zh.summary.split("\n")[0] and "下限" in zh.summary.split("\n")[0]


def test_a_monthly_cloud_spend_written_before_its_amount_is_the_rent_of_the_fleet(offline_advisor):
    zh = offline_advisor.answer("我们现在每个月云上GPU账单差不多25万人民币，如果自己买两台8卡H100，多久能回本？", [])
    call = next(c for c in calls(zh, "compute_tco") if c.error is None)
    assert call.args.get("cloud_monthly_bill") == 250_000 and call.args.get("server_price") is None


def test_per_token_after_a_rent_or_buy_answers_that_line_from_the_same_cards(offline_advisor):
    en = ask(offline_advisor, "and per token?", "Buy or rent 4 L40S for inference over the next 2 years?")
    assert en.summary.startswith("Which model will you serve") and "Renting" not in en.summary  # the one input a token's cost needs
    zh = ask(offline_advisor, "那跑Qwen2.5-72B每个token呢？", "买还是租两台8卡A100？")
    assert "**买下来每百万输出 token 约 ¥" in zh.summary.split("\n")[0]


def test_rent_or_buy_leads_with_the_verdict_and_its_monthly_figure(offline_advisor):
    en = offline_advisor.answer("Is it smarter to buy or to rent 16 H100s for three years at 60% load?", [])
    first = en.summary.split("\n")[0]
    assert first.startswith(("**Buy", "**Rent")) and "a month cheaper than" in first
    zh = offline_advisor.answer("三年里两台8卡H100，买和租哪个更划算？", [])
    assert zh.summary.startswith(("**买", "**租")) and "每月比" in zh.summary.split("\n")[0]


def test_cost_per_token_against_an_api_without_a_volume_compares_per_million(offline_advisor):
    zh = offline_advisor.answer("自己搭8张4090的机器做推理，跟直接调API比，按每百万token算谁便宜？", [])
    first = zh.summary.split("\n")[0]
    assert first.startswith(("**按每百万 token 算自建更便宜", "**按每百万 token 算 API 更便宜")) and "¥" in first
    en = offline_advisor.answer("Is self-hosting Llama 3 70B cheaper than paying an API, per million tokens?", [])
    assert en.summary.startswith(("**Self-hosting is cheaper per token", "**The API is cheaper per token"))
    assert "months old" in en.answer or "years old" in en.answer  # the API price's age is flagged (in years from 2 years: price_age.yaml)
