"""The headline and the body come from one tool result under one set of assumptions (#37 class 5). A "can my cards run
it?" answer that says yes in a lower-bit format shows that format's own breakdown (not the 16-bit one that does not
fit) and says what the format costs in quality, measured against the format the checkpoint ships in; a stated load on
stated cards with no TP named is served in the split that serves it best (copies of a smaller group when they stream
faster than one copy over every card), and the lead's speed is that split's. Wording of our own, en and zh."""

from __future__ import annotations

import pytest

from advisor.markdown import number
from advisor.offline.wording import Wording
from tests.threads import calls, lead

QUALITY = Wording("serving", "lower_precision")


def _memory_results(response) -> list[dict]:
    return [call.result for call in calls(response, "estimate_memory") if call.result]


def _zh(question: str) -> bool:
    return any("\u4e00" <= char <= "\u9fff" for char in question)


# --- a lower-bit yes: the body's breakdown is the estimate the lead's figure came from -------------------------

FORMAT_YES = [
    "Is a set of four RTX 4090s enough to serve Qwen2.5-72B?",
    "四张 RTX 4090 能不能部署 Qwen2.5-72B 做推理？",
    "Would one L40S host Qwen2.5-32B for inference?",
    "单张 L40S 可以跑 Qwen2.5-32B 推理吗？",
    "We have two 4090 cards. Can they run Llama 3.1 70B?",
    "手上有两张 4090，跑得动 Llama 3.1 70B 吗？",
    "Could a single RTX 4090 serve Qwen2.5-32B?",
]


