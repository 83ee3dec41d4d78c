"""The proposal's recommendation and alternatives are the recommender's tiers, priced as whole configurations with the server named."""

from __future__ import annotations

import pytest

from advisor.proposal.service import make_proposal, render
from advisor.proposal.wording import facts

QUESTIONS = {"zh": "Qwen2.5-72B 部署给50个人同时用", "en": "Serve Qwen2.5-72B to 50 people at the same time"}
TIER_NAMES = {"zh": ["推荐", "经济", "留有余地"], "en": ["Recommended", "Budget", "Room to grow"]}


@pytest.fixture(scope="module")
def proposals(offline_advisor):
    return {language: make_proposal(offline_advisor.planner, question) for language, question in QUESTIONS.items()}


def test_price_fields_are_ones_the_recommender_returns():
    from tools.recommend.schema import Option

    assert facts()["whole_price_fields"][0] == "purchase_cost"
    assert set(facts()["whole_price_fields"]) <= set(Option.model_fields)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_options_are_the_tiers_in_order(proposals, language):
    options = proposals[language].options
    tiers = [o["tier"][language] for o in options if "tier" in o]
    # a Chinese question is a mainland buyer: fewer parts, so two tiers may be one configuration (then listed once)
    assert tiers[0] == TIER_NAMES[language][0] and tiers == [name for name in TIER_NAMES[language] if name in tiers]
    assert len(tiers) >= 2 and all(o["tier_reason"][language] for o in options if "tier" in o)
    assert [o for o in options if "tier" in o] == options[: len(tiers)]  # the tiers lead, the alternatives follow


@pytest.mark.parametrize("language", ["zh", "en"])
def test_whole_configuration_price_includes_the_servers_and_names_them(proposals, language):
    p = proposals[language]
    top = p.options[0]
    assert top["server_count"] >= 1 and top["purchase_cost"] > top["gpu_cost"]
    text = render(p, "markdown", images="files", stem="plan").content.decode()
    verdict = next(line for line in text.splitlines() if line.startswith("**"))
    server = top["server_label"][language]
    assert server in verdict
    price = f"{top['purchase_cost']:,.0f}"
    assert price in verdict
    for option in p.options:
        if "tier_reason" in option:
            assert option["tier_reason"][language] in text
