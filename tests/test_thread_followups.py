"""Follow-ups that continue the thread (#36 item 4): a message that changes one value re-runs the thread's last
calculation with everything else kept, and its first sentence says what changed; a count the user has, or
"N nodes of M", is planned on; after a rent-or-buy answer a question about one line answers that line.
Every conversation here is our own wording."""

from __future__ import annotations

import pytest

from advisor.contract import ChatTurn
from tests.threads import first_line

LEAD = {"en": "(everything else as before)", "zh": "其余条件不变"}


def thread(advisor, *messages):
    """Each message answered after the ones before it; the last answer."""
    history, response = [], None
    for text in messages:
        response = advisor.answer(text, history)
        history += [ChatTurn(role="user", content=text), ChatTurn(role="assistant", content=response.answer)]
    return response


def calls(response, name):
    return [call.args for call in response.tool_calls if call.name == name]


@pytest.mark.parametrize(
    ("language", "messages", "tool", "kept", "changed", "said"),
    [
        # serving, sized by load: the card changes, model, precision and load stay
        ("en", ["How many H100 would serve Qwen2.5 32B in FP8 to 60 people at once?", "and what if we used A100 cards?"],
         "estimate_throughput", {"model": "qwen2.5-32b", "precision": "fp8"}, {"gpu": "a100"}, "instead of"),
        ("zh", ["Qwen2.5 32B用FP8给60个人同时用，需要几张H100？", "那要是用A100呢"],
         "estimate_throughput", {"model": "qwen2.5-32b", "precision": "fp8"}, {"gpu": "a100"}, "原为"),
        # training time: the GPU count changes, model size, data and card stay
        ("en", ["Roughly how many days to pretrain a 7B model on 1T tokens using 64 H100?", "and if we had 128 of them?"],
         "estimate_training_time", {"model": "7B", "gpu": "h100-sxm", "tokens": 1_000_000_000_000}, {"num_gpus": 128}, "instead of 64"),
        ("zh", ["64张H100预训练一个7B模型，1T token大概要几天？", "换成128张呢"],
         "estimate_training_time", {"model": "7B", "gpu": "h100-sxm", "tokens": 1_000_000_000_000}, {"num_gpus": 128}, "原为"),
        # memory: the context changes, model and precision stay
        ("en", ["How much VRAM does Llama 3 8B need in fp16 with a 32k context?", "and at 128k?"],
         "estimate_memory", {"model": "llama-3-8b", "precision": "fp16"}, {"context": 131072}, "instead of"),
        ("zh", ["Llama 3 8B用fp16、32k上下文，要多少显存？", "128k的话呢"],
         "estimate_memory", {"model": "llama-3-8b", "precision": "fp16"}, {"context": 131072}, "原为"),
        # rent or buy: utilisation is new, card, count and horizon stay
        ("en", ["Over 3 years, is it cheaper to rent or buy 8 H100?", "what if they sit at 30% utilisation?"],
         "compute_tco", {"gpu": "h100-sxm", "lifetime_years": 3.0}, {"utilisation_pct": 30.0}, "utilisation"),
        ("zh", ["8张H100用3年，租和买哪个便宜？", "利用率只有30%呢"],
         "compute_tco", {"gpu": "h100-sxm", "lifetime_years": 3.0}, {"utilisation_pct": 30.0}, "利用率"),
    ],
)
def test_a_changed_value_reruns_the_last_calculation_and_says_so_first(offline_advisor, language, messages, tool, kept, changed, said):
    response = thread(offline_advisor, *messages)
    assert response.language == language
    runs = calls(response, tool)
    assert runs, f"{tool} was not called again"

    def has_changed(run: dict) -> bool:
        return all(str(run.get(k)).startswith(str(v)) if isinstance(v, str) else run.get(k) == v for k, v in changed.items())

    # the first run with the changed value (a serving answer may go on to try other formats and cards that meet the target)
    rerun = next((run for run in runs if has_changed(run)), None)
    assert rerun is not None, (changed, runs)
    for key, value in kept.items():
        assert rerun.get(key) == value, (key, rerun)
    lead = first_line(response)
    assert LEAD[language] in lead and said in lead, lead


