"""Follow-ups answered as follow-ups (#36): a value a follow-up changes re-runs the previous calculation with it (context,
card count, precision, power price, utilisation, users, period), in the task of the previous answer; a question about the
previous figure ("is that per GPU or total?", "does that include cooling?") is answered from that answer's tool result,
not as a greeting or another question. Every conversation here is our own wording, in both languages."""

from __future__ import annotations

import pytest

from advisor.nlu.ask import _figure_question
from tests.threads import calls, thread


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("is that per GPU or total?", "scope"),
        ("per card?", "scope"),
        ("这个是每张卡的吗？", "scope"),
        ("是总价还是单价？", "scope"),
        ("does that include cooling overhead?", "includes"),
        ("does it cover the network switches?", "includes"),
        ("这个包括常见的额外开销吗？", "includes"),
        ("这个算上 KV 缓存了吗？", "includes"),
        ("那 4 张卡呢？", None),
        ("and with 32k context?", None),
        ("that covers it, thanks", None),
        ("好的，这个包括的够全了", None),
        ("how much does a full rack with networking included cost for a 70B model we want to serve at scale?", None),
        # a short question naming a measure of its own, pointing at nothing, asks that measure anew
        ("单卡显存要多少？", None),
        ("how much memory per GPU?", None),
    ],
)
def test_a_question_about_the_previous_figure_is_read_from_cue_words(message, kind):
    assert _figure_question(message) == kind


@pytest.mark.parametrize(
    ("messages", "tool", "field", "first_line"),
    [
        (["How much GPU memory does Qwen2.5 14B need for inference at 8k context?", "and with 32k context?"],
         "estimate_memory", "context", "With context length"),
        (["Qwen2.5 14B 推理 8k 上下文需要多少显存？", "那 32k 上下文呢？"], "estimate_memory", "context", "改为上下文长度"),
        (["Can 2 A100 80GB fine-tune Llama 3 8B with LoRA?", "what about 4 of them?"], "estimate_memory", "num_gpus", "With number of GPUs 4 instead of 2"),
        (["两张 A100 80GB 能用 LoRA 微调 Llama 3 8B 吗？", "那 4 张卡呢？"], "estimate_memory", "num_gpus", "改为卡数 4"),
        (["How many H100 do I need to serve Llama 3.1 70B for 50 concurrent users?", "what if we use INT4?"],
         "estimate_throughput", "precision", "With precision int4"),
        (["部署 Llama 3.1 70B 给 50 个并发用户，需要几张 H100？", "用 INT4 呢？"], "estimate_throughput", "precision", "改为精度 int4"),
        (["Should we rent or buy 8 H100 for 3 years?", "what if utilisation is only 40%?"], "compute_tco", "utilisation_pct", "With utilisation 40%"),
        (["8 张 H100 用三年，租还是买划算？", "利用率只有 40% 呢？"], "compute_tco", "utilisation_pct", "改为利用率 40%"),
        (["How long to fine-tune Llama 3 8B on 1B tokens with 8 A100?", "and over 2 epochs?"], "estimate_training_time", "tokens", "With epochs 2"),
    ],
)
def test_a_changed_value_reruns_the_previous_calculation_with_it(offline_advisor, messages, tool, field, first_line):
    first, then = thread(offline_advisor, *messages)
    before, after = calls(first, tool), calls(then, tool)
    assert before and after, "the follow-up re-runs the same calculation"
    assert before[0].args.get(field) != after[0].args.get(field)
    assert then.summary.startswith(first_line)


@pytest.mark.parametrize(
    ("messages", "price", "lead"),
    [
        (["What is the yearly power bill for 16 H100 at $0.10/kWh?", "and at $0.18 per kWh?"], 0.18, "With electricity price"),
        (["16 张 H100 一年电费多少？电价 0.5 元/度", "电费按 1.2 元一度算呢？"], 1.2, "改为电价"),
    ],
)
def test_a_power_price_after_a_power_bill_reruns_the_bill_not_a_rent_or_buy(offline_advisor, messages, price, lead):
    """The tariff is a value the site plan takes: the bill is worked out again, not a rent-or-buy comparison."""
    _, then = thread(offline_advisor, *messages)
    assert [call.name for call in then.tool_calls] == ["plan_facility"]
    assert calls(then, "plan_facility")[0].args["electricity_price"] == pytest.approx(price)
    assert then.summary.startswith(lead)


