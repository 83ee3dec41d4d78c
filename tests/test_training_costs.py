"""A training run's cost inside its thread: epochs, a rental price or a power price asked after the time, and
renting the cheapest card for a run. Wording of our own, not from any split."""

from __future__ import annotations

from tests.test_planner_policy import ask, calls


def test_epochs_multiply_the_training_data_and_a_single_card_stays_one(offline_advisor):
    response = ask(offline_advisor, "full finetune of qwen2.5 1.5b on 30M tokens x 4 epochs, one 4090, how long")
    (run,) = calls(response, "estimate_training_time")
    assert run.args["tokens"] == 120e6 and run.args["num_gpus"] == 1
    assert "120M tokens processed = 30M × 4 epochs" in response.answer


def test_epochs_without_data_are_named_not_dropped(offline_advisor):
    response = ask(offline_advisor, "3 epochs of lora on llama 3.1 8b with 2 a100s, how long")
    assert "epochs “3 epochs”" in response.answer and "no amount of data" in response.answer


def test_the_cost_of_a_run_asked_after_its_time_prices_that_run(offline_advisor):
    question = "pretrain a 1b model on 20B tokens with 8 h100s, how many days"
    response = ask(offline_advisor, "and renting them at $2.10 an hour, what does the run cost?", question)
    assert not calls(response, "compute_tco")
    (run,) = calls(response, "estimate_training_time")
    assert run.args["price_per_gpu_hour"] == 2.1 and run.args["tokens"] == 20e9
    assert "$2.10/GPU-h (given)" in response.answer


def test_the_power_bill_of_a_run_uses_the_price_per_kwh(offline_advisor):
    response = ask(offline_advisor, "那电费呢，一度电六毛", "0.5B模型从头训，4张4090，100亿token，多久")
    (run,) = calls(response, "estimate_training_time")
    assert run.args["electricity_price"] == 0.6 and run.result["electricity_cost"] > 0
    assert "自有卡的电费" in response.answer


def test_renting_the_cheapest_card_ranks_by_rent(offline_advisor):
    response = ask(offline_advisor, "cheapest gpu to rent for a qlora of mistral 7b over a weekend")
    (recommendation,) = calls(response, "recommend_gpus")
    assert recommendation.args["objective"] == "cloud"
    assert "training-time estimate, which needs the amount of training data" in response.answer
