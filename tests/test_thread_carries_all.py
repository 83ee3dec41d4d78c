"""Nothing set earlier in a thread is lost (#35/#36): every workload field the user stated in an earlier turn (model,
method, precision, context, batch, ZeRO stage, card, count) reaches the calculation of a later turn unless restated, and
a count the previous answer concluded with ("how many H100s?" → 4) is the count a later run is timed on, not a default.
Our own wording, in both languages; each thread is read as a client sends it (the history carries the tool calls)."""

from __future__ import annotations

import pytest

from tests.threads import thread



def _args(response, name):
    calls = [call for call in response.tool_calls if call.name == name and call.error is None]
    assert calls, (name, [call.name for call in response.tool_calls], response.summary[:300])
    return calls[0].args


# Each field stated in the first turn, a follow-up that changes something else, and what the follow-up's call must keep.
CARRIED = [
    # ZeRO stage and the card count, through a change of card
    ("en", ["Full fine-tune of Llama 3.1 8B with ZeRO-2 on 4 A100 80GB, memory per GPU?", "and on H100s?"],
     "estimate_memory", {"zero_stage": 2, "num_gpus": 4, "gpu": "h100-sxm", "method": "full"}),
    ("zh", ["用 ZeRO-2 在 4 张 A100 80G 上全量微调 Llama 3.1 8B，每卡显存多少？", "换成 H100 呢？"],
     "estimate_memory", {"zero_stage": 2, "num_gpus": 4, "gpu": "h100-sxm", "method": "full"}),
    # sequence length and batch, through a change of model
    ("en", ["Memory for a LoRA fine-tune of Qwen2.5 7B at 8k sequence length and batch 2 on one A100 80GB?", "what about 14B?"],
     "estimate_memory", {"context": 8192, "batch": 2, "method": "lora", "num_gpus": 1}),
    ("zh", ["在一张 A100 80G 上对 Qwen2.5 7B 做 LoRA 微调，序列长度 8k，batch 2，显存多少？", "那 14B 呢？"],
     "estimate_memory", {"context": 8192, "batch": 2, "method": "lora", "num_gpus": 1}),
    # precision and context of a serving question, through a change of card
    ("en", ["Can two RTX 4090 run Qwen2.5 32B in AWQ with 16k context?", "and two L40S?"],
     "estimate_memory", {"precision": "awq-int4", "context": 16384, "num_gpus": 2, "gpu": "l40s"}),
    ("zh", ["两张 4090 能跑 Qwen2.5 32B 的 AWQ 吗？上下文 16k", "换成两张 L40S 呢？"],
     "estimate_memory", {"precision": "awq-int4", "context": 16384, "num_gpus": 2, "gpu": "l40s"}),
    # the model, method and cards of a sizing, into a run-time question that names none of them
    ("en", ["We plan a full fine-tune of Qwen2.5 14B with ZeRO-3 on 8 H100, how much memory per card?", "how long would 3B tokens take?"],
     "estimate_training_time", {"model": "qwen2.5-14b", "num_gpus": 8, "gpu": "h100-sxm", "method": "full", "tokens": 3_000_000_000}),
    ("zh", ["打算用 ZeRO-3 在 8 张 H100 上全量微调 Qwen2.5 14B，每张卡要多少显存？", "训练 30 亿 token 要多久？"],
     "estimate_training_time", {"model": "qwen2.5-14b", "num_gpus": 8, "gpu": "h100-sxm", "method": "full", "tokens": 3_000_000_000}),
]


@pytest.mark.parametrize(("language", "messages", "tool", "kept"), CARRIED, ids=[f"{c[0]}-{i}" for i, c in enumerate(CARRIED)])
def test_a_follow_up_keeps_every_field_set_before(offline_advisor, language, messages, tool, kept):
    *_, last = thread(offline_advisor, *messages)
    assert last.language == language
    args = _args(last, tool)
    assert {key: args.get(key) for key in kept} == kept, last.summary[:400]


