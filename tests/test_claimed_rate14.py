"""Issue #36: a rate someone claims ("the vendor says 30k tok/s on 8 H100s, realistic?") gets the check: the serving
estimate for that setup set against the claimed figure, the verdict first (plausible / optimistic by a multiple /
impossible / conservative), not a neighbouring calculator (a vendor-claim card, a load sizing, a rent-or-buy).

Wording here is our own."""

from __future__ import annotations

import pytest

from advisor.nlu.ask import Ask
from advisor.nlu.reader import shared_understanding
from knowledge.catalog import load_catalog

CLAIMS = [
    # (message, claimed figure, scope, word the verdict leads with)
    ("Our reseller says we will get 30,000 tokens/s on 8 H100s with Llama 3 70B. Is that realistic?", 30000, "total", "Optimistic"),
    ("A colleague claims 400 tok/s per user for 20 users on 4 A100s with Llama 3 70B, believable?", 400, "per_user", "Not possible"),
    ("The integrator promised 15 tok/s per user for 32 users on 4 A100s with Llama 3 70B. Plausible?", 15, "per_user", None),
    ("供应商说8张H100跑Llama 3 70B能到每秒3万token，靠谱吗？", 30000, "total", "偏乐观"),
    ("销售号称4张A100跑Llama 3 70B，20个人同时用每个用户每秒400 token，可信吗？", 400, "per_user", "做不到"),
    ("厂商说4张A100跑Llama 3 70B，32个并发每个用户15 tok/s，现实吗？", 15, "per_user", None),
]


@pytest.fixture(scope="module")
def read():
    understanding, catalog = shared_understanding(), load_catalog()
    return lambda message: Ask.read(understanding.read(message, []), catalog)


@pytest.mark.parametrize(("message", "figure", "scope", "lead"), CLAIMS)
def test_a_claimed_rate_is_a_field_of_the_ask(read, message, figure, scope, lead):
    ask = read(message)
    assert ask.claimed_rate
    assert ask.observed_speed == figure
    assert ask.observed_scope == scope


def test_a_measurement_is_no_claim(read):
    ask = read("We measure 12 tok/s per user with 40 users on 4 A100 80GB running Llama 3.1 70B in vLLM, is that normal?")
    assert ask.observed_speed == 12 and not ask.claimed_rate


@pytest.mark.parametrize(("message", "figure", "scope", "lead"), CLAIMS)
def test_the_claim_gets_the_serving_check_verdict_first(offline_advisor, message, figure, scope, lead):
    response = offline_advisor.answer(message, [])
    calls = [call for call in response.tool_calls if call.name == "estimate_throughput" and call.result]
    assert calls, response.answer[:300]
    first = response.summary.split("\n\n")[0]
    zh = not message.isascii()
    assert ("声称" in first) if zh else ("claimed" in first), first
    if lead is not None:
        assert lead in first.split("：" if zh else ":")[0], first
    else:  # a claim near the estimate is plausible or conservative, never "optimistic" nor impossible
        assert not any(word in first for word in ("Optimistic", "Not possible", "偏乐观", "做不到")), first
    assert "target" not in first.lower() and "目标" not in first  # the claimed figure is checked, not sized for