@pytest.mark.parametrize(
    ("language", "messages", "expected_gpus"),
    [
        ("en", ["How long would training a 13B model on 500B tokens take on H100s?", "our cluster has 4 nodes of 8"], 32),
        ("en", ["How long would training a 13B model on 500B tokens take on H100s?", "it's 2 servers with 8 GPUs each"], 16),
        ("zh", ["用H100训练13B模型、500B token要多久？", "我们有4台8卡的"], 32),
    ],
)
def test_nodes_of_cards_count_every_card_in_the_thread(offline_advisor, language, messages, expected_gpus):
    response = thread(offline_advisor, *messages)
    runs = calls(response, "estimate_training_time")
    assert runs and runs[0]["num_gpus"] == expected_gpus and runs[0]["model"] == "13B"
    assert str(expected_gpus) in first_line(response)


@pytest.mark.parametrize(
    ("language", "messages", "count"),
    [
        ("en", ["How many A100 do we need to serve Llama 3.1 70B in FP8 for 80 concurrent users?", "honestly we only have 4"], 4),
        ("zh", ["Llama 3.1 70B用FP8服务80个并发，要几张A100？", "我们手里只有四张"], 4),
    ],
)
def test_a_count_on_hand_after_how_many_is_served_on_instead_of_sized_again(offline_advisor, language, messages, count):
    response = thread(offline_advisor, *messages)
    runs = calls(response, "estimate_throughput")
    assert runs and all(run["num_gpus"] == count for run in runs), runs
    assert all(run["model"] == "llama-3.1-70b" and run["precision"] == "fp8" for run in runs)
    assert LEAD[language] in first_line(response)


@pytest.mark.parametrize(
    ("language", "messages", "line", "currency"),
    [
        ("en", ["Rent or buy 16 H100 for three years?", "how much goes to maintenance each month?"], "Maintenance per month", "$"),
        ("en", ["Rent or buy 16 H100 for three years?", "and what's the power line?"], "Electricity", "$"),
        ("zh", ["16张H100用三年，租还是买？", "托管费每月多少？"], "每月机房托管费", "¥"),
        ("zh", ["16张H100用三年，租还是买？", "电费多少？"], "电费", "¥"),
    ],
)
def test_after_a_rent_or_buy_answer_one_line_is_answered_in_the_users_currency(offline_advisor, language, messages, line, currency):
    response = thread(offline_advisor, *messages)
    runs = calls(response, "compute_tco")
    assert runs and runs[-1]["gpu"] == "h100-sxm" and runs[-1]["servers"] * runs[-1]["gpus_per_server"] == 16
    lead = first_line(response)
    assert line in lead and currency in lead, lead
    assert "|" not in response.summary  # the line, not the comparison table again


@pytest.mark.parametrize(
    ("language", "messages", "first_card", "second_card"),
    [
        ("en", ["What's the memory bandwidth of the L40S?", "and the H200?"], "l40s", "h200"),
        ("zh", ["L40S的显存带宽是多少？", "那H200呢"], "l40s", "h200"),
    ],
)
def test_a_spec_follow_up_asks_the_same_of_the_new_card(offline_advisor, language, messages, first_card, second_card):
    response = thread(offline_advisor, *messages)
    runs = calls(response, "compare_gpus")
    assert runs and any(gpu.startswith(second_card) for gpu in runs[-1]["gpus"])
    assert not any(gpu.startswith(first_card) for gpu in runs[-1]["gpus"])
    assert LEAD[language] in first_line(response)


@pytest.mark.parametrize(
    ("language", "messages"),
    [
        ("en", ["Full fine-tuning Qwen2.5 14B runs out of memory on 4 A100 40GB", "what if we spread it over 8 of them"]),
        ("zh", ["Qwen2.5 14B全参微调在4张A100 40G上爆显存了", "那换成8张呢"]),
    ],
)
def test_a_troubleshooting_follow_up_rediagnoses_with_the_new_count(offline_advisor, language, messages):
    response = thread(offline_advisor, *messages)
    runs = calls(response, "diagnose")
    assert runs and runs[-1]["setup"]["gpus"] == 8 and runs[-1]["model"] == "qwen2.5-14b"
    lead = first_line(response)
    assert LEAD[language] in lead and "4" in lead and "8" in lead, lead
