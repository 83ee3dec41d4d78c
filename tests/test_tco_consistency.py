"""A rent-or-buy answer never contradicts itself: the verdict, the saving over the period, the monthly advantage and
the break-even utilisation set against the user's all point the same way, in the tool and in both languages'
answers, across a grid of utilisations, horizons, rents and billing. Own wording."""

from __future__ import annotations

import itertools

import pytest

from knowledge.catalog import load_catalog
from knowledge.clouds import load_price_book
from tools.cost.tco import TcoRequest, compute_tco
from tests.threads import ask

CATALOG = load_catalog()
BOOK = load_price_book()
GRID = list(itertools.product(("h100-sxm", "a100-80gb-sxm", "h200-sxm"), (15, 45, 75, 100), (0.5, 1, 2, 4), (None, 1.8, 3.5, 9.0), (False, True)))


@pytest.mark.parametrize(("gpu", "use", "years", "rate", "committed"), GRID)
def test_verdict_saving_advantage_and_break_even_agree(gpu, use, years, rate, committed):
    r = compute_tco(TcoRequest(gpu=gpu, utilisation_pct=use, lifetime_years=years, cloud_price_per_gpu_hour=rate, cloud_committed=committed),
                    CATALOG, BOOK)  # fmt: skip
    owning_ahead = r.verdict != "rent"
    assert (r.saving_from_owning > 0) == owning_ahead
    assert (r.monthly_advantage > 0) == owning_ahead
    assert r.monthly_advantage == pytest.approx(r.cloud_monthly_cost - r.own_monthly_cost)
    if r.break_even_applies:  # billed by the hours used: owning wins exactly when the use is above break-even
        assert (r.break_even_utilisation_pct < use) == owning_ahead
    else:
        assert committed or r.cloud_billing != "used_hours"
    if r.verdict == "buy":
        assert r.payback_months is not None and r.payback_months <= r.horizon_months
    if r.verdict == "buy_with_resale":  # not repaid in cash within the period: only the resale value puts owning ahead
        assert r.payback_months is None or r.payback_months > r.horizon_months
        assert 0 < r.saving_from_owning <= r.resale_value


def test_the_grid_reaches_every_verdict():
    seen = {compute_tco(TcoRequest(gpu=g, utilisation_pct=u, lifetime_years=y, cloud_price_per_gpu_hour=p, cloud_committed=c), CATALOG, BOOK).verdict
            for g, u, y, p, c in GRID}  # fmt: skip
    assert seen == {"buy", "buy_with_resale", "rent"}


def tco_result(response):
    # the comparison answered; a follow-up then re-runs the one before it, to say what changed
    call = next(c for c in response.tool_calls if c.name == "compute_tco" and c.result)
    return call.result


# Each question with the words the answer must and must not carry for the verdict the tool reached.
WORDS = {
    "en": {"buy": ("Buying wins", "a month less", "below your"), "rent": ("renting wins", "a month more", "above your"),
           "buy_with_resale": ("only because the servers still fetch", "a month less", "below your")},
    "zh": {"buy": ("买就更划算", "自购每月少花", "低于您的"), "rent": ("租更划算", "自购每月多花", "高于您的"),
           "buy_with_resale": ("期末服务器还能卖", "自购每月少花", "低于您的")},
}  # fmt: skip
BILLED_EVERY_HOUR = {"en": "changes neither side", "zh": "利用率高低不影响"}  # a lease: no break-even utilisation to set against
QUESTIONS = [
    ("en", "Should we buy or rent 8 H100s if they are busy 85% of the time for 3 years?"),
    ("en", "Buy vs rent for 8x A100 80GB, only about 15% utilised, kept 2 years?"),
    ("en", "Owning versus renting 8 H100 for 2 years at 40% use - which is cheaper?"),
    ("zh", "8张H100打算用三年，利用率能到85%，买还是租？"),
    ("zh", "8卡A100 80G，利用率只有15%，用两年，买还是租？"),
    ("zh", "8张H100用两年，利用率40%，买还是租更省钱？"),
]


@pytest.mark.parametrize(("language", "question"), QUESTIONS)
def test_the_answer_says_one_verdict_with_figures_that_agree(offline_advisor, language, question):
    response = ask(offline_advisor, question)
    r = tco_result(response)
    answer = response.answer
    verdict_words, advantage, break_even = WORDS[language][r["verdict"]]
    must = (verdict_words, advantage, break_even if r["break_even_applies"] else BILLED_EVERY_HOUR[language])
    for words in must:
        assert words in answer, (r["verdict"], words)
    others = {w for verdict, words in WORDS[language].items() if verdict != r["verdict"] for w in words[:1]}
    assert not [w for w in others if w in response.summary], r["verdict"]  # no second verdict above the fold


def test_a_utilisation_follow_up_reruns_the_comparison_and_keeps_one_verdict(offline_advisor):
    first = ask(offline_advisor, "Rent or buy 8x H100 at 60% utilisation over 3 years?")
    later = ask(offline_advisor, "and at 20% utilisation?", "Rent or buy 8x H100 at 60% utilisation over 3 years?")
    before, after = tco_result(first), tco_result(later)
    assert next(a["value"] for a in after["assumptions"] if a["key"] == "utilisation_pct") == 20
    assert after["monthly_advantage"] < before["monthly_advantage"]
    assert WORDS["en"][after["verdict"]][1] in later.answer
