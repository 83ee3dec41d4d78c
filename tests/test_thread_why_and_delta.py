"""Follow-ups on any answer (#36 item 4): "why?" explains the figure just given by its main driver, with the formula,
in a few lines above the fold (the calculation stays below it); a message that changes one value re-runs the
calculation and says how the headline moved against the previous answer. Every conversation here is our own wording."""

from __future__ import annotations

import re

import pytest

from tests.threads import thread



@pytest.mark.parametrize(
    ("messages", "driver"),
    [
        (["what memory per card does Llama 3.1 70B need to serve with a 16k window on H200?", "why that much?"], "Weights"),
        (["Llama 3.1 70B 用 16k 上下文部署在 H200 上，每张卡要多少显存？", "为啥要这么多"], "模型权重"),
        (["should we buy or rent 16 H100 over three years?", "why?"], "Payback = purchase ÷"),
        (["16张H100用三年，买划算还是租划算？", "为什么？"], "回本月数 = 采购款 ÷"),
    ],
)
def test_why_explains_the_previous_figure_by_its_main_driver(offline_advisor, messages, driver):
    first, why = thread(offline_advisor, *messages)
    lines = [line for line in why.summary.strip().split("\n") if line.strip()]
    assert driver in lines[0]
    assert "`" in why.summary or "=" in lines[0]  # the formula is shown, not only a verdict
    assert len(lines) <= 4  # a short explanation above the fold…
    assert why.details  # …with the calculation itself below it
    assert why.summary.strip() != first.summary.strip()


@pytest.mark.parametrize(
    ("messages", "reason"),
    [
        (["GPU utilisation is stuck at 20-30% while fine-tuning a 13B model on 2 A100", "micro batch is 1 already", "why?"],
         "micro-batch 1"),
        (["2张A100微调13B模型，GPU利用率只有二三十", "batch已经是1了", "为什么？"], "micro-batch 为 1"),
    ],
)
def test_why_after_a_diagnosis_names_the_facts_that_ranked_it(offline_advisor, messages, reason):
    *_, why = thread(offline_advisor, *messages)
    first_line = why.summary.strip().split("\n")[0]
    assert reason in first_line
    assert "Here is where the figure comes from" not in why.answer and "这个数字的来历" not in why.answer


@pytest.mark.parametrize(
    ("messages", "moved"),
    [
        (["how much GPU memory for Qwen2.5 32B inference at 8k context on an A100?", "and at 64k context?"],
         r"≈ [\d.]+× the memory of before \([\d.,]+ → [\d.,]+ GB per GPU\)"),
        (["Qwen2.5 32B 在A100上8k上下文推理需要多少显存", "那64k上下文呢"], r"显存约为之前的 [\d.]+ 倍（[\d.,]+ → [\d.,]+ GB/卡）"),
        (["per-user tokens/s for Qwen2.5 7B on one L4 with 8 people at once?", "and with 32 people?"],
         r"≈ [\d.]+× the per-user speed of before"),
    ],
)
def test_a_changed_value_says_how_the_figure_moved(offline_advisor, messages, moved):
    first, then = thread(offline_advisor, *messages)
    assert re.search(moved, then.summary.split("\n")[0]), then.summary[:400]
    ratio = float(re.search(r"([\d.]+)(?:×| 倍)", then.summary).group(1))
    assert ratio != 1.0
    # without the earlier tool results the lead still names the change, and makes up no comparison
    _, bare = thread(offline_advisor, *messages, with_tools=False)
    assert not re.search(moved, bare.summary)


@pytest.mark.parametrize(
    "messages",
    [
        ["how many kilowatts does one 8-GPU H100 box pull?", "and an A100 one?"],
        ["一台8卡H100的整机功率多大？", "换成A100呢"],
    ],
)
def test_a_card_only_follow_up_after_a_power_answer_stays_on_server_power(offline_advisor, messages):
    first, then = thread(offline_advisor, *messages)
    assert [call.name for call in first.tool_calls] == ["plan_facility"]
    assert "plan_facility" in [call.name for call in then.tool_calls]  # the server's power again, not the card's TDP
    assert "check_capability" not in [call.name for call in then.tool_calls]
    assert "A100" in then.summary.split("\n")[0] and "kW" in then.summary.split("\n")[0]
