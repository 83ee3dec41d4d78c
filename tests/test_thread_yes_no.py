"""A yes/no question in a problem thread opens with the yes or the no about the thread's leading cause, before the
ranked causes; it continues the thread and is not cut into parts. Wording is our own; both languages."""

from __future__ import annotations

import pytest

from tests.threads import ask

PCIE_EN = "We train a 13B model with FSDP on 8 RTX 4090s over PCIe and it's very slow, GPU util 40%"
PCIE_ZH = "我们用8张4090通过PCIe做FSDP训练13B模型，很慢，GPU利用率只有40%"

CASES = [
    # (follow-up, first message, how the answer must open, words of the leading cause it then names)
    ("Is that my problem, the missing NVLink?", PCIE_EN, "**Yes.**", "PCIe"),
    ("is it the data loader then?", PCIE_EN, "**Probably not", "PCIe"),
    ("这是不是瓶颈？没有NVLink的原因吗？", PCIE_ZH, "**是的。**", "PCIe"),
    ("是不是数据加载的问题？", PCIE_ZH, "**大概率不是", "PCIe"),
    ("这是不是瓶颈？", PCIE_ZH, "**是的，", "PCIe"),
]


@pytest.mark.parametrize(("message", "first", "opening", "cause"), CASES, ids=[c[0][:24] for c in CASES])
def test_a_yes_no_question_in_a_problem_thread_is_answered_yes_or_no_first(offline_advisor, message, first, opening, cause):
    reply = ask(offline_advisor, message, first)
    assert reply.summary.startswith(opening), reply.summary[:300]
    assert cause in reply.summary.split("\n")[0]
    assert "**1.**" not in reply.answer  # one report, not two questions answered apart
    assert "diagnose" in {call.name for call in reply.tool_calls}


def test_the_yes_no_cue_skips_questions_that_ask_what():
    from advisor.nlu.cues import says

    assert says("asks_yes_no", "is that my problem?") and says("asks_yes_no", "这是不是瓶颈？")
    assert not says("asks_yes_no", "what is the bottleneck?") and not says("asks_yes_no", "how is it so slow?")


@pytest.mark.parametrize(("message", "first", "verdict"), [
    ("So should we buy H100s instead?", PCIE_EN, "**Yes, NVIDIA H100 SXM would remove the leading cause"),
    ("那要不要换H100？", PCIE_ZH, "**会有帮助：换成 NVIDIA H100 SXM"),
])
def test_another_card_in_a_problem_thread_says_whether_it_removes_the_leading_cause(offline_advisor, message, first, verdict):
    reply = ask(offline_advisor, message, first)
    assert verdict in reply.summary.split("\n")[0], reply.summary[:400]
    assert "PCIe" in reply.summary.split("\n")[0]  # the cause it removes, named
