"""The user's figures bound to their role, across turns (issue #35): a volume of tokens or requests is never a price; a
bare amount beside an hourly rent is the other rent; a reservation thread keeps the rates stated in its first message;
the load's base, peak and burst hours are read and used by the mix; and a figure the user gave is never asked for
again. English and Chinese, wording of our own."""

from __future__ import annotations

import pytest

from advisor.contract import ChatTurn
from advisor.nlu.tco_said import load_shape
from advisor.nlu.values import find_values
from knowledge.catalog import load_catalog
from tools.cost.reservation import ReservationRequest, reserved_or_on_demand

CATALOG = load_catalog()


def kinds(text):
    return {v.kind: v.value for v in find_values(text, CATALOG)}


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("we push 3 billion tokens/day through the API", 3e9),
        ("roughly 400M tokens/month of chat traffic", 4e8),
        ("about 1.5 billion tokens per day on a 70B model", 1.5e9),
        ("每月2亿 token 的调用量", 2e8),
        ("每天大约3000万tokens", 3e7),
        ("一个月5亿个token", 5e8),
    ],
)
def test_a_volume_of_tokens_is_a_count_never_a_price_or_a_model_size(text, tokens):
    found = kinds(text)
    assert found.get("tokens") == pytest.approx(tokens)
    assert "money" not in found and found.get("params") != pytest.approx(tokens)  # "70B" beside it stays the model's size


@pytest.mark.parametrize("text", ["一共5千万次请求", "上个月大概2亿次调用", "we logged 30 million requests"])
def test_a_count_of_requests_without_a_period_is_never_money(text):
    assert "money" not in kinds(text)


@pytest.mark.parametrize(
    ("text", "per_second"),
    [("5千万次请求每天", 5e7 / 86_400), ("每天5千万次请求", 5e7 / 86_400), ("每月3亿次调用", 3e8 / 86_400 / 30), ("about 2 million requests a day", 2e6 / 86_400)],
)
def test_a_volume_of_requests_is_a_rate_never_a_price(text, per_second):
    found = kinds(text)
    assert found.get("request_rate") == pytest.approx(per_second)
    assert "money" not in found


def test_the_tokens_per_second_unit_stays_a_speed():
    assert "rate" in kinds("it does 2500 tokens/s on one card")


def _tagged(text):
    class Tagged:  # the reader only needs each value
        def __init__(self, value):
            self.value = value

    return [Tagged(v) for v in find_values(text, CATALOG)]


@pytest.mark.parametrize(
    ("text", "base", "peak", "hours"),
    [
        ("Our base load is 8 H100s around the clock and we burst to 24 for about 6 hours a day", 8, 24, 6),
        ("We run 12 L40S steadily and peak at 30 for about 3 hours a day", 12, 30, 3),
        ("平时稳定用 16 张 A100，每天高峰 4 小时要 40 张", 16, 40, 4),
        ("常驻 10 张卡，突发时最多 25 张，每天大概 5 小时", 10, 25, 5),
    ],
)
def test_the_load_shape_binds_each_count_to_base_or_peak(text, base, peak, hours):
    shape = load_shape(text, _tagged(text))
    assert (shape.base_gpus, shape.peak_gpus, shape.burst_hours_per_day) == (base, peak, hours)


def test_the_mix_reserves_the_stated_base_not_the_average():
    hours = 8 * 730 + 16 * 6 * 730 / 24  # 8 all the time, 16 more for 6 h a day
    said = reserved_or_on_demand(ReservationRequest(reserved_per_gpu_hour=1.6, on_demand_per_gpu_hour=2.5, gpu_hours_per_month=hours, peak_gpus=24, base_gpus=8))
    mix = next(o for o in said.options if o.way == "mix")
    assert said.base_stated and mix.reserved_gpus == 8 and mix.on_demand_gpu_hours == pytest.approx(16 * 6 * 730 / 24)
    derived = reserved_or_on_demand(ReservationRequest(reserved_per_gpu_hour=1.6, on_demand_per_gpu_hour=2.5, gpu_hours_per_month=hours, peak_gpus=24))
    assert not derived.base_stated and next(o for o in derived.options if o.way == "mix").reserved_gpus == 12  # average 12, assumed all day


def _thread(advisor, messages):
    history, response = [], None
    for message in messages:
        response = advisor.answer(message, history)
        history += [ChatTurn(role="user", content=message), ChatTurn(role="assistant", content=response.answer)]
    return response


def _call(response, name):
    return next(c for c in response.tool_calls if c.name == name)


