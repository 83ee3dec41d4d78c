"""Several vendors weighed for one workload: a row per vendor named, one status per part, and a verdict first."""

from __future__ import annotations

import pytest

from knowledge.vendor_options import vendor_options


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("should we go with nvidia or huawei ascend for serving", ["nvidia", "ascend"]),
        ("海光和昇腾哪个好", ["hygon", "ascend"]),
        ("plumbing costs for the new lab", []),
    ],  # "mlu" inside a word is no vendor
)
def test_vendors_are_read_in_the_order_named(text, expected):
    assert [v.id for v in vendor_options().named_in(text.casefold())] == expected


@pytest.mark.parametrize(
    ("question", "verdict_word", "no_part"),
    [
        (
            "Our team in Shenzhen must serve a 70B model: Nvidia, Ascend or Hygon, which should we buy?",
            "in mainland China",
            "no part in our catalog",
        ),
        ("给70B模型做线上推理，英伟达、华为昇腾和海光DCU到底选哪家", "在中国大陆", "目录中无此型号"),
    ],
)
def test_each_named_vendor_gets_a_row_and_the_answer_leads_with_a_verdict(offline_advisor, question, verdict_word, no_part):
    response = offline_advisor.answer(question, [])
    first, *rest = response.summary.split("\n\n")
    assert first.startswith("**") and verdict_word in first
    table = next(p for p in rest if p.startswith("|"))
    rows = [line for line in table.splitlines()[2:]]
    assert len(rows) == 3  # NVIDIA, Ascend, Hygon: none dropped
    assert no_part in rows[2]  # Hygon: no invented figures
    (call,) = [c for c in response.tool_calls if c.name == "recommend_gpus"]
    assert call.args["region"] == "cn" and set(call.args["gpus"]) >= {"h20", "ascend-910b"}


@pytest.mark.parametrize(
    ("owned", "fresh", "rent_header"),
    [
        (
            "We already have 4x RTX 3090 in a box. Which layout should serve Qwen2.5-32B for the team?",
            "Which GPUs should we buy to serve Qwen2.5-32B for the team?",
            "Cloud/h",
        ),
        ("手上已经有4张3090了，给团队部署Qwen2.5-32B用什么方案", "给团队部署Qwen2.5-32B该买什么卡", "云上每小时"),
    ],
)
def test_cards_on_hand_get_no_rental_column(offline_advisor, owned, fresh, rent_header):
    on_hand = offline_advisor.answer(owned, [])
    assert rent_header not in on_hand.answer
    assert "≈ $" not in on_hand.summary.split("\n\n")[0] and "整套约" not in on_hand.summary.split("\n\n")[0]  # no price for owned cards
    assert rent_header in offline_advisor.answer(fresh, []).answer  # the column is there when nothing is owned
