"""Issue #36 item 1: a "does it fit" question that names a team or users also checks the speed at that load, so a
Mac that holds the model is not waved through for a whole department. Our own wording, both languages."""

from __future__ import annotations

import pytest

from advisor.markdown import number
from tests.chinese_text import english_words
from tests.test_planner_policy import ask, calls


@pytest.mark.parametrize(
    ("question", "slow"),
    [
        ("Would one M3 Ultra Mac Studio hold Llama 3 70B for our group of 40 analysts?", "too slow for a team of 40"),
        ("M3 Ultra 512GB 给我们 30 人的团队用，能放下 Qwen 32B 吗？", "30 人的团队"),
    ],
)
def test_a_mac_that_holds_the_model_is_judged_at_the_teams_load(offline_advisor, question, slow):
    response = ask(offline_advisor, question)
    [memory] = calls(response, "estimate_memory")
    speed = calls(response, "estimate_throughput")[0]  # the Mac at the load; machines of its class are tried after it
    assert memory.result["verdict"] in ("fits", "tight") and speed.args["gpu"].startswith("apple-")
    assert speed.args["batch"] == memory.args["batch"] > 1  # the same users at once as the memory check
    first = response.summary.split("\n\n")[0]
    assert first.startswith("⚠️") and slow in first
    assert number(speed.result["tokens_per_s_per_user_streaming"]) in first
    if "人" in question:
        assert not english_words(first), english_words(first)


def test_a_card_that_keeps_up_says_so_and_one_user_gets_no_load_line(offline_advisor):
    busy = ask(offline_advisor, "Does an H100 fit Qwen 32B for 8 users at once?")
    assert calls(busy, "estimate_throughput") and busy.summary.startswith("**At the stated load it keeps up**")
    alone = ask(offline_advisor, "Does Qwen 32B fit on one H100?")
    assert not calls(alone, "estimate_throughput") and "stated load" not in alone.summary
