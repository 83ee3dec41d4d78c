"""A running cost said in a follow-up ("what if colo is $X per kW-month?", 「托管费每千瓦每月X元」) re-runs the comparison
with it, is named as what changed, and is never taken for a rent or a purchase price."""

import pytest

from tests.threads import thread



@pytest.mark.parametrize(("first", "follow", "named", "wrong"), [
    ("Should we buy or rent 4 servers of 8x A100 for 3 years at 60% use?", "and if colocation is $350 per kW-month?",
     "With colocation $350 per kW-month", "rental price"),
    ("4台8卡A100服务器，用3年，利用率60%，买还是租？", "如果机房托管每千瓦每月2500元呢？", "托管费 2500元/千瓦·月", "租用价格"),
])  # fmt: skip
def test_a_colocation_rate_in_a_follow_up_is_a_running_cost(offline_advisor, first, follow, named, wrong):
    response = thread(offline_advisor, first, follow)[-1]
    lead = response.summary.split("\n\n")[0]
    assert named in lead and wrong not in lead, lead
    (tco,) = [c for c in response.tool_calls if c.name == "compute_tco"][-1:]
    assert tco.args.get("colo_price_per_kw_month"), tco.args  # the rate said, per kW-month, in the comparison's inputs
