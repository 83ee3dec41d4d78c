"""The first sentence agrees with the body: its yes or no and its number come from the same tool result the body
uses (the fit plan's count, the recommended configuration, the catalog's two figures of a stated comparison, the
matched fault's class). Wording of our own, in both languages, over memory, recommend, troubleshoot, serving and specs."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from tests.threads import lead

NEGATIVE_LEAD = re.compile(r"^\**\s*(❌\s*)?(No\b|放不下)")  # a flat "no" with nothing conditional after it
NOT_MEMORY = ("Not memory", "不是显存不够")  # the roomy-cache lead of a slowdown, wrong for a capacity error


def calls(response, name: str) -> list:
    return [call for call in response.tool_calls if call.name == name and call.result]


def counts_of(text: str, card: str) -> set[int]:
    """Every count said of ``card`` in ``text``: "24× NVIDIA A100 80GB SXM", "24 张 NVIDIA A100 80GB SXM"."""
    return {int(n.replace(",", "")) for n in re.findall(rf"(\d[\d,]*)(?:×| 张) {re.escape(card)}", text)}


# ------------------------------------------------------------------ memory: "not on one; yes on N" from the fit plan

TOO_BIG = [
    "Could a single A100 80GB handle a full fine-tune of Llama 3 70B?",
    "一张 A100 80G 能不能全参微调 Llama 3 70B？",
    "Is one H100 enough to serve Qwen2.5-72B in BF16?",
    "一张H100能跑Qwen2.5-72B推理吗？",
    "We want to full fine-tune Llama-3.1-8B on one A100 40GB, will it fit?",
    "在一张 A100 40G 上全参微调 Llama-3.1-8B 放得下吗？",
]


@pytest.mark.parametrize("question", TOO_BIG)
def test_a_job_too_big_for_one_card_leads_with_the_count_that_holds_it(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    (estimate,) = [c.result for c in calls(response, "estimate_memory") if c.result.get("fit_plan")][:1]
    same = estimate["fit_plan"]["same_card"]
    first = lead(response)
    assert same["count"], "the grid holds jobs that some count of the same card holds"
    assert not NEGATIVE_LEAD.match(first), first  # "not on one, yes on N", never a bare "no"
    assert counts_of(first, same["gpu"]) == {same["count"]}, first
    # one count of the same card for the job as asked: no second, even-split figure anywhere in the answer
    stated = counts_of(response.answer, same["gpu"]) - {r["count"] for r in estimate["fit_plan"]["routes"] if r["gpu"] == same["gpu"]}
    assert stated <= {same["count"]}, stated
    assert "evenly" not in response.answer and "均匀切分" not in response.answer


@pytest.mark.parametrize(
    "question",
    [
        "Full fine-tuning Llama-3.1-8B on one A100 40GB gives CUDA out of memory, why?",
        "在一张A100 40G上全参微调Llama-3.1-8B报显存不足，怎么办？",
    ],
)
def test_an_oom_answer_gives_one_sharded_count(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    card = "NVIDIA A100 40GB SXM"
    plans = [c.result["fit_plan"] for c in calls(response, "estimate_memory") if c.result.get("fit_plan") and c.result["gpu"] == card]
    planned = {plan["same_card"]["count"] for plan in plans}
    assert len(planned) == 1, planned
    routes = {route["count"] for plan in plans for route in plan["routes"] if route["gpu"] == card}
    said = counts_of(response.answer, card) - routes  # the adapters' and offload's own counts are other jobs
    said |= {int(en or zh) for en, zh in re.findall(r"across (\d+) of these cards|切分到 (\d+) 张同样的卡", response.answer)}
    assert said == planned, (said, planned)
    assert "evenly" not in response.answer and "均匀切分" not in response.answer


# ------------------------------------------------------------------ recommend: the lead's count is the top tier's


@pytest.mark.parametrize("question", ["How many H200s do we need to serve DeepSeek-V3?", "部署DeepSeek-V3需要几张H200？"])
def test_a_recommendation_leads_with_the_configuration_it_sizes(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    (result,) = [c.result for c in calls(response, "recommend_gpus")][:1]
    top = (result["tiers"] or [{"option": result["options"][0]}])[0]["option"]
    assert re.search(rf"\b{top['count']}×", lead(response)), lead(response)


# ------------------------------------------------------------------ troubleshoot / serving: the fault's class


@pytest.mark.parametrize(
    "question",
    [
        "vLLM serving Qwen2.5-7B on one RTX 4090 fails with \"No available memory for the cache blocks\"",
        "用vLLM在一张4090上部署Qwen2.5-7B，报错 No available memory for the cache blocks，为什么？",
    ],
)
def test_a_kv_cache_capacity_error_is_never_led_by_not_memory(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    assert not any(phrase in lead(response) for phrase in NOT_MEMORY), lead(response)


# ------------------------------------------------------------------ specs: the asked figure, right or wrong on a comparison

CLAIMS = [
    ("Is it true the L40S has more TFLOPS than the A100?", "l40s", "a100-80gb-sxm", "bf16_tflops", "more"),
    ("H20的显存比H100大吧？", "h20", "h100-sxm", "memory_gb", "more"),
    ("The 4090 has higher memory bandwidth than the L40S, correct?", "rtx-4090", "l40s", "bandwidth_gbs", "more"),
    ("A100的BF16算力比L40S高，对吧？", "a100-80gb-sxm", "l40s", "bf16_tflops", "more"),
    ("Does the MI300X draw less power than the H100?", "mi300x", "h100-sxm", "tdp_w", "less"),
    ("H100的FP8算力比B200低吗？", "h100-sxm", "b200", "fp8_tflops", "less"),
]


@pytest.mark.parametrize(("question", "subject", "other", "field", "direction"), CLAIMS)
def test_a_stated_comparison_is_checked_first_with_both_figures(offline_advisor, question, subject, other, field, direction):
    catalog = load_catalog()
    ours, theirs = getattr(catalog.gpu(subject), field), getattr(catalog.gpu(other), field)
    holds = ours > theirs if direction == "more" else ours < theirs
    first = lead(offline_advisor.answer(question, []))
    zh = bool(re.search(r"[\u4e00-\u9fff]", question))
    verdict = ("**对" if holds else "**不对") if zh else ("**Right" if holds else "**No")
    assert first.startswith(verdict), first
    shown = {float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", first)}
    assert all(any(abs(value - float(x)) <= 0.051 for value in shown) for x in (ours, theirs)), first  # to the answer's rounding


@pytest.mark.parametrize(
    ("question", "field", "card"),
    [
        ("What is the H200's memory bandwidth?", "bandwidth_gbs", "h200-sxm"),
        ("H100显存带宽是多少？", "bandwidth_gbs", "h100-sxm"),
        ("How much memory does the MI300X have?", "memory_gb", "mi300x"),
        ("B200的功耗多少瓦？", "tdp_w", "b200"),
    ],
)
def test_a_spec_question_leads_with_the_figure_asked(offline_advisor, question, field, card):
    figure = f"{getattr(load_catalog().gpu(card), field):,.0f}"
    first = re.split(r"(?<=[.。])\s", lead(offline_advisor.answer(question, [])), maxsplit=1)[0]
    assert figure in first and not first.startswith(("**NVIDIA", "**AMD")), first  # the fact asked, not a bold card name