@pytest.mark.parametrize(
    ("messages", "reserved", "on_demand", "busy", "yours"),
    [
        (["We pay $2.1/GPU-hr on-demand for 16 H100s and could reserve at $1.4 for a year. Should we reserve?",
          "what if we only use it 50% of the time?"], 1.4, 2.1, 0.5, "at your rates: $2.10 on demand and $1.40 reserved"),
        (["我们现在按需租 H100 是每卡每小时 15 元，包年可以谈到 10 元，租 32 张卡，要不要签包年？", "如果只有60%的时间在用呢？"],
         10, 15, 0.6, "按需每卡时 ¥15.00，预留每卡时 ¥10.00"),
    ],
)  # fmt: skip
def test_a_follow_up_keeps_the_rates_stated_earlier(offline_advisor, messages, reserved, on_demand, busy, yours):
    response = _thread(offline_advisor, messages)
    call = _call(response, "reserved_or_on_demand")
    assert call.args["reserved_per_gpu_hour"] == reserved and call.args["on_demand_per_gpu_hour"] == on_demand
    assert call.args["gpu_hours_per_month"] == pytest.approx(call.args["peak_gpus"] * 730 * busy)
    assert yours in response.answer.split("\n\n")[0].casefold() or yours in response.answer.split("\n\n")[0]
    assert not any(c.name == "compute_tco" for c in response.tool_calls)  # still reserved against on-demand, not rent or buy


@pytest.mark.parametrize(
    "messages",
    [
        ["We pay $2.1/GPU-hr on-demand for 16 H100s and could reserve at $1.4 for a year. Should we reserve?", "and if we sign for 3 years?"],
        ["我们现在按需租 H100 是每卡每小时 15 元，包年可以谈到 10 元，租 32 张卡，平均利用率 80%，要不要签包年？", "那如果签三年呢？"],
    ],
)
def test_a_longer_term_scales_the_quote_and_says_so(offline_advisor, messages):
    response = _thread(offline_advisor, messages)
    call = _call(response, "reserved_or_on_demand")
    first = 1.4 if "$" in messages[0] else 10
    assert call.args["reserved_per_gpu_hour"] < first  # the 3-year estimate, below the 1-year quote
    assert "× 0." in response.answer  # the scaling is shown


@pytest.mark.parametrize(
    ("message", "base", "peak", "never_asked"),
    [
        ("Our base load is 8 H100s around the clock and we burst to 24 for about 6 hours a day. On-demand is $2.5/GPU-hr, reserved "
         "$1.6. How should we mix reserved and on-demand?", 8, 24, "Tell me"),
        ("平时稳定用 16 张 A100，每天高峰 4 小时要 40 张，按需 12 元/卡时，预留 8 元/卡时，怎么组合最省？", 16, 40, "告诉我"),
    ],
)  # fmt: skip
def test_a_stated_load_is_used_not_asked_for(offline_advisor, message, base, peak, never_asked):
    response = offline_advisor.answer(message, [])
    call = _call(response, "reserved_or_on_demand")
    assert call.args["base_gpus"] == base and call.args["peak_gpus"] == peak
    assert never_asked not in response.answer
    lead = response.answer.split("\n\n")[0]
    assert f"{base}" in lead and ("Mix" in lead or "混合" in lead)


@pytest.mark.parametrize(
    ("message", "never_asked"),
    [
        ("On-demand A100 is $3.2/GPU-hr and a 1-year reservation $2.0; we have 20 GPUs. Reserve?", "peak count"),
        ("按需 A100 每卡时 20 元，包年 13 元，我们一共 20 张卡，要不要包年？", "峰值几张卡"),
    ],
)
def test_a_stated_peak_is_not_asked_for_again(offline_advisor, message, never_asked):
    response = offline_advisor.answer(message, [])
    assert never_asked not in response.answer
    assert "20" in response.answer.split("\n\n")[0]


@pytest.mark.parametrize(
    ("message", "feeds", "bill"),
    [
        ("Each rack gets two 30 A 208 V circuits and power costs $0.12/kWh. How many 8x H100 servers per rack, and the yearly power bill?",
         "30 A × 208 V", "Electricity"),
        ("每柜 2 路 32A 220V 电路，电费 0.8 元/度，能放几台 8 卡 H100 服务器？一年电费多少？", "32 A × 220 V", "年电费"),
    ],
)  # fmt: skip
def test_stated_circuits_and_a_bill_are_both_answered(offline_advisor, message, feeds, bill):
    answer = offline_advisor.answer(message, []).answer
    assert feeds in answer and bill in answer
    assert "tell me" not in answer.casefold() and "请提供" not in answer
