"""Issue #11 item 3: "X or Y for this model?" is answered per option (fits, speed, cost) with a verdict.

Every figure in the answer must be one a tool returned; equal specs are called equal; a Chinese answer is
entirely Chinese. The questions are our own wording.
"""

from __future__ import annotations

import pytest

from advisor.markdown import number
from tests.chinese_text import english_words
from tests.test_planner_policy import ask, calls


def body(response) -> str:
    """The answer without its sources list (citations keep their original titles)."""
    return response.answer.split("\n\n**Sources**")[0].split("\n\n**参考资料**")[0]


@pytest.fixture(scope="module")
def l40s_or_two_4090s(offline_advisor):
    return ask(offline_advisor, "one L40S or two 4090s for a 32B model in 8-bit?")


def test_each_option_is_sized_at_its_own_card_count(l40s_or_two_4090s):
    memory = {call.args["gpu"]: call.args for call in calls(l40s_or_two_4090s, "estimate_memory")}
    assert memory["l40s"]["num_gpus"] == 1 and memory["rtx-4090"]["num_gpus"] == 2 and memory["rtx-4090"]["tp"] == 2
    assert all(args["precision"] == "int8" and args["model"] == "32B" for args in memory.values())
    speed = {call.args["gpu"]: call for call in calls(l40s_or_two_4090s, "estimate_throughput")}
    assert set(speed) == {"l40s", "rtx-4090"} and speed["rtx-4090"].args["num_gpus"] == 2


def test_each_option_gets_fit_speed_cost_and_a_verdict(l40s_or_two_4090s):
    text = body(l40s_or_two_4090s)
    assert "1× NVIDIA L40S" in text and "2× NVIDIA GeForce RTX 4090" in text
    assert "TP=2" in text and "single GPU" in text and "✅ Fits" in text
    for call in calls(l40s_or_two_4090s, "estimate_throughput"):  # speeds are the tool's, per option
        assert f"{number(call.result['decode_tokens_per_s_per_seq'])} tokens/s" in text
        assert f"{number(call.result['output_tokens_per_s_total'])} tokens/s" in text
    for call in calls(l40s_or_two_4090s, "estimate_memory"):
        assert f"{number(call.result['headroom_pct'])}%" in text
    # the whole option's purchase price: the catalog's per-card price and the machine the cards go in (knowledge/servers.yaml)
    assert "2 × $1,599 + 4-GPU workstation $10,000 = $13,198" in text, text
    assert "$2.24/h" in text and "$1.48/h" in text  # cloud per hour of each option
    pick, head, trade_offs = text.split("\n\n")[:3]  # "which?" is answered first: the pick, the figures it rests on, its trade-offs
    assert pick.startswith("**Choose"), pick
    assert "tokens/s per user" in head, head
    assert "PCIe" in trade_offs and "one card" in trade_offs  # the trade-off: TP=2 over PCIe vs one card


def test_a_chinese_comparison_is_entirely_chinese(offline_advisor):
    response = ask(offline_advisor, "H20 还是 L20 跑 Qwen2.5-72B int4?")
    assert {call.args["gpu"] for call in calls(response, "estimate_throughput")} == {"h20", "l20"}
    text = body(response)
    assert not english_words(text), english_words(text)
    assert "建议选" in text and "放得下" in text and "单用户速度" in text and "token/s" in text and "整套采购价" in text
    assert "NVIDIA H20" in text and "NVIDIA L20" in text


def test_an_option_that_does_not_fit_says_how_many_cards_would(offline_advisor):
    # a 70B holds no 4090 even in 4-bit weights (each side sized down its ladder, #35), two hold it in 4-bit
    response = ask(offline_advisor, "one 4090 or two 4090s for llama 3.1 70b?")
    assert {call.args["num_gpus"] for call in calls(response, "estimate_memory")} == {1, 2}
    text = body(response)
    assert "❌ Does not fit" in text and "needs 2× NVIDIA GeForce RTX 4090" in text
    assert "**Choose 2× NVIDIA GeForce RTX 4090**" in text and "only option that fits" in text
    assert "Memory per card is the same: 24 GB each." in text


def test_equal_memory_is_called_equal_with_a_workload(offline_advisor):
    response = ask(offline_advisor, "A100 80GB vs H100 for Llama 3 70B inference")
    text = body(response)
    assert "Memory per card is the same: 80 GB each." in text
    assert "most memory" not in text.lower() and "more headroom" not in text  # both hold 80 GB: same headroom
    assert len(calls(response, "estimate_throughput")) == 2
    assert "cost matters most" in text or "**Choose" in text


