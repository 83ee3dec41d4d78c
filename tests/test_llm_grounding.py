"""Every figure in an LLM answer must come from a tool result or the user: checked, repaired once, else offline."""

from __future__ import annotations

import json

import pytest

from advisor.contract import ChatTurn
from advisor.llm.grounding import build_corpus, extract_figures, ungrounded_figures
from advisor.testing import ScriptedOpenAIServer, call, reply
from tests.llm_support import MEMORY_QUESTION, MEMORY_QUESTION_ZH, QWEN_7B, advisor_for, qwen_total_gb

RESULT = {
    "total_per_gpu_gb": 27.18,
    "items": [{"value": 15.24, "unit": "GB", "formula": "7.62e9 params × 16 bits / 8 = 15.24 GB"}],
    "num_gpus": 2,
    "wall_clock_days": 21.0,
    "capex": 316200.0,
    "usd_to_cny": 7.2,
    "tdp_w": 700.0,
}
CARDS = [24.0, 80.0]


# Scripted model servers listen on 127.0.0.1: no proxy; start-up costs are paid before any test times itself.
pytestmark = pytest.mark.usefixtures("no_proxy", "warm_llm_mode")


def ungrounded(text: str, user: str = "How much memory?") -> list[str]:
    return ungrounded_figures(text, build_corpus([RESULT], [user], CARDS))


@pytest.mark.parametrize(
    "text",
    [
        "You need 27.2 GB per GPU.",
        "约 27 GB 显存，其中权重 15.24 GB。",
        "about 30 GB",  # rounded, and marked as approximate
        "25.3 GiB",  # the same amount in GiB
        "54.4 GB over both GPUs",  # 2 × 27.2: a multiple by a GPU count from the result
        "It fits on one 24 GB card; an A100 80GB has room to spare.",  # catalog sizes, naming a card
        "Training takes 21 days (504 hours).",
        "Buying costs $316,200 (¥2,276,640), or 31.6万美元.",
        "Each GPU draws 700 W (0.7 kW).",
        "You said 3 nodes and 64GB of RAM: fine.",
    ],
)
def test_figures_from_the_tools_or_the_user_are_grounded(text):
    assert ungrounded(text, user="We have 3 nodes with 64GB of RAM each. How much memory?") == []


@pytest.mark.parametrize(
    "text, figures",
    [
        ("You need 12 GB.", ["12 GB"]),
        ("需要12GB显存，训练约3天，花费约1.5万元。", ["12GB", "3天", "1.5万元"]),
        ("It delivers 989 TFLOPS and 50 tok/s.", ["989 TFLOPS", "50 tok/s"]),
        ("About 45 GB GPU memory in total.", ["45 GB"]),  # "GPU memory" does not make it a card size
    ],
)
def test_invented_figures_are_caught(text, figures):
    assert ungrounded(text) == figures


def test_figures_without_units_are_not_checked():
    assert extract_figures("Use tp=2, batch 8 and 4096 tokens of context on Qwen2.5-72B in 2025.") == []


def test_ranges_check_both_ends():
    assert ungrounded("Plan for 27–40 GB.") == ["40 GB"]
    assert ungrounded("Plan for 10–27.2 GB.") == ["10 GB"]


# --- over HTTP --------------------------------------------------------------------------------


def test_an_invented_number_is_caught_and_repaired():
    right = f"Qwen2.5-7B needs {qwen_total_gb():.1f} GB per GPU."

    def names_the_figure(body: dict) -> None:
        last = body["messages"][-1]
        assert last["role"] == "user" and "12 GB" in last["content"] and "tool" in last["content"]

    script = [call("estimate_memory", QWEN_7B), reply("You need 12 GB."), reply(right, check=names_the_figure)]
    with ScriptedOpenAIServer(script) as server:
        response = advisor_for(server.base_url).answer(MEMORY_QUESTION)
    assert response.mode == "llm" and response.answer == right and response.notice is None
    assert response.grounding.model_dump() == {"checked": True, "ungrounded": ["12 GB"], "repaired": True}


