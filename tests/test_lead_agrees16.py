"""The first sentence agrees with the setup the body recommends (#35/#36). A "can my N cards run it?" question whose
16-bit weights do not fit, while a lower-bit format of the body's routes does on those same cards, leads with that
working setup and gives the 16-bit verdict second; a small model on many stated GPUs is sized as data-parallel
replicas (one copy per card or per the smallest group that holds it), not one copy split over every card. Wording of
our own, in both languages."""

from __future__ import annotations

import pytest

from tests.threads import lead


def estimates(response) -> list[dict]:
    return [call.result for call in response.tool_calls if call.name == "estimate_memory" and call.result]


FORMAT_FITS = [
    ("Could our four RTX 4090 cards host Llama 3.1 70B for inference?", 4),
    ("我们四张 4090 能部署 Llama 3.1 70B 推理吗？", 4),
    ("Would a single RTX 4090 serve Qwen2.5-32B?", 1),
    ("一张 4090 能跑 Qwen2.5-32B 推理吗？", 1),
]


@pytest.mark.parametrize(("question", "count"), FORMAT_FITS)
def test_a_format_that_fits_the_stated_cards_leads(offline_advisor, question, count):
    response = offline_advisor.answer(question, [])
    plans = [r["fit_plan"] for r in estimates(response) if r.get("fit_plan")]
    assert plans, "16-bit weights do not fit the stated cards"
    plan = plans[0]
    working = [r for r in plan["routes"] if r["key"] != "smaller_model" and (r["fits_your_count"] if count > 1 else r["count"] == 1)]
    assert working, plan["routes"]
    first = lead(response)
    # the lead is a yes in the body's first working format on the user's own cards, with that route's figure
    assert first.startswith(("**Yes", "**能")), first
    assert "does not fit on" not in first.split(".")[0] and "放不下" not in first.split("。")[0], first
    label = working[0]["label"]["zh" if "能" in first[:4] else "en"]
    assert label in first, (label, first)
    assert f"{working[0]['per_gpu_gb']:g}" in first or str(round(working[0]["per_gpu_gb"], 1)) in first, first
    # the verdict in the format sized (16-bit here) comes second, naming that format
    assert "BF16" in first, first


def test_a_stated_format_keeps_its_own_verdict(offline_advisor):
    response = offline_advisor.answer("Can four RTX 4090 host Llama 3.1 70B in bf16?", [])
    first = lead(response)
    assert not first.startswith("**Yes"), first


REPLICAS = [
    "I have 8 H100s. Can they serve Llama 3.1 8B?",
    "我们有 8 张 H100，能部署 Llama 3.1 8B 推理吗？",
    "Do eight A100 40GB cards run Qwen2.5-7B for inference?",
    "八张 A100 40GB 能跑 Qwen2.5-7B 推理吗？",
]


@pytest.mark.parametrize("question", REPLICAS)
def test_a_small_model_on_many_cards_is_served_as_replicas(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    sized = [r for r in estimates(response) if r.get("num_gpus") == 8]
    assert sized, [r.get("num_gpus") for r in estimates(response)]
    r = sized[-1]
    assert r["tp"] < 8 and r["verdict"] in ("fits", "tight"), (r["tp"], r["verdict"])
    first = lead(response)
    assert "replicas" in first or "副本" in first, first
    assert "Tensor parallelism 8" not in response.answer and "TP=8" not in first, first