@pytest.mark.parametrize("question", FORMAT_YES)
def test_the_breakdown_is_the_format_the_lead_says_yes_in(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    results = _memory_results(response)
    asked = next(r for r in results if r.get("fit_plan"))  # the 16-bit estimate, which did not fit
    shown = results[-1]  # the estimate re-run in the leading route's format, on the same cards
    assert shown is not asked and not shown.get("fit_plan"), [r.get("weights_precision") for r in results]
    assert shown["weights_precision"] != asked["weights_precision"], shown["weights_precision"]
    assert shown["verdict"] in ("fits", "tight"), shown["verdict"]
    first = lead(response)
    assert first.startswith(("**Yes", "**能")), first
    # the lead's per-GPU figure is the breakdown's total, and the body's nvidia-smi figure is the same number
    figure = number(shown["total_per_gpu_gb"])
    assert figure in first, (figure, first)
    body = response.answer.split(first, 1)[1]
    assert f"**{figure} GB**" in body, figure
    # the 16-bit figure that did not fit is named only as the second verdict, never as the body's total
    assert f"**{number(asked['total_per_gpu_gb'])} GB**" not in body, asked["total_per_gpu_gb"]


@pytest.mark.parametrize("question", FORMAT_YES[:4])
def test_the_lower_bit_yes_says_what_the_format_costs(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    shown = _memory_results(response)[-1]
    language = "zh" if _zh(question) else "en"
    cost = QUALITY.data["quality"][shown["weights_precision"]][language]
    assert cost in lead(response), lead(response)
    assert QUALITY.data["source"]["url"] in response.answer


def test_a_stated_format_is_not_replaced(offline_advisor):
    response = offline_advisor.answer("Can four RTX 4090 host Qwen2.5-72B in bf16?", [])
    assert not lead(response).startswith("**Yes"), lead(response)
    assert all(r["weights_precision"] == "bf16" for r in _memory_results(response) if not r.get("fit_plan") and r.get("verdict"))


# --- a checkpoint shipped in FP8, stepped down to 4-bit: said, with its own source -------------------------------

SHIPPED_FP8 = [
    "Will DeepSeek-V3 run on our eight H100 cards?",
    "我们的 8 张 H100 能跑满血 DeepSeek-V3 吗？",
    "Is one box of 8x A100 80GB enough for the full DeepSeek-R1?",
    "一台 8 卡 A100 80G 能部署完整的 DeepSeek-R1 吗？",
]


@pytest.mark.parametrize("question", SHIPPED_FP8)
def test_a_4bit_step_below_a_shipped_fp8_release_carries_a_quality_note(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    first = lead(response)
    shown = _memory_results(response)[-1]
    assert first.startswith(("**Yes", "**能")) and shown["weights_precision"] == "awq-int4", (first, shown["weights_precision"])
    from_fp8 = QUALITY.data["from_shipped"]["fp8"]
    assert from_fp8["quality"]["awq-int4"]["zh" if _zh(question) else "en"] in first, first
    assert from_fp8["source"]["url"] in response.answer
    # the note is not the BF16-relative one, which would misstate the step
    assert QUALITY.data["quality"]["awq-int4"]["zh" if _zh(question) else "en"] not in first
    assert number(shown["total_per_gpu_gb"]) in first, first


# --- a stated load on stated cards: the split that serves it, and the lead's speed is that split's ---------------

LOADS = [
    "How should I serve Llama 3.1 8B for 100 concurrent users on 4 L40S?",
    "4 张 L40S 部署 Llama 3.1 8B，同时 100 个用户，每人多快？",
    "Four L40S cards, Llama 3.1 8B, 80 users at once: what speed per user?",
    "用四张 L40S 给 80 个并发用户跑 Llama 3.1 8B，速度怎么样？",
]


@pytest.mark.parametrize("question", LOADS)
def test_copies_of_a_smaller_group_serve_a_stated_load(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    speeds = [call.result for call in calls(response, "estimate_throughput") if call.result]
    assert speeds, "no serving estimate"
    served = speeds[0]
    assert served["num_gpus"] == 4 and served["tp"] < 4 and served["replicas"] > 1, (served["tp"], served["replicas"])
    first = lead(response)
    assert number(served["tokens_per_s_per_user_streaming"]) in first, first
    # the split is said, with the one-copy figure it beat
    assert f"TP={served['tp']}" in response.summary and "TP=4" in response.summary, response.summary


@pytest.mark.parametrize("question", [
    "Llama 3.1 8B on 4 L40S with TP=4 for 100 concurrent users: how fast?",
    "4 张 L40S，TP=4，Llama 3.1 8B 同时 100 个用户，每人多快？",
])  # fmt: skip
def test_a_stated_tp_is_kept(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    speeds = [call.result for call in calls(response, "estimate_throughput") if call.result]
    assert speeds and speeds[0]["tp"] == 4, [s["tp"] for s in speeds]


def test_one_user_keeps_the_widest_split(offline_advisor):
    """No load stated: one request at a time is fastest over every card, so the tool's split stands."""
    response = offline_advisor.answer("How fast is Llama 3.1 8B on 4 L40S?", [])
    speeds = [call.result for call in calls(response, "estimate_throughput") if call.result]
    assert speeds and speeds[0]["tp"] == 4, [s["tp"] for s in speeds]


# --- a team's speed on a fit question: the format the card is served in, and the figure the serving answer gives ----

TEAM_ON_CARDS = [
    ("Our team of 40 wants to use Qwen2.5-72B on 4 L40S. Will it work?", "en"),
    ("Does Llama 3.1 70B fit on 2 H100 for 30 users at once?", "en"),
    ("两张 H100 放得下 Llama 3.1 70B 吗？要给 30 个人同时用", "zh"),
]


@pytest.mark.parametrize(("question", "language"), TEAM_ON_CARDS)
def test_a_team_is_timed_in_the_cards_serving_format(offline_advisor, question, language):
    response = offline_advisor.answer(question, [])
    speeds = [call for call in calls(response, "estimate_throughput") if call.result]
    assert speeds, "no speed for the team"
    timed = speeds[0]
    assert timed.args.get("precision") == "fp8", timed.args
    assert number(timed.result["tokens_per_s_per_user_streaming"]) in lead(response), lead(response)


@pytest.mark.parametrize("question", [
    "We have 200 employees who will use an internal chatbot on Llama 3.1 70B with 8 H100s. How many replicas and what TP?",
    "Eight H100s in our rack; about 30 staff chat with Llama 3.1 70B at the same time. How many GPUs does that need, and how do we split our eight?",
])  # fmt: skip
def test_a_count_sized_for_the_load_is_laid_over_the_cards_stated(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    laid = [call.result for call in calls(response, "estimate_throughput") if call.result and call.result["num_gpus"] == 8]
    assert laid and laid[-1]["replicas"] > 1, [(c.result or {}).get("num_gpus") for c in calls(response, "estimate_throughput")]
    assert f"TP={laid[-1]['tp']}" in response.summary and str(laid[-1]["replicas"]) in response.summary, response.summary


# --- a training OOM sized at a length the message did not give: the length is said; a stated one is used -----------

SEQUENCE = Wording("troubleshoot", "trouble")


@pytest.mark.parametrize(("question", "stated"), [
    ("QLoRA of Qwen2.5-32B on one RTX 4090 with cutoff_len 2048 runs out of memory", None),
    ("LoRA fine-tune of Qwen2.5-14B on a 4090, samples are 2k tokens, batch 2, getting OOM", 2048),
    ("用 4090 做 Qwen2.5-14B 的 LoRA 微调，样本长度 2k，batch 2，一直 OOM", 2048),
])  # fmt: skip
def test_an_oom_check_uses_the_stated_length_or_says_the_one_it_sized(offline_advisor, question, stated):
    response = offline_advisor.answer(question, [])
    checked = [call.args for call in calls(response, "estimate_memory")]
    assert checked, "no memory check"
    said = SEQUENCE.text("sequence_assumed", context="4,096").zh if _zh(question) else SEQUENCE.text("sequence_assumed", context="4,096").en
    if stated:
        assert checked[0].get("context") == stated, checked[0]
        assert said not in response.answer
    else:
        assert not checked[0].get("context"), checked[0]
        assert said in response.answer