@pytest.mark.parametrize(
    ("messages", "field", "value"),
    [
        (["Should we buy or rent 8 H100 for 3 years?", "what if the colo charges $150/kW-month?"], "colo_price_per_kw_month", 150),
        (["8 张 H100 用三年，买还是租？", "电费 ¥0.8/度 的话呢？"], "electricity_price", 0.8),
    ],
)
def test_the_unit_decides_the_role_of_a_follow_up_price(offline_advisor, messages, field, value):
    """A price per kW-month is colocation and a price per kWh is electricity: neither becomes a GPU's price or a rent."""
    first, then = thread(offline_advisor, *messages)
    before, after = calls(first, "compute_tco")[0].args, calls(then, "compute_tco")[0].args
    for kept in ("server_price", "server_price_each", "cloud_price_per_gpu_hour"):
        assert before.get(kept) == after.get(kept)
    assert after.get(field) == pytest.approx(value)


@pytest.mark.parametrize(
    ("messages", "tool", "lead", "line", "with_tools"),
    [
        (["Should we rent or buy 8 H100 for 3 years?", "is that per GPU or total?"], "compute_tco",
         "are for all 8 GPUs together", "for all 8 GPUs (≈", True),
        (["8 张 H100 用三年，租还是买划算？", "这个是每张卡的吗？"], "compute_tco", "全部 8 张卡合计", "每卡约", True),
        (["How long to fine-tune Llama 3 8B on 1B tokens with 8 A100?", "is that per GPU?"], "estimate_training_time",
         "for all 8 GPUs together", "wall-clock, not per GPU", True),
        # a client that sends text only: without the tool calls in the history, the previous calculation is run again
        # for the previous message
        (["8 张 H100 用三年，租还是买划算？", "这个是每张卡的吗？"], "compute_tco", "全部 8 张卡合计", "每卡约", False),
    ],
)
def test_per_gpu_or_total_is_answered_from_the_previous_result(offline_advisor, messages, tool, lead, line, with_tools):
    first, then = thread(offline_advisor, *messages, with_tools=with_tools)
    assert lead in then.summary.split("\n")[0]
    assert line in then.summary
    assert then.summary.strip() != first.summary.strip()
    assert calls(then, tool), "the figures explained are kept as this turn's tool calls, for the next follow-up"


@pytest.mark.parametrize(
    ("messages", "part"),
    [
        (["What is the yearly power bill for 16 H100 at $0.10/kWh?", "does that include cooling overhead?"], "PUE 1.3"),
        (["16 张 H100 一年电费多少？电价 0.5 元/度", "这个包括常见的额外开销吗？"], "PUE 1.3"),
        (["Qwen2.5 32B 在 A100 上 8k 上下文推理需要多少显存？", "这个包括 KV 缓存吗？"], "KV 缓存"),
    ],
)
def test_what_a_figure_includes_is_answered_from_its_parts(offline_advisor, messages, part):
    first, then = thread(offline_advisor, *messages)
    lines = then.summary.strip().split("\n")
    assert "last answer" in lines[0] or "上一个回答" in lines[0]
    assert any(part in line for line in lines[1:])
    assert [call.name for call in then.tool_calls] == [first.tool_calls[0].name]  # the previous figure, not another question


@pytest.mark.parametrize(
    "messages",
    [
        ["Which GPUs should we buy to serve Llama 3.1 70B for 40 users?", "and the electricity at $0.15/kWh?"],
        ["部署 Llama 3.1 70B 给 40 个用户用，买什么卡？", "电费 ¥0.8/度 的话呢？"],
    ],
)
def test_a_tariff_after_a_sizing_gets_the_bill_of_that_configuration(offline_advisor, messages):
    """A price per kWh is a power price: after a recommendation it is that configuration's bill, not the ranking again."""
    _, then = thread(offline_advisor, *messages)
    plans = calls(then, "plan_facility")
    assert plans and plans[0].args["electricity_price"] in (pytest.approx(0.15), pytest.approx(0.8))
    assert not calls(then, "recommend_gpus")


@pytest.mark.parametrize(
    "messages",
    [
        ["How many tokens/s does Mistral 7B give on one A10 for 4 users?", "and for LoRA fine-tuning?"],
        ["Qwen2.5 7B 在 L40S 上推理每秒能出多少 token？", "那训练呢？"],
    ],
)
def test_training_after_a_serving_speed_asks_whether_the_cards_hold_it(offline_advisor, messages):
    """"那训练呢？" after a serving speed changes the job: the cards are checked for that training, not the speed re-run."""
    _, then = thread(offline_advisor, *messages)
    sized = calls(then, "estimate_memory")
    assert sized and sized[0].args.get("mode") != "inference"
    assert not calls(then, "estimate_throughput")