def test_an_answer_without_any_tool_call_is_repaired_by_calling_one():
    script = [reply("A 7B model needs about 14 GB."), call("estimate_memory", QWEN_7B), reply(f"It needs {qwen_total_gb():.2f} GB.")]
    with ScriptedOpenAIServer(script) as server:
        response = advisor_for(server.base_url).answer(MEMORY_QUESTION)
    assert response.mode == "llm" and response.grounding.repaired and [c.name for c in response.tool_calls] == ["estimate_memory"]


def test_a_number_that_survives_the_repair_gets_the_offline_answer_with_a_bilingual_notice():
    script = [call("estimate_memory", QWEN_7B), reply("你需要 12 GB 显存。"), reply("还是 12 GB。")]
    with ScriptedOpenAIServer(script) as server:
        response = advisor_for(server.base_url).answer(MEMORY_QUESTION_ZH)
    assert response.mode == "offline" and response.language == "zh"
    assert "12 GB" in response.notice and "离线规划器" in response.notice
    assert response.grounding.model_dump() == {"checked": True, "ungrounded": ["12 GB"], "repaired": False}
    assert "12 GB。" not in response.answer  # the invented answer is not shown


def test_earlier_tool_results_ground_a_follow_up_and_reach_the_model():
    total = qwen_total_gb()
    first_answer = f"Qwen2.5-7B needs {total:.1f} GB per GPU."

    def sees_earlier_result(body: dict) -> None:
        roles = [m["role"] for m in body["messages"]]
        assert roles[:5] == ["system", "user", "assistant", "tool", "assistant"], roles
        assert json.loads(body["messages"][3]["content"])["total_per_gpu_gb"] == pytest.approx(total, rel=1e-3)

    with ScriptedOpenAIServer(
        [call("estimate_memory", QWEN_7B), reply(first_answer), reply(f"Yes: {total:.1f} GB fits in 24 GB.", check=sees_earlier_result)]
    ) as server:
        advisor = advisor_for(server.base_url)
        first = advisor.answer(MEMORY_QUESTION)
        # A stateless client sends only the text back; the advisor finds the tool calls behind it.
        history = [ChatTurn(role="user", content=MEMORY_QUESTION), ChatTurn(role="assistant", content=first.answer)]
        follow_up = advisor.answer("Does that fit a 24 GB card?", history)
    assert follow_up.mode == "llm" and follow_up.tool_calls == [] and follow_up.grounding.checked and not follow_up.grounding.ungrounded


def test_the_offline_golden_answers_raise_no_false_alarms(offline_advisor):
    """The planner's answers quote only tool results: the check must pass every one of them."""
    from benchmarks.golden import history, load_cases, question
    from knowledge.catalog import load_catalog

    cards = [gpu.memory_gb for gpu in load_catalog().gpus]
    flagged = {}
    for case in load_cases():
        turns = history(case, offline_advisor)
        asked = question(case)
        response = offline_advisor.answer(asked, turns)
        corpus = build_corpus(
            [c.result for c in response.tool_calls if c.result], [asked, *(t.content for t in turns if t.role == "user")], cards
        )
        if found := ungrounded_figures(response.answer, corpus):
            flagged[case["id"]] = found
    assert flagged == {}


def test_the_gap_between_a_stated_limit_and_a_tool_figure_is_grounded_and_no_other_gap_is():
    corpus = build_corpus([{"total_cost_usd": 39516}], ["Best setup to serve a 70B model with a $40,000 budget?"])
    assert ungrounded_figures("Within your budget: $39,516, $484 to spare.", corpus) == []
    assert ungrounded_figures("Over your budget by $2,300.", build_corpus([{"total_cost_usd": 42300}], ["a $40,000 budget"])) == []
    assert ungrounded_figures("Within your budget: $39,516, $1,484 to spare.", corpus) == ["$1,484"]
