"""Issue #35 item 1: a full fine-tune over several GPUs is sized the way anyone would run it, sharded with
ZeRO-3/FSDP across them, and the answer says so and how many GPUs the job needs when those cannot hold it."""

from __future__ import annotations

import re

import pytest


def memory_call(response):
    return next(c for c in response.tool_calls if c.name == "estimate_memory")


def test_a_full_fine_tune_over_several_gpus_is_sharded_and_says_how_many_it_needs(offline_advisor):
    en = offline_advisor.answer("Full fine-tuning Qwen2.5-72B on eight H100s: how much memory does each GPU need?", [])
    call = memory_call(en)
    assert call.args["zero_stage"] == 3 and call.args["num_gpus"] == 8
    assert 120 < call.result["total_per_gpu_gb"] < 200  # ~16-18 B/param over 8 GPUs, not ~1.3 TB replicated
    assert "ZeRO-3/FSDP across the 8 GPUs" in en.answer
    needed = int(re.search(r"fits on (\d+)× NVIDIA H100", en.answer).group(1))  # the lead gives the counted plan, not a rough bound
    assert 16 <= needed <= 24
    zh = offline_advisor.answer("用8张H100做72B模型的全参微调，每张卡要多少显存", [])
    assert memory_call(zh).args["zero_stage"] == 3 and "ZeRO-3/FSDP" in zh.answer
    assert 16 <= int(re.search(r"(\d+) 张 NVIDIA H100 SXM 放得下", zh.answer).group(1)) <= 24


def test_a_sharding_the_user_names_is_kept(offline_advisor):
    stated = offline_advisor.answer("full fine-tune llama 3.1 8b on 4 A100 80GB with ZeRO-2, memory per GPU?", [])
    assert memory_call(stated).args["zero_stage"] == 2


def test_a_kv_cache_question_leads_with_the_kv_cache_for_the_stated_load(offline_advisor):
    en = offline_advisor.answer("What is the KV cache size of Llama 3.1 70B with 8 concurrent users at 16k context?", [])
    call = memory_call(en)
    assert call.args["batch"] == 8  # the users are the sequences held at once
    kv = next(i["value"] for i in call.result["items"] if i["key"] == "kv_cache")
    assert en.answer.startswith("**KV cache: ") and f"{kv:.1f}" in en.answer.split("\n")[0]
    assert kv < call.result["total_per_gpu_gb"]  # the per-GPU total (weights, temporaries) follows, not first
    zh = offline_advisor.answer("Qwen2.5-72B在64k上下文下KV缓存要占多少显存", [])
    assert zh.answer.startswith("**KV 缓存：") and "65,536 token" in zh.answer.split("\n")[0]


def test_a_memory_question_without_the_kv_cache_keeps_its_verdict_first(offline_advisor):
    answer = offline_advisor.answer("How much memory to serve Llama 3.1 8B at 8k context?", []).answer
    assert not answer.startswith("**KV cache")


@pytest.mark.parametrize(
    "message",
    ["What does a full-parameter fine-tune of Llama 3.1 70B need in GPU memory?", "Qwen2.5-32B 做全量微调要多少显存？"],
)
def test_a_full_fine_tune_with_no_card_named_is_weighed_on_the_standard_training_card(offline_advisor, message):
    """A total no single card holds is no answer on its own: the cards ZeRO-3 needs and what fits instead lead."""
    from tests.threads import ask, calls

    reply = ask(offline_advisor, message)
    assert calls(reply, "estimate_memory")[0].args.get("gpu") == "h100-sxm"
    assert "ZeRO-3" in reply.summary and ("LoRA" in reply.summary), reply.summary[:500]