@pytest.mark.parametrize(
    ("language", "messages", "tokens"),
    [
        ("en", ["8B full fine-tune in bf16, how many H100 do I need?", "how long would 1B tokens take?", "and with LoRA instead?"], 1e9),
        ("zh", ["8B 模型全参微调，bf16，需要几张 H100？", "训练 5 亿 token 要多久？", "用 LoRA 呢？"], 5e8),
    ],
)
def test_a_concluded_count_is_kept_not_a_default(offline_advisor, language, messages, tokens):
    """The run is timed on the cards the recommendation concluded with, through a change of method, and says so."""
    recommended, timed, lora = thread(offline_advisor, *messages)
    option = _args(recommended, "recommend_gpus")  # the count is the recommendation's own, not one the user gave
    assert "num_gpus" not in option
    count = next(call.result for call in recommended.tool_calls if call.name == "recommend_gpus")
    chosen = (count.get("tiers") or [{}])[0].get("option") or count["options"][0]
    for answer in (timed, lora):
        args = _args(answer, "estimate_training_time")
        assert (args["gpu"], args["num_gpus"], args["tokens"]) == (chosen["gpu_id"], chosen["count"], tokens), answer.summary[:300]
    assert _args(lora, "estimate_training_time")["method"] == "lora"
    said = {"en": "the count the previous answer concluded with", "zh": "按上一个回答得出的配置计算"}[language]
    assert said in timed.answer


@pytest.mark.parametrize(
    ("message", "headcount"),
    [
        ("About 30 colleagues will use an internal Qwen2.5 32B assistant, which GPU should we buy?", 30),
        ("我们部门大概 30 个同事要用内部的 Qwen2.5 32B 问答服务，选什么卡？", 30),
        ("我们团队 12 位同事想用 Qwen2.5 7B 做代码补全，买什么卡？", 12),
    ],
)
def test_a_headcount_beside_a_group_word_is_the_audience(offline_advisor, message, headcount):
    """"30 个同事": the group word makes it a team service and the number is its headcount (a peak share of it is the load)."""
    response = offline_advisor.answer(message, [])
    args = _args(response, "recommend_gpus")
    assert args.get("concurrency") and args["concurrency"] < headcount, args  # a peak share of the headcount, not all of it
    assert str(headcount) in response.answer


@pytest.mark.parametrize(("text", "value"), [("训练 10 亿 token 要多久", 1e9), ("预算 3 万元", 3e4), ("20 万条数据", 2e5)])
def test_a_magnitude_word_after_a_space_is_part_of_the_number(text, value):
    from tools.quantities import find_numbers

    assert [n.value for n in find_numbers(text)] == [value]


@pytest.mark.parametrize(
    ("messages", "model"),
    [
        (["Memory to serve Qwen2.5 14B on one L40S?", "what about 32B?"], "qwen2.5-32b"),
        (["Llama 3.1 8B 全量微调，8 张 H100，每卡显存多少？", "那 70B 呢？"], "llama-3.1-70b"),
    ],
)
def test_a_size_alone_keeps_the_model_line(offline_advisor, messages, model):
    """"what about 32B?" after Qwen2.5-14B sizes Qwen2.5-32B, not a generic 32B model."""
    *_, last = thread(offline_advisor, *messages)
    assert _args(last, "estimate_memory")["model"] == model


def test_a_size_the_line_lacks_stays_generic(offline_advisor):
    *_, last = thread(offline_advisor, "Llama 3.1 8B full fine-tune on 8 H100, memory per GPU?", "and 32B?")
    assert _args(last, "estimate_memory")["model"] == "32B"


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("Can one RTX 4090 serve Llama 3.1 8B?", "at the default context length of 4,096; at 32,768"),
        ("一张 L40S 能全量微调 Qwen2.5 1.5B 吗？", "以上按默认批大小 1 计算；若为 8"),
    ],
)
def test_a_default_the_verdict_hangs_on_is_said_next_to_it(offline_advisor, message, said):
    response = offline_advisor.answer(message, [])
    assert said in response.summary.split("\n\n", 2)[1], response.summary[:500]


def test_a_verdict_that_holds_either_way_says_no_default(offline_advisor):
    response = offline_advisor.answer("Memory for a LoRA fine-tune of Qwen2.5 7B at 8k sequence length and batch 2 on one A100 80GB?", [])
    assert "at the default" not in response.summary
