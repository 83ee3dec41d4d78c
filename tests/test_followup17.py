"""Follow-ups apply to the answer before them: a value named in a follow-up re-runs that calculation with it (never "not
used"), and "is it worth buying one?" after two cards were compared is the value verdict on those cards, not a general
card on buying. Our own wording, en and zh."""

from __future__ import annotations

import pytest

from tests.threads import calls, first_line, lead, thread

NOT_USED = ("does not use", "Not used by this calculation", "用不到")


# ---- 1. a value named in a follow-up: the previous calculation re-run with it ----
def _args(response, tool, arg):
    return [call.args.get(arg) for call in calls(response, tool)]


def _most_sequences(response):
    return max((batch or 1) for batch in _args(response, "estimate_memory", "batch"))


def _longer_prompt(follow, first):
    """The speed estimated again at the context the follow-up named (shown in its lead), with other arguments than before."""
    before = [call.args for call in calls(first, "estimate_throughput")]
    return "8,192" in first_line(follow) and any(call.args not in before for call in calls(follow, "estimate_throughput"))


@pytest.mark.parametrize(
    ("messages", "tool", "moved"),
    [
        # a load on a memory sizing: the KV cache sized for more sequences at once
        (["How much GPU memory does Llama 3.1 70B need for inference in FP16?", "and with 64 people using it at once?"],
         "estimate_memory", lambda follow, first: _most_sequences(follow) > _most_sequences(first)),
        (["Llama 3.1 70B 推理用 FP16 要多少显存？", "64个人同时用呢？"],
         "estimate_memory", lambda follow, first: _most_sequences(follow) > _most_sequences(first)),
        # a weight format on a memory sizing
        (["Llama 3.1 70B 推理用 FP16 要多少显存？", "换成 INT4 呢？"],
         "estimate_memory", lambda follow, first: any("int4" in str(p) for p in _args(follow, "estimate_memory", "precision"))),
        (["how much VRAM to serve Qwen2.5-32B in bf16?", "what about INT4?"],
         "estimate_memory", lambda follow, first: any("int4" in str(p) for p in _args(follow, "estimate_memory", "precision"))),
        # a context on a speed
        (["what speed per user does Qwen2.5-32B reach on two L40S with 16 users?", "and at 8k context?"],
         "estimate_throughput", _longer_prompt),
        (["两张L40S跑Qwen2.5-32B，16个用户，每人多少token/s？", "上下文 8k 呢？"],
         "estimate_throughput", _longer_prompt),
    ],
)
def test_a_value_in_a_follow_up_reruns_the_calculation(offline_advisor, messages, tool, moved):
    first, follow = thread(offline_advisor, *messages)
    assert not any(words in follow.summary for words in NOT_USED), follow.summary
    assert calls(follow, tool) and moved(follow, first), [call.args for call in calls(follow, tool)]
    assert "instead of" in first_line(follow) or "原为" in first_line(follow) or "With " in first_line(follow) or "改为" in first_line(follow)


# ---- 2. "and for training?" after an answer in parts: the training sizing of the same model on the same cards ----
@pytest.mark.parametrize(
    "messages",
    [
        ["Can 2 A100 80GB serve Qwen2.5-32B, and what would they cost?", "and for training?"],
        ["两张A100 80G能跑Qwen2.5-32B推理吗？要花多少钱？", "训练呢？"],
        ["Could one H100 serve Llama 3.1 8B, and how much does that cost?", "what about training?"],
    ],
)
def test_training_after_an_answer_in_parts_sizes_the_training(offline_advisor, messages):
    _, follow = thread(offline_advisor, *messages)
    assert "training" in [call.args.get("mode") for call in calls(follow, "estimate_memory")], [c.name for c in follow.tool_calls]
    assert not calls(follow, "compare_gpus") and not calls(follow, "compute_tco")
    assert not any(words in follow.summary for words in NOT_USED), follow.summary


# ---- 3. "is it worth buying one?" after a comparison: the value verdict on the thread's cards ----
@pytest.mark.parametrize(
    ("messages", "verdicts"),
    [
        (["Compare the RTX 4090 and the RTX 5090 for LLM inference", "Is it worth buying one?"],
         ("**Yes", "**It depends", "**Not for speed")),
        (["RTX 4090 vs RTX 5090 for local LLMs?", "would it be worth it to buy?"], ("**Yes", "**It depends", "**Not for speed")),
        (["对比一下4090和5090跑推理", "值得买一张吗？"], ("**值得", "**看任务", "**只为速度不值得")),
        (["H100和H200哪个适合推理？", "值不值得买？"], ("**值得", "**看任务", "**只为速度不值得")),
    ],
)
def test_worth_buying_after_a_comparison_weighs_the_compared_cards(offline_advisor, messages, verdicts):
    _, follow = thread(offline_advisor, *messages)
    assert any(verdict in lead(follow) for verdict in verdicts), lead(follow)
    assert calls(follow, "check_gpu_claim") or calls(follow, "recommend_gpus")  # the two cards weighed by a tool
    assert not calls(follow, "search_knowledge")  # not a general card on buying
    names = [row["gpu"]["name"] for call in calls(follow, "compare_gpus") for row in call.result["rows"]]
    assert len(names) == 2 and all(name in follow.summary for name in names), names  # the thread's two cards
