"""Issue #36 item 3: best value asked across a range of model sizes ranks the small end on its own too, and says
the main pick is for the large end. Our own wording, both languages."""

from __future__ import annotations

import pytest

from advisor.markdown import number
from tests.test_planner_policy import ask, calls


@pytest.mark.parametrize(
    ("question", "large_end"),
    [
        ("What is the best value GPU to serve anything between 14B and 70B?", "large end of the range"),
        ("要部署 8B 到 70B 之间的模型，哪种卡性价比最好？", "范围中最大的模型"),
    ],
)
def test_the_small_end_of_a_range_gets_its_own_best_value_pick(offline_advisor, question, large_end):
    response = ask(offline_advisor, question)
    ranked = calls(response, "recommend_gpus")
    main = next(call for call in ranked if call.args.get("workloads"))
    alone = [call for call in ranked if not call.args.get("workloads") and call.result["model_label"] != main.result["model_label"]]
    assert alone, [call.args for call in ranked]
    best = alone[0].result["options"][0]
    assert best["count"] <= main.result["options"][0]["count"]  # the small end needs no more cards than the large one
    assert large_end in response.answer and number(best["tokens_per_s_per_10k"]) in response.answer
    line = next(part for part in response.answer.split("\n\n") if large_end in part)
    assert ("性价比最高的是" in line) == ("卡" in question)  # the line is in the question's language


def test_a_single_model_value_question_gets_no_range_line(offline_advisor):
    response = ask(offline_advisor, "best value GPU to serve a 32B model")
    assert "large end of the range" not in response.answer
