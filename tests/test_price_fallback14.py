"""A missing price never turns into a refusal (issue #35): a card with no rent in the buyer's market is priced at what
owning it costs (advisor/offline/tasks/tco/plan.owning_hour, the one fallback), said plainly as an estimate in the lead,
with how far that estimate would have to move to flip the verdict; in both languages."""

from __future__ import annotations

import re

import pytest

from advisor.config import Settings
from advisor.deps import build_advisor
from tests.threads import lead


@pytest.fixture(scope="module")
def advisor():
    return build_advisor(Settings.from_env({}))


def called(response) -> list[str]:
    return [c.name for c in response.tool_calls]


def test_api_against_self_hosting_on_a_card_with_no_mainland_rent_gives_a_verdict_en(advisor):
    r = advisor.answer("Our team is in Chengdu. At 250M tokens a day, would running Llama 3.3 70B ourselves on H20s beat paying an API?", [])
    first = lead(r)
    assert "cheaper" in first or "same" in first  # a verdict, not a request for a rate
    assert "no sourced rental price" not in r.answer
    assert "estimate" in first and "owning the card" in first  # said plainly, with its basis
    assert re.search(r"flips only if the real rate is (above|below) ¥[\d.,]+/GPU-hour, \d+% (more|less) than the estimate", first)
    assert "compute_tco" in called(r)


@pytest.mark.xfail(strict=True, reason="known defect (#36): the zh message's self-deploy words are read as cards bought (owning-cost "
                   "lead, no rate-flip sentence) while the en one is read as renting at an estimated rate; the languages must agree")
def test_api_against_self_hosting_on_a_card_with_no_mainland_rent_gives_a_verdict_zh(advisor):
    r = advisor.answer("公司在成都，每天2.5亿token，用H20自己部署Llama 3.3 70B，会比买API便宜吗？", [])
    first = lead(r)
    assert "更便宜" in first or "差不多" in first
    assert "没有有出处的租价" not in r.answer
    assert "估算" in first and "自购持有成本" in first
    assert re.search(r"只有实际每卡时价格(高|低)于 ¥[\d.,]+（比估算(高|低) \d+%），结论才会反过来", first)


@pytest.mark.parametrize("message, words", [
    ("Inside mainland China, what would a million tokens of Qwen2.5-32B cost me on four H20 cards?", ("per million output tokens", "estimated")),
    ("在国内用四张H20部署Qwen2.5-32B，生成一百万token要花多少钱？", ("每百万输出 token", "估算")),
])  # fmt: skip
def test_cost_per_million_tokens_on_a_card_without_a_china_rent_is_estimated(advisor, message, words):
    r = advisor.answer(message, [])
    first = lead(r)
    assert all(w in first for w in words) and "¥" in first


@pytest.mark.parametrize("message, words, missing", [
    ("We're based in Nanjing: should we lease or purchase 16 H20s for three years?", ("The rent a quote has to beat", "per GPU-hour used"), "No sourced"),
    ("我们在南京，16张H20用三年，是租划算还是买划算？", ("报价的分界线", "¥"), "没有可查来源的国内租价"),
])  # fmt: skip
def test_rent_or_buy_without_a_china_rent_leads_with_the_rent_to_beat(advisor, message, words, missing):
    r = advisor.answer(message, [])
    first = lead(r)
    assert all(w in first for w in words) and "H20" in first
    assert missing in r.answer  # the missing figure is still said, after the answer