@pytest.mark.parametrize(
    ("question", "same", "never"),
    [("H100 vs A100 80GB", "Same memory: 80 GB each", "Most memory"), ("H100 和 A100 80GB 对比", "显存相同：都是 80 GB", "显存最大")],
)
def test_equal_memory_is_called_equal_without_a_workload(offline_advisor, question, same, never):
    response = ask(offline_advisor, question)
    assert [call.name for call in response.tool_calls] == ["compare_gpus"]  # no workload: the spec table only
    text = body(response)
    assert same in text and never.lower() not in text.lower()
    assert "highest bandwidth: **NVIDIA H100 SXM**" in text or "带宽最高：**NVIDIA H100 SXM**" in text  # a real difference is named


def test_a_training_comparison_times_each_option(offline_advisor):
    response = ask(offline_advisor, "H100和A100 80GB哪个更适合全参微调 llama 3.1 8b, 1T tokens")
    timed = calls(response, "estimate_training_time")
    assert {call.args["gpu"] for call in timed} == {"h100-sxm", "a100-80gb-sxm"}
    assert all(call.args["tokens"] == 1e12 for call in timed)
    text = body(response)
    assert not english_words(text), english_words(text)
    for call in timed:
        assert f"{number(call.result['wall_clock_days'], 2)} 天" in text
    assert "单卡显存相同：都是 80 GB。" in text


def test_lora_speed_is_timed_as_lora(offline_advisor):
    response = ask(offline_advisor, "RTX 4090 还是 A100 做 Qwen2.5-7B 的 LoRA 微调")
    timed = calls(response, "estimate_training_time")
    assert not calls(response, "estimate_throughput") and len(timed) == 2 and {call.args["method"] for call in timed} == {"lora"}
    assert {call.args["method"] for call in calls(response, "estimate_memory")} == {"lora"}
    text = body(response)
    assert "每 10 亿 token 用时" in text and not english_words(text)
    for call in timed:
        assert f"{number(call.result['wall_clock_days'], 2)} 天" in text


def test_a_ranking_asked_for_picks_the_option_and_is_not_reported_unused(offline_advisor):
    value = ask(offline_advisor, "4090和5090跑32B int4，哪个更划算")
    assert "**建议选 1× NVIDIA GeForce RTX 5090**（性价比更高）：同样的钱速度高约" in value.answer
    assert "优先目标" not in value.answer  # the ranking asked for was used, so it is not listed as unused
    cheapest = ask(offline_advisor, "which is cheapest for qwen2.5 32b awq, one 4090 or one 5090?")
    assert "**Choose 1× NVIDIA GeForce RTX 4090**: cheaper; 1× NVIDIA GeForce RTX 5090 is faster." in cheapest.answer
    faster = ask(offline_advisor, "one 4090 or one 5090 for qwen2.5 32b awq, which one is faster?")
    assert "**Choose 1× NVIDIA GeForce RTX 5090**: faster;" in faster.answer


@pytest.mark.parametrize(
    ("question", "note"),
    [
        ("L40S or A100 80GB for LoRA-tuning a 13B model?", "fewest cards that hold the workload"),
        ("A100 和 L40S 哪个更适合做 13B 模型的 LoRA 微调？", "最少卡数"),
    ],
)
def test_unstated_counts_compare_card_for_card_not_card_against_board(offline_advisor, question, note):
    response = ask(offline_advisor, question)
    sized = {call.args["gpu"]: call.args["num_gpus"] for call in calls(response, "estimate_memory")}
    assert sized == {"l40s": 1, "a100-80gb-sxm": 1}  # one card each: both hold a 13B LoRA run
    assert {call.args["num_gpus"] for call in calls(response, "estimate_training_time")} == {1}
    text = body(response)
    assert "1× NVIDIA A100 80GB SXM" in text and "4× NVIDIA A100" not in text
    assert note in response.answer


def test_unstated_counts_take_each_cards_own_fewest(offline_advisor):
    response = ask(offline_advisor, "L40S vs H200 to serve a 70B model")
    fitting = {}
    for call in calls(response, "estimate_memory"):
        if call.result and call.result["verdict"] in ("fits", "tight"):
            fitting.setdefault(call.args["gpu"], call.args["num_gpus"])
    assert fitting["h200-sxm"] < fitting["l40s"]  # 141 GB cards need fewer than 48 GB cards
    assert f"{fitting['l40s']}× NVIDIA L40S" in body(response)
