"""A memory question that quotes its own rule, names an optimizer, or sets the KV cache apart from the weights.
Wording of our own, not from any split."""

from __future__ import annotations

from advisor.contract import ChatTurn
from advisor.markdown import number
from tests.test_planner_policy import ask, calls


def test_a_quoted_rule_is_worked_out_with_its_own_figure_and_its_result_is_no_card(offline_advisor):
    response = ask(offline_advisor, "听人说全参训练显存就是参数量乘16字节，13B全参那就是208G，对不对")
    (estimate,) = calls(response, "estimate_memory")
    assert not estimate.args.get("gpu_memory_gb")  # 208G is the rule's result, not a card to check the fit against
    assert "13B × 16 字节 = 208 GB" in response.answer and "少算了" in response.answer
    english = ask(offline_advisor, "my rule is 2 bytes per parameter for serving, so a 14b is 28gb, right?")
    assert "14B × 2 B = 28 GB" in english.answer and "4 GB per 1B" not in english.answer


def test_an_eight_bit_optimizer_follow_up_re_runs_the_estimate_with_it(offline_advisor):
    question = "full fine-tune qwen2.5 3b on one a100, how much memory"
    for follow_up, optimizer in (("用8-bit Adam呢", "adamw_8bit"), ("and with paged adamw?", "adamw_8bit_paged")):
        response = ask(offline_advisor, follow_up, question)
        estimate, *probes = calls(response, "estimate_memory")  # a probe of a default the verdict hangs on may follow
        assert estimate.args["optimizer"] == optimizer and "⚠️" not in response.answer
        assert all(probe.args == {**estimate.args, "batch": 8} for probe in probes), probes


def test_a_re_run_is_set_beside_the_previous_estimate_not_beside_its_probe(offline_advisor):
    question = "full fine-tune qwen2.5 3b on one a100, how much memory"
    first = offline_advisor.answer(question, [])
    estimate, probe = calls(first, "estimate_memory")  # "at batch 8 it needs 110.5 GB": the default the verdict hangs on
    assert probe.args.get("batch") == 8 and "batch" not in estimate.args
    history = [ChatTurn(role="user", content=question), ChatTurn(role="assistant", content=first.answer, tool_calls=first.tool_calls)]
    response = offline_advisor.answer("and with paged adamw?", history)
    (rerun, *_) = calls(response, "estimate_memory")
    moved = f"({number(estimate.result['total_per_gpu_gb'])} → {number(rerun.result['total_per_gpu_gb'])} GB per GPU)"
    assert moved in response.summary.split("\n")[0], response.summary[:300]


def test_an_optimizer_the_estimator_does_not_model_is_named_not_dropped(offline_advisor):
    response = ask(offline_advisor, "full finetune of mistral 7b using adafactor, vram needed?")
    (estimate,) = calls(response, "estimate_memory")
    assert estimate.args.get("optimizer") is None  # the estimator's default, AdamW
    assert "optimizer “adafactor”: adafactor is not modelled, so the estimate uses AdamW" in response.answer


def test_the_model_precision_said_in_its_own_clause_is_not_the_cache_precision(offline_advisor):
    response = ask(offline_advisor, "qwen2.5-7b推理，fp16，32k上下文，KV cache占多大")
    (estimate,) = calls(response, "estimate_memory")
    assert estimate.args["precision"] == "fp16" and estimate.args.get("kv_precision") in (None, "fp16")
    cache = ask(offline_advisor, "KV cache换成fp8呢", "qwen2.5-7b推理，fp16，32k上下文，KV cache占多大")
    (estimate,) = calls(cache, "estimate_memory")
    assert estimate.args["precision"] == "fp16" and estimate.args["kv_precision"] == "fp8"


def test_a_versioned_model_name_keeps_its_name_and_size(offline_advisor):
    response = ask(offline_advisor, "how much vram to serve llava-1.6-13b in fp16")
    assert "llava-1.6-13b" in response.answer.lower() and "13" in response.answer


def test_a_refusal_for_a_named_engine_says_why_in_words_without_settings_syntax(offline_advisor):
    response = ask(offline_advisor, "qwen2.5 7b q4_k_m on one l40s with vllm, tokens per second?")
    assert "GGUF" in response.answer and "llama.cpp" in response.answer
    assert "engine=" not in response.answer and "precision=" not in response.answer
    assert "Did you mean: engine llama.cpp, precision awq-int4" in response.answer  # the suggestions, in words
    chinese = ask(offline_advisor, "qwen2.5 7b q4_k_m 用 vllm 在一张 l40s 上每秒多少token")
    assert "您是不是想找：推理引擎 llama.cpp、精度 awq-int4" in chinese.answer


def test_a_card_known_by_its_memory_alone_is_checked_and_named_by_that_memory(offline_advisor):
    response = ask(offline_advisor, "我手上的卡是二十四G的，qwen2.5-14b int4跑得动吗")
    (estimate,) = calls(response, "estimate_memory")
    assert estimate.args["gpu_memory_gb"] == 24
    english = ask(offline_advisor, "my gpu is a 12gb one, does llama 3.1 8b in fp16 fit")
    assert "on one 12 GB GPU" in english.answer and "holds 12.9 GB" in english.answer and "a card sold as 12 GB" in english.answer


def test_a_serving_answer_shows_the_estimators_notes(offline_advisor):
    response = ask(offline_advisor, "qwen2.5 7b on 2 4090s with llama.cpp, tok/s?")
    assert "ℹ️ llama.cpp splits the layers over 2 GPUs that run one after another" in response.answer
    assert "per user with one request at a time" in response.answer  # one request: one per-user figure, no second "total" beside it


def test_a_kv_cache_precision_follow_up_reaches_the_recommender(offline_advisor):
    question = "which gpus to serve qwen2.5-72b at 128k context"
    response = ask(offline_advisor, "kv cache in fp8?", question)
    (ranking,) = calls(response, "recommend_gpus")
    assert ranking.args["kv_precision"] == "fp8" and "You also mentioned" not in response.answer  # used, so not listed as unused


def test_a_rule_that_scales_the_weights_is_worked_out_from_the_weights(offline_advisor):
    response = ask(offline_advisor, "someone said vram is about 1.2 times the model size, true for qwen2.5 7b in bf16?")
    (estimate,) = calls(response, "estimate_memory")
    weights = next(item["value"] for item in estimate.result["items"] if item["key"] == "weights")
    assert f"{weights:.2f}".rstrip("0").rstrip(".") in response.answer and "× 1.2 =" in response.answer
    chinese = ask(offline_advisor, "显存按权重的1.3倍估，Llama-3.1-8B fp16够不够")
    assert "权重" in chinese.answer and "× 1.3 =" in chinese.answer and "4 GB per 1B" not in chinese.answer
